/* Verification results as NDJSON or text (CONTRACT.md "A verification result"). */
#include <string.h>
#include <time.h>

#include "cert_print.h"
#include "keyload.h"
#include "store/store.h"
#include "verdict_print.h"

void vp_sig_from_pkcs7(struct vp_sig *s, const struct kt_pkcs7_signer *si, const char *reason)
{
    memset(s, 0, sizeof(*s));
    s->index = si->index;
    s->digest_alg = si->digest_alg;
    s->digest = si->digest_len ? si->digest : NULL;
    s->digest_len = si->digest_len;
    s->signer = si->signer_cert;
    s->signer_issuer = si->issuer_raw;
    s->signer_serial = si->serial;
    s->signer_skid = si->skid;
    s->chain = si->chain;
    s->chain_len = si->chain_len;
    s->trusted_by = si->trusted_by;
    s->verdict = si->verdict;
    s->time_invalid = si->time_invalid;
    s->time_invalid_cert = si->time_invalid_cert;
    s->reason = !si->verdict ? NULL : si->error.what[0] ? si->error.what : reason;
}

static const char *verdict_word(int rc) { return kt_verdict_name(kt_verdict_of(rc)); }

static void signer_id_json(struct jw *w, const struct vp_sig *s)
{
    char name[512], serial[160];
    jw_obj(w, "signer");
    if (s->signer_issuer.len) {
        jw_str(w, "issuer", kt_pkcs7_name_string(s->signer_issuer, name, sizeof(name)));
        kt_x509_serial_hex_of(s->signer_serial, serial, sizeof(serial));
        jw_str(w, "serial", serial);
    } else {
        jw_null(w, "issuer");
        jw_null(w, "serial");
    }
    jw_hex(w, "skid", s->signer_skid.p, s->signer_skid.len);
    jw_obj_end(w);
}

static void sig_json(struct jw *w, const struct vp_sig *s)
{
    jw_obj(w, NULL);
    jw_int(w, "index", s->index);
    if (s->digest_alg != KT_HASH_NONE)
        jw_str(w, "digest_algorithm", kt_hash_name(s->digest_alg));
    else
        jw_null(w, "digest_algorithm");
    jw_hex(w, "digest", s->digest, s->digest ? s->digest_len : 0);
    if (s->signer)
        cli_cert_json(w, "signer", s->signer);
    else
        signer_id_json(w, s);
    jw_arr(w, "chain");
    for (size_t i = 0; i < s->chain_len; i++)
        jw_str(w, NULL, s->chain[i]->description);
    jw_arr_end(w);
    jw_str(w, "trusted_by", s->trusted_by ? s->trusted_by->cert->description : NULL);
    if (s->chain_len)
        jw_bool(w, "time_valid", !s->time_invalid);
    else
        jw_null(w, "time_valid");
    jw_str(w, "verdict", verdict_word(s->verdict));
    jw_str(w, "error", kt_errno_name(s->verdict));
    jw_str(w, "reason", s->verdict ? s->reason : NULL);
    if (s->timestamp) {
        const struct vp_timestamp *t = s->timestamp;
        jw_obj(w, "timestamp");
        jw_str(w, "kind", t->kind);
        jw_time(w, "time", t->time);
        if (t->signer)
            cli_cert_json(w, "signer", t->signer);
        else
            jw_null(w, "signer");
        jw_str(w, "trusted_by", t->trusted_by ? t->trusted_by->cert->description : NULL);
        jw_str(w, "verdict", verdict_word(t->verdict));
        jw_obj_end(w);
    } else {
        jw_null(w, "timestamp");
    }
    jw_arr(w, "nested");
    for (size_t i = 0; i < s->n_nested; i++)
        sig_json(w, &s->nested[i]);
    jw_arr_end(w);
    jw_obj_end(w);
}

void vp_json(struct jw *w, const struct vp_result *r)
{
    jw_obj(w, NULL);
    jw_str(w, "file", r->file);
    jw_str(w, "type", r->type);
    if (r->not_verified || cli_exit_code(r->rc) >= EXIT_USAGE)
        jw_null(w, "verdict"); /* not read or not verified: the error says why */
    else
        jw_str(w, "verdict", verdict_word(r->rc));
    jw_str(w, "error", kt_errno_name(r->rc));
    if (r->rc && r->error && r->error->what[0])
        jw_str(w, "reason", r->error->what);
    else if (r->rc)
        jw_str(w, "reason", verdict_word(r->rc));
    else
        jw_str(w, "reason", "a trusted key vouches for the signature");
    if (r->compression)
        jw_str(w, "compression", r->compression);
    jw_arr(w, "signatures");
    for (size_t i = 0; i < r->n_sigs; i++)
        sig_json(w, &r->sigs[i]);
    jw_arr_end(w);
    if (r->extra_json)
        r->extra_json(w, r->extra_ctx);
    jw_obj_end(w);
}

