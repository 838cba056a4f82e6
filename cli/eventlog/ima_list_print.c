/* ima_list_print.c - `ktrust ima-list`'s output: each entry (-v), the
 * list's header, the boot_aggregate, the replay against the TPM's PCRs
 * (kt_evlog_pcrs_check, the PCRs the list extends), the list's own
 * integrity and the signatures measured; text or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "eventlog_cli.h"
#include "ima_list_cli.h"
#include "json.h"
#include "json_summary.h"
#include "text_escape.h"
#include "util/fmt.h"

static void sig_json(struct jw *w, const struct kt_ima_sig_check *c)
{
    char kid[9];
    if (c && c->header_ok)
        snprintf(kid, sizeof(kid), "%08x", c->keyid);
    jw_str(w, "signature_verdict", c ? kt_verdict_name(c->verdict) : NULL);
    jw_str(w, "keyid", c && c->header_ok ? kid : NULL);
    jw_str(w, "signer", c && c->signer[0] ? c->signer : NULL);
}

/* "  trusted, key 'NAME'" after an entry's line. */
static const char *sig_text(const struct kt_ima_sig_check *c, char *out, size_t cap)
{
    if (!c)
        return "";
    if (c->signer[0])
        snprintf(out, cap, "  signature %s, key '%s'", kt_verdict_name(c->verdict), tx(c->signer));
    else if (c->header_ok)
        snprintf(out, cap, "  signature %s, key id %08x", kt_verdict_name(c->verdict), c->keyid);
    else
        snprintf(out, cap, "  signature %s: %s", kt_verdict_name(c->verdict), tx(c->reason));
    return out;
}

int ima_entry_print(void *arg, const struct kt_ima_entry *e)
{
    const struct ima_args *a = arg;
    char hex[2 * 64 + 1];
    const char *name = e->decoded ? txn((const char *)e->file_name.p, e->file_name.len) : NULL;
    if (a->co.json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "ima_entry");
        jw_int(&w, "index", (long long)e->index);
        jw_int(&w, "offset", (long long)e->offset);
        jw_int(&w, "pcr", e->pcr);
        jw_str(&w, "template", e->template_name);
        jw_hex(&w, "template_digest", e->template_digest.p, e->template_digest.len);
        jw_bool(&w, "violation", e->violation);
        if (e->decoded)
            jw_strn(&w, "file_name", (const char *)e->file_name.p, e->file_name.len);
        else
            jw_null(&w, "file_name");
        jw_str(&w, "file_digest_algorithm", e->decoded ? e->file_alg : NULL);
        jw_hex(&w, "file_digest", e->file_digest.p, e->decoded ? e->file_digest.len : 0);
        jw_hex(&w, "security_ima", e->sig.p, e->sig.len);
        sig_json(&w, e->sig_check);
        jw_obj_end(&w);
        jw_newline(&w);
        return 0;
    }
    if (a->co.quiet)
        return 0;
    if (e->file_digest.len > 64)
        snprintf(hex, sizeof(hex), "(%zu bytes)", e->file_digest.len);
    else
        kt_hex(e->file_digest.p, e->file_digest.len, hex);
    char st[600];
    printf("  %6zu %2u %-9s %s%s%s %s%s%s\n", e->index, e->pcr, e->template_name,
           e->decoded ? e->file_alg : "", e->decoded ? ":" : "", e->decoded ? hex : "(fields not decoded)",
           name ? name : "", e->violation ? "  VIOLATION (extended as all ones)" : "",
           e->sig_check ? sig_text(e->sig_check, st, sizeof(st)) : e->sig.len ? "  signed" : "");
    return 0;
}

static void verdicts_json(struct jw *w, const char *key, const size_t *n)
{
    jw_obj(w, key);
    for (int v = 0; v <= KT_REFUSED; v++)
        if (n[v])
            jw_int(w, kt_verdict_name((enum kt_verdict)v), (long long)n[v]);
    jw_obj_end(w);
}

