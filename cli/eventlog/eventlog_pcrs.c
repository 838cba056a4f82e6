/* eventlog_pcrs.c - the replayed PCRs, and the replay against PCR values
 * read from a TPM or a file (kt_pcrs_read, kt_evlog_pcrs_check), said
 * plainly. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "cli.h"
#include "eventlog_cli.h"
#include "ktrust/advanced.h"

const char *ev_sys_part(const char *root, enum kt_sys_part part, char *buf, size_t cap)
{
    struct stat st;
    char probe[4400];
    if (kt_sys_path_under(root, part, buf, cap) < 0)
        return NULL;
    snprintf(probe, sizeof(probe), "%s%s", buf, part == KT_SYS_TPM_PCRS ? "/pcr-sha256" : "");
    return stat(probe, &st) == 0 ? buf : NULL;
}

int ev_pcrs_read(const char *path, struct kt_pcr_values *x, int *exit_code)
{
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_pcrs_read(path, x, &e);
    if (rc < 0) {
        cli_error(NULL, &e);
        *exit_code = rc == -EBADMSG ? 4 : EXIT_NOINPUT;
        return -1;
    }
    return 0;
}

void ev_pcrs_print(const struct kt_evlog_pcrs *p, bool json)
{
    char hex[2 * KT_EVLOG_MAX_DIGEST + 1];
    if (!json)
        printf("PCRs replayed from the log:\n");
    for (size_t b = 0; b < p->n_banks; b++)
        for (unsigned i = 0; i < KT_EVLOG_PCRS; i++) {
            if (!p->bank[b].used[i])
                continue;
            const char *v = p->bank[b].supported ? kt_hex(p->bank[b].pcr[i], p->bank[b].size, hex) : NULL;
            if (json) {
                struct jw w;
                jw_init(&w, stdout);
                jw_obj(&w, NULL);
                jw_str(&w, "type", "pcr");
                jw_str(&w, "bank", ev_alg(p->bank[b].alg));
                jw_int(&w, "index", i);
                jw_str(&w, "value", v);
                jw_obj_end(&w);
                jw_newline(&w);
            } else {
                printf("  %-7s %2u %s\n", ev_alg(p->bank[b].alg), i, v ? v : "(bank not computed)");
            }
        }
}

void ev_pcr_json(const struct kt_pcr_check *c)
{
    char hex[2 * KT_EVLOG_MAX_DIGEST + 1], xhex[2 * KT_EVLOG_MAX_DIGEST + 1];
    struct jw w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "type", "pcr");
    jw_str(&w, "bank", ev_alg(c->alg));
    jw_int(&w, "index", c->index);
    jw_str(&w, "value", c->in_log && c->replayed_len ? kt_hex(c->replayed, c->replayed_len, hex) : NULL);
    jw_str(&w, "expected", c->read ? kt_hex(c->value, c->read_len, xhex) : NULL);
    if (c->status > KT_PCR_MISMATCH)
        jw_null(&w, "match");
    else
        jw_bool(&w, "match", c->status == KT_PCR_MATCH);
    jw_obj_end(&w);
    jw_newline(&w);
}

static void one(const struct kt_pcr_check *c, bool json, bool quiet)
{
    char hex[2 * KT_EVLOG_MAX_DIGEST + 1], xhex[2 * KT_EVLOG_MAX_DIGEST + 1];
    const char *v = c->replayed_len ? kt_hex(c->replayed, c->replayed_len, hex) : NULL;
    const char *xv = c->read ? kt_hex(c->value, c->read_len, xhex) : NULL;
    const char *bank = ev_alg(c->alg);
    if (json) {
        ev_pcr_json(c);
        return;
    }
    if (c->status == KT_PCR_MISMATCH)
        printf("  %-7s %2u MISMATCH: the log replays to %s, the TPM holds %s\n", bank, c->index,
               v, xv);
    else if (quiet)
        return;
    else if (c->status == KT_PCR_MATCH)
        printf("  %-7s %2u match %s\n", bank, c->index, v);
    else if (c->status == KT_PCR_NOT_IN_LOG)
        printf("  %-7s %2u not measured by the firmware log (extended later, e.g. by the OS): %s\n",
               bank, c->index, xv);
    else if (c->status == KT_PCR_NOT_COMPUTED)
        printf("  %-7s %2u bank not computed by ktrust: not checked\n", bank, c->index);
    else
        printf("  %-7s %2u not read from the TPM: not checked\n", bank, c->index);
}

/* The PCRs the TPM gave no value for, one line ("sha1 0-7 14, sha256 0-7
 * 14") instead of one each: they were not checked, nothing more to say. */
static void unchecked_line(const struct kt_pcr_check *c, size_t n)
{
    size_t total = 0;
    for (size_t k = 0; k < n; k++)
        total += c[k].status == KT_PCR_UNCHECKED;
    if (!total)
        return;
    printf("  %zu PCR%s not read from the TPM, not checked:", total, total == 1 ? "" : "s");
    uint16_t alg = 0;
    for (size_t k = 0; k < n; k++) {
        if (c[k].status != KT_PCR_UNCHECKED)
            continue;
        bool first = k == 0 || c[k - 1].status != KT_PCR_UNCHECKED || c[k - 1].alg != c[k].alg ||
                     c[k - 1].index + 1 != c[k].index;
        bool last = k + 1 == n || c[k + 1].status != KT_PCR_UNCHECKED ||
                    c[k + 1].alg != c[k].alg || c[k + 1].index != c[k].index + 1;
        if (c[k].alg != alg)
            printf("%s %s", alg ? "," : "", ev_alg(c[k].alg));
        alg = c[k].alg;
        if (first)
            printf(" %u", c[k].index);
        if (last && !first)
            printf("-%u", c[k].index);
    }
    printf(" (-v: one line each)\n");
}

int ev_pcrs_compare(const struct kt_evlog_pcrs *p, const struct kt_pcr_values *x, const char *src,
                    const struct ev_show *show, struct kt_pcr_tally *t)
{
    bool json = show->json, quiet = show->quiet;
    struct kt_pcr_check *c;
    size_t n;
    if (kt_evlog_pcrs_check(p, x, &c, &n, t) < 0)
        return -1;
    if (!json)
        printf("PCRs, the log replayed against %s:\n", tx(src));
    for (size_t k = 0; k < n; k++)
        if (json || show->verbose || c[k].status != KT_PCR_UNCHECKED)
            one(&c[k], json, quiet);
    if (!json && !quiet && !show->verbose)
        unchecked_line(c, n);
    free(c);
    if (!json && t->mismatch)
        printf("  %zu PCR value%s differ%s from the replay: the log is incomplete or the TPM "
               "was extended outside the log; a prediction from this log cannot be trusted\n",
               t->mismatch, t->mismatch == 1 ? "" : "s", t->mismatch == 1 ? "s" : "");
    else if (!json)
        printf("  every PCR the log measures matches (%zu)\n", t->match);
    return 0;
}
