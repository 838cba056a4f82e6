/* Verification results as NDJSON or text (CONTRACT.md "A verification result"). */
#include <string.h>
#include <time.h>

#include "cert_print.h"
#include "keyload.h"
#include "verdict_print.h"
#include "json_summary.h"

void vp_from_result(struct vp_result *vr, const char *file, const struct kt_result *res)
{
    memset(vr, 0, sizeof(*vr));
    vr->file = file;
    vr->type = kt_result_type(res);
    vr->rc = kt_result_rc(res);
    vr->error = kt_result_error(res);
    vr->sigs = kt_result_signers(res, &vr->n_sigs);
    vr->compression = kt_result_compression(res);
    vr->linux_since = kt_result_linux_since(res);
    vr->via = kt_result_via(res);
}

static const char *verdict_word(int rc) { return kt_verdict_name(kt_verdict_of(rc)); }

/* A KT_LINUX release as "6.7". */
static const char *linux_str(unsigned v, char buf[16])
{
    snprintf(buf, 16, "%u.%u", v >> 8, v & 255);
    return buf;
}

/* The description of a key's certificate (NULL: no key). */
static const char *key_description(const struct kt_key *k)
{
    return k ? kt_x509_description(kt_key_cert(k)) : NULL;
}

static void signer_id_json(struct jw *w, const struct kt_signer *s)
{
    char name[512], serial[160];
    jw_obj(w, "signer");
    if (s->signer_issuer.len) {
        jw_str(w, "issuer", kt_signer_issuer_name(s, name, sizeof(name)));
        jw_str(w, "serial", kt_signer_serial_hex(s, serial, sizeof(serial)));
    } else {
        jw_null(w, "issuer");
        jw_null(w, "serial");
    }
    jw_hex(w, "skid", s->signer_skid.p, s->signer_skid.len);
    jw_obj_end(w);
}