static void signers_json(struct jw *w, const struct kt_ima_summary *s)
{
    verdicts_json(w, "signature_verdicts", s->sig_verdicts);
    jw_arr(w, "signers");
    for (size_t k = 0; k < s->n_signers; k++) {
        char kid[9];
        snprintf(kid, sizeof(kid), "%08x", s->signer[k].keyid);
        jw_obj(w, NULL);
        jw_str(w, "keyid", kid);
        jw_str(w, "signer", s->signer[k].signer[0] ? s->signer[k].signer : NULL);
        verdicts_json(w, "verdicts", s->signer[k].n);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

/* Who signed what: one line per key and verdict. */
static void signers_text(const struct kt_ima_summary *s, const char *ring)
{
    for (size_t k = 0; k < s->n_signers; k++)
        for (int v = 0; v <= KT_REFUSED; v++) {
            const struct kt_ima_signer *r = &s->signer[k];
            if (!r->n[v])
                continue;
            printf("  %-10s %6zu  ", kt_verdict_name((enum kt_verdict)v), r->n[v]);
            if (r->signer[0])
                printf("key '%s' (key id %08x)\n", tx(r->signer), r->keyid);
            else
                printf("key id %08x: no key of %s has it\n", r->keyid, ring);
        }
    size_t bad = s->sig_verdicts[KT_MALFORMED] + s->sig_verdicts[KT_UNSUPPORTED];
    if (s->signers_others)
        printf("  %zu more signature%s by other keys\n", s->signers_others,
               s->signers_others == 1 ? "" : "s");
    if (bad)
        printf("  %zu signature%s ktrust could not judge (malformed or unsupported; -v says "
               "which)\n", bad, bad == 1 ? "" : "s");
}

static void header(const struct ima_args *a, const struct kt_ima_summary *s)
{
    if (a->co.json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "ima_list");
        jw_str(&w, "file", a->list);
        jw_str(&w, "format", s->format == KT_IMA_ASCII ? "ascii" : "binary");
        jw_int(&w, "entries", (long long)s->entries);
        jw_int(&w, "violations", (long long)s->violations);
        jw_obj(&w, "templates");
        for (int t = 0; t < KT_IMA_TPL__COUNT; t++)
            if (s->by_template[t])
                jw_int(&w, kt_ima_template_name((enum kt_ima_template)t), (long long)s->by_template[t]);
        jw_obj_end(&w);
        jw_int(&w, "signed", (long long)s->with_sig);
        jw_int(&w, "unsigned", (long long)s->without_sig);
        jw_int(&w, "digests_mismatching", (long long)s->digest_mismatch);
        signers_json(&w, s);
        cli_ima_rule_json(&w, "ima_keyring", &a->keys);
        jw_obj_end(&w);
        jw_newline(&w);
        return;
    }
    printf("%s: %s list, %zu entries", tx(a->list), s->format == KT_IMA_ASCII ? "ASCII" : "binary",
           s->entries);
    if (s->violations)
        printf(" (%zu violation%s)", s->violations, s->violations == 1 ? "" : "s");
    const char *sep = ", templates";
    for (int t = 0; t < KT_IMA_TPL__COUNT; t++)
        if (s->by_template[t]) {
            printf("%s %s %zu", sep, kt_ima_template_name((enum kt_ima_template)t), s->by_template[t]);
            sep = ",";
        }
    printf("\n");
}

static const char *ba_word(enum kt_ima_ba_status b)
{
    switch (b) {
    case KT_IMA_BA_MATCH: return "match";
    case KT_IMA_BA_MISMATCH: return "mismatch";
    case KT_IMA_BA_NO_TPM: return "no_tpm";
    case KT_IMA_BA_NO_VALUES: return "unchecked";
    default: return "absent";
    }
}

static void boot_aggregate(const struct ima_args *a, const struct kt_ima_summary *s,
                           enum kt_ima_ba_status b, const uint8_t *computed)
{
    char h1[2 * KT_EVLOG_MAX_DIGEST + 1], h2[2 * KT_EVLOG_MAX_DIGEST + 1];
    const char *src = a->evlog ? "the event log's replay" : "the TPM's";
    if (a->co.json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "boot_aggregate");
        jw_str(&w, "status", ba_word(b));
        jw_str(&w, "algorithm", s->have_boot_aggregate ? s->boot_aggregate_alg : NULL);
        jw_hex(&w, "value", s->boot_aggregate, s->boot_aggregate_len);
        jw_hex(&w, "expected", computed, b <= KT_IMA_BA_MISMATCH ? s->boot_aggregate_len : 0);
        jw_obj_end(&w);
        jw_newline(&w);
        return;
    }
    if (b == KT_IMA_BA_ABSENT) {
        printf("no boot_aggregate entry first: the list does not start at this boot's IMA init\n");
        return;
    }
    kt_hex(s->boot_aggregate, s->boot_aggregate_len, h1);
    if (b == KT_IMA_BA_MATCH && !a->co.quiet)
        printf("boot_aggregate (%s) matches PCRs 0-%d of %s: %s\n", s->boot_aggregate_alg,
               strcmp(s->boot_aggregate_alg, "sha1") ? 9 : 7, src, h1);
    else if (b == KT_IMA_BA_MISMATCH)
        printf("boot_aggregate (%s) MISMATCH: the list has %s, PCRs 0-%d of %s give %s\n",
               s->boot_aggregate_alg, h1, strcmp(s->boot_aggregate_alg, "sha1") ? 9 : 7, src,
               kt_hex(computed, s->boot_aggregate_len, h2));
    else if (b == KT_IMA_BA_NO_TPM && !a->co.quiet)
        printf("boot_aggregate all zeros: the kernel found no TPM at IMA's start\n");
    else if (!a->co.quiet)
        printf("boot_aggregate (%s) %s: not checked (no %s PCRs 0-9 given)\n", s->boot_aggregate_alg,
               h1, s->boot_aggregate_alg);
}