static void sig_text(FILE *f, const struct vp_sig *s, const char *indent)
{
    char name[512], serial[160];
    fprintf(f, "%ssignature %d: %s, %s", indent, s->index,
            s->digest_alg != KT_HASH_NONE ? kt_hash_name(s->digest_alg) : "?",
            verdict_word(s->verdict));
    if (s->verdict && s->reason)
        fprintf(f, " (%s)", s->reason);
    fputc('\n', f);
    if (s->signer) {
        fprintf(f, "%s  signer: %s\n", indent, s->signer->description);
    } else if (s->signer_issuer.len) {
        kt_x509_serial_hex_of(s->signer_serial, serial, sizeof(serial));
        fprintf(f, "%s  signer: issuer %s, serial %s\n", indent,
                kt_pkcs7_name_string(s->signer_issuer, name, sizeof(name)), serial);
    } else if (s->signer_skid.len && s->signer_skid.len * 2 + 1 <= sizeof(serial)) {
        fprintf(f, "%s  signer: skid %s\n", indent,
                kt_hex(s->signer_skid.p, s->signer_skid.len, serial));
    }
    for (size_t i = 1; i < s->chain_len; i++)
        fprintf(f, "%s  issued by: %s\n", indent, s->chain[i]->description);
    if (s->trusted_by)
        fprintf(f, "%s  trusted by: %s\n", indent, s->trusted_by->cert->description);
    if (s->chain_len && s->time_invalid)
    {
        const struct kt_x509 *c = s->time_invalid_cert;
        char nb[32], na[32];
        if (c) {
            kt_iso_time(c->not_before, nb, sizeof(nb));
            kt_iso_time(c->not_after, na, sizeof(na));
            fprintf(f, "%s  note: %s is valid only from %s to %s (dates not enforced; "
                       "--check-time enforces them)\n",
                    indent, c->description ? c->description : "a certificate", nb, na);
        } else {
            fprintf(f, "%s  note: a certificate is outside its validity period (not enforced)\n",
                    indent);
        }
    }
    if (s->timestamp) {
        char t[40];
        fprintf(f, "%s  timestamp: %s (%s), %s\n", indent,
                kt_iso_time(s->timestamp->time, t, sizeof(t)), s->timestamp->kind,
                verdict_word(s->timestamp->verdict));
    }
    for (size_t i = 0; i < s->n_nested; i++) {
        char sub[64];
        snprintf(sub, sizeof(sub), "%s    ", indent);
        fprintf(f, "%s  nested:\n", indent);
        sig_text(f, &s->nested[i], sub);
    }
}

void vp_text(FILE *f, const struct vp_result *r, bool verbose)
{
    fprintf(f, "%s: %s", r->file, verdict_word(r->rc));
    if (r->rc && r->error && r->error->what[0])
        fprintf(f, " (%s)", r->error->what);
    fputc('\n', f);
    if (r->extra_text)
        r->extra_text(f, r->extra_ctx);
    if (!verbose)
        return;
    for (size_t i = 0; i < r->n_sigs; i++)
        sig_text(f, &r->sigs[i], "  ");
}

void vp_print(const struct vp_result *r, bool json, bool quiet, bool verbose)
{
    if (json) {
        struct jw w;
        jw_init(&w, stdout);
        vp_json(&w, r);
        jw_newline(&w);
    } else if (!quiet) {
        vp_text(stdout, r, verbose);
    }
}

void vp_print_unreadable(const char *file, const char *type, int rc, const struct kt_error *e,
                         bool json)
{
    cli_error(file, e);
    if (json) {
        struct vp_result r = {.file = file, .type = type, .rc = rc, .error = e};
        vp_print(&r, true, false, false);
    }
}

int vp_parse_time(const char *arg, int64_t *t)
{
    if (!arg) {
        *t = (int64_t)time(NULL);
        return 0;
    }
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    char rest[8] = "";
    int n = sscanf(arg, "%4d-%2d-%2dT%2d:%2d:%2d%7s", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, rest);
    if (n == 3 && strlen(arg) == 10) {
        tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    } else if (!((n == 6) || (n == 7 && strcmp(rest, "Z") == 0))) {
        return -1;
    }
    if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
        tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    *t = (int64_t)timegm(&tm);
    return 0;
}

void cli_json_setup_failed(const struct cli_common *co, const char *type, char *const *files,
                           int n, int rc, const struct kt_error *e)
{
    if (!co->json)
        return;
    for (int i = 0; i < n; i++) {
        struct vp_result r = {.file = files[i], .type = type, .rc = rc, .error = e,
                              .not_verified = true};
        vp_print(&r, true, false, false);
    }
}

int vp_load_keyrings(const struct cli_common *co, struct kt_keyrings **rings,
                     struct kt_store **store, const char *type, char *const *files, int n)
{
    struct kt_error err = {0};
    const char *bad = NULL;
    *rings = NULL;
    *store = NULL;
    int rc = cli_load_keyrings(co, rings, store, &err, &bad);
    if (rc < 0) {
        cli_error(bad, &err);
        cli_json_setup_failed(co, type, files, n, rc, &err);
        *rings = NULL; /* cli_load_keyrings leaves nothing allocated */
        *store = NULL;
        return cli_exit_code(rc);
    }
    return 0;
}

void vp_unload_keyrings(struct kt_keyrings *rings, struct kt_store *store)
{
    if (store)
        kt_store_close(store);
    kt_keyrings_free(rings);
}