static void sig_json(struct jw *w, const struct kt_signer *s)
{
    jw_obj(w, NULL);
    jw_int(w, "index", s->index);
    if (s->digest_name)
        jw_str(w, "digest_algorithm", s->digest_name);
    else
        jw_null(w, "digest_algorithm");
    jw_hex(w, "digest", s->digest, s->digest ? s->digest_len : 0);
    if (s->signer)
        cli_cert_json(w, "signer", s->signer);
    else
        signer_id_json(w, s);
    jw_arr(w, "chain");
    for (size_t i = 0; i < s->chain_len; i++)
        jw_str(w, NULL, kt_x509_description(s->chain[i]));
    jw_arr_end(w);
    jw_str(w, "trusted_by", key_description(s->trusted_by));
    if (s->chain_len)
        jw_bool(w, "time_valid", !s->time_invalid);
    else
        jw_null(w, "time_valid");
    if (s->dates_ignored) /* what was checked: no date (signed variables) */
        jw_bool(w, "time_checked", false);
    char v[16];
    if (s->linux_since) /* the first kernel that takes its algorithms */
        jw_str(w, "linux_since", linux_str(s->linux_since, v));
    jw_str(w, "verdict", verdict_word(s->verdict));
    jw_str(w, "error", kt_errno_name(s->verdict));
    jw_str(w, "reason", s->verdict ? s->reason : NULL);
    if (s->timestamp) {
        const struct kt_signer_ts *t = s->timestamp;
        jw_obj(w, "timestamp");
        jw_str(w, "kind", t->kind);
        jw_time(w, "time", t->time);
        if (t->signer)
            cli_cert_json(w, "signer", t->signer);
        else
            jw_null(w, "signer");
        jw_str(w, "trusted_by", key_description(t->trusted_by));
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
    else if (r->via)
        jw_str(w, "reason", "a .platform key vouches for the signature (the kernel's second search)");
    else
        jw_str(w, "reason", "a trusted key vouches for the signature");
    if (!r->rc && r->via) { /* the keyring that vouched, and the patch that searches it */
        jw_str(w, "keyring", "platform");
        jw_str(w, "via", r->via);
    }
    char v[16];
    if (!r->rc && r->linux_since)
        jw_str(w, "linux_since", linux_str(r->linux_since, v));
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

static void sig_text(FILE *f, const struct kt_signer *s, const char *indent)
{
    char name[512], serial[160];
    fprintf(f, "%ssignature %d: %s, %s", indent, s->index,
            s->digest_name ? s->digest_name : "?",
            verdict_word(s->verdict));
    if (s->verdict && s->reason)
        fprintf(f, " (%s)", tx(s->reason));
    fputc('\n', f);
    if (s->signer) {
        fprintf(f, "%s  signer: %s\n", indent, tx(kt_x509_description(s->signer)));
    } else if (s->signer_issuer.len) {
        kt_signer_serial_hex(s, serial, sizeof(serial));
        fprintf(f, "%s  signer: issuer %s, serial %s\n", indent,
                tx_name(kt_signer_issuer_name(s, name, sizeof(name))), serial);
    } else if (s->signer_skid.len && s->signer_skid.len * 2 + 1 <= sizeof(serial)) {
        fprintf(f, "%s  signer: skid %s\n", indent,
                kt_hex(s->signer_skid.p, s->signer_skid.len, serial));
    }
    for (size_t i = 1; i < s->chain_len; i++)
        fprintf(f, "%s  issued by: %s\n", indent, tx(kt_x509_description(s->chain[i])));
    if (s->trusted_by)
        fprintf(f, "%s  trusted by: %s\n", indent, tx(key_description(s->trusted_by)));
    if (s->chain_len && s->time_invalid)
    {
        const struct kt_x509 *c = s->time_invalid_cert;
        char nb[32], na[32];
        if (c) {
            cli_iso_time(kt_x509_not_before(c), nb, sizeof(nb));
            cli_iso_time(kt_x509_not_after(c), na, sizeof(na));
            fprintf(f, "%s  note: %s is valid only from %s to %s (%s)\n", indent,
                    kt_x509_description(c) ? tx(kt_x509_description(c)) : "a certificate", nb, na,
                    s->dates_ignored ? "firmware checks no certificate date"
                                     : "dates not enforced; --check-time enforces them");
        } else {
            fprintf(f, "%s  note: a certificate is outside its validity period (not enforced)\n",
                    indent);
        }
    }
    if (s->timestamp) {
        char t[40];
        fprintf(f, "%s  timestamp: %s (%s), %s\n", indent,
                cli_iso_time(s->timestamp->time, t, sizeof(t)), tx(s->timestamp->kind),
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
    fprintf(f, "%s: %s", tx(r->file), verdict_word(r->rc));
    if (r->rc && r->error && r->error->what[0])
        fprintf(f, " (%s)", tx(r->error->what));
    else if (!r->rc && r->via)
        fprintf(f, " (via .platform: %s; a mainline kernel refuses it)", tx(r->via));
    if (!r->rc && r->linux_since)
    {
        char v[16];
        fprintf(f, " (for Linux %s or later: older kernels refuse its algorithm)",
                linux_str(r->linux_since, v));
    }
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

int vp_open_ctx(const struct cli_common *co, struct kt_ctx **ctx, const char *type,
                char *const *files, int n)
{
    struct kt_error err = KT_ERROR_INIT;
    const char *bad = NULL;
    int rc = cli_open_ctx(co, ctx, &err, &bad);
    if (rc < 0) {
        cli_error(bad, &err);
        cli_json_setup_failed(co, type, files, n, rc, &err);
        if (co->json && n > 1) { /* several files: the summary ends the output */
            struct cli_tally t = {0};
            for (int i = 0; i < n; i++)
                cli_tally_add(&t, rc, false);
            cli_tally_summary(&t, stdout, cli_exit_code(rc), false);
        }
        return cli_exit_code(rc);
    }
    return 0;
}