static void pcr_line(const struct ima_args *a, const struct kt_pcr_check *c)
{
    char hex[2 * KT_EVLOG_MAX_DIGEST + 1], xhex[2 * KT_EVLOG_MAX_DIGEST + 1];
    const char *v = c->replayed_len ? kt_hex(c->replayed, c->replayed_len, hex) : NULL;
    if (a->co.json)
        ev_pcr_json(c);
    else if (c->status == KT_PCR_MISMATCH)
        printf("  %-7s %2u MISMATCH: the list replays to %s, the TPM holds %s\n", ev_alg(c->alg),
               c->index, v, kt_hex(c->value, c->read_len, xhex));
    else if (!a->co.quiet)
        printf("  %-7s %2u %s %s\n", ev_alg(c->alg), c->index,
               c->status == KT_PCR_MATCH ? "match" : !v ? "not computed (an entry's template "
               "data is unknown in the ASCII form):" : "not read from the TPM, not checked:",
               v ? v : "");
}

static int pcrs(const struct ima_args *a, const struct kt_ima_summary *s,
                const struct kt_pcr_values *x, struct ima_counts *c)
{
    struct kt_pcr_values none = {0};
    struct kt_pcr_check *ck;
    struct kt_pcr_tally t;
    size_t n;
    if (kt_evlog_pcrs_check(&s->pcrs, x ? x : &none, &ck, &n, &t) < 0)
        return -1;
    if (!a->co.json && !a->co.quiet)
        printf("PCRs, the list replayed%s%s:\n", x ? " against " : "", x ? tx(a->pcrs) : "");
    for (size_t k = 0; k < n; k++)
        if (ck[k].in_log)
            pcr_line(a, &ck[k]);
    free(ck);
    c->pcr_match = t.match;
    c->pcr_mismatch = t.mismatch;
    return 0;
}

int ima_report(const struct ima_args *a, const struct kt_ima_summary *s,
               const struct kt_pcr_values *x, const struct kt_evlog_pcrs *ev,
               struct ima_counts *c)
{
    uint8_t computed[KT_EVLOG_MAX_DIGEST];
    int code = 0;
    c->read = true;
    c->entries = s->entries;
    c->violations = s->violations;
    c->signed_ = s->with_sig;
    c->unsigned_ = s->without_sig;
    c->digests_bad = s->digest_mismatch;
    header(a, s);
    enum kt_ima_ba_status b = kt_ima_boot_aggregate_check(s, ev, x, computed);
    c->boot_aggregate = (int)b;
    boot_aggregate(a, s, b, computed);
    if (pcrs(a, s, x, c) < 0)
        return EXIT_INTERNAL;
    if (s->digest_mismatch && !a->co.json)
        printf("%zu entr%s whose template data does not hash to the listed digest (the first: "
               "entry %zu): the list was altered\n", s->digest_mismatch,
               s->digest_mismatch == 1 ? "y" : "ies", s->first_mismatch);
    if (!a->co.json && !a->co.quiet && (s->with_sig || s->without_sig))
        printf("signatures measured: %zu file%s with a security.ima signature, %zu without\n",
               s->with_sig, s->with_sig == 1 ? "" : "s", s->without_sig);
    if (!a->co.json && !a->co.quiet)
        signers_text(s, a->keys.rule.name);
    if (!a->co.json && !a->co.quiet && s->with_sig)
        cli_ima_rule_text(stdout, "  ", &a->keys);
    if (c->pcr_mismatch || b == KT_IMA_BA_MISMATCH || s->digest_mismatch)
        code = 5;
    return code;
}

void ima_summary(const struct ima_args *a, int code, const struct ima_counts *c)
{
    if (!a->co.json)
        return;
    struct cli_count n[] = {
        {"entries", c->entries},
        {"violations", c->violations},
        {"signed", c->signed_},
        {"unsigned", c->unsigned_},
        {"pcrs_matching", c->pcr_match},
        {"pcrs_mismatching", c->pcr_mismatch},
        {"digests_mismatching", c->digests_bad},
    };
    struct cli_summary sum = {code == EXIT_NOINPUT || !c->read ? NULL
                                                               : kt_verdict_name((enum kt_verdict)code),
                              code, n, sizeof(n) / sizeof(n[0]), false, NULL};
    cli_json_summary(stdout, &sum);
}
