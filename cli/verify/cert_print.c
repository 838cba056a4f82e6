/* Certificates as JSON objects and as text. */
#include <stdlib.h>
#include <string.h>

#include "cert_print.h"
#include "text_escape.h"

void cli_cert_json_fields(struct jw *w, const struct kt_x509 *c)
{
    char serial[160], alg[96];
    size_t skid_len, akid_len;
    const uint8_t *skid = kt_x509_skid(c, &skid_len), *akid = kt_x509_akid(c, &akid_len);
    kt_x509_serial_hex(c, serial, sizeof(serial));
    jw_str(w, "description", kt_x509_description(c));
    jw_str(w, "subject", kt_x509_subject(c));
    jw_str(w, "issuer", kt_x509_issuer(c));
    jw_str(w, "serial", serial);
    jw_hex(w, "skid", skid, skid_len);
    jw_hex(w, "akid", akid, akid_len);
    jw_time(w, "not_before", kt_x509_not_before(c));
    jw_time(w, "not_after", kt_x509_not_after(c));
    if (kt_x509_key_algorithm(c)) {
        char note[160];
        jw_str(w, "key_algorithm", kt_x509_key_algorithm(c));
        if (kt_x509_key_bits(c))
            jw_int(w, "key_bits", kt_x509_key_bits(c));
        else
            jw_null(w, "key_bits");
        if (kt_x509_key_note(c, note, sizeof(note)))
            jw_str(w, "key_note", note);
    } else {
        jw_null(w, "key_algorithm");
        jw_null(w, "key_bits");
    }
    jw_str(w, "signature_algorithm", kt_x509_sig_algorithm(c, alg, sizeof(alg)));
    jw_bool(w, "self_signed", kt_x509_is_self_signed(c));
    jw_hex(w, "sha256", kt_x509_sha256(c), 32);
    jw_hex(w, "tbs_sha256", kt_x509_tbs_sha256(c), 32);
}

void cli_cert_json(struct jw *w, const char *key, const struct kt_x509 *c)
{
    jw_obj(w, key);
    cli_cert_json_fields(w, c);
    jw_obj_end(w);
}

static void hexline(FILE *f, const char *indent, const char *name, const uint8_t *p, size_t len)
{
    fprintf(f, "%s%-20s ", indent, name);
    if (!len)
        fputs("(none)", f);
    for (size_t i = 0; i < len; i++)
        fprintf(f, "%02x", p[i]);
    fputc('\n', f);
}

void cli_cert_text(FILE *f, const struct kt_x509 *c, const char *indent)
{
    char serial[160], t1[40], t2[40], alg[96];
    size_t skid_len, akid_len;
    const uint8_t *skid = kt_x509_skid(c, &skid_len), *akid = kt_x509_akid(c, &akid_len);
    kt_x509_serial_hex(c, serial, sizeof(serial));
    fprintf(f, "%s%-20s %s\n", indent, "description:", tx(kt_x509_description(c)));
    fprintf(f, "%s%-20s %s\n", indent, "subject:", tx_name(kt_x509_subject(c)));
    fprintf(f, "%s%-20s %s\n", indent, "issuer:", tx_name(kt_x509_issuer(c)));
    fprintf(f, "%s%-20s %s\n", indent, "serial:", serial);
    fprintf(f, "%s%-20s %s to %s\n", indent, "validity:",
            cli_iso_time(kt_x509_not_before(c), t1, sizeof(t1)),
            cli_iso_time(kt_x509_not_after(c), t2, sizeof(t2)));
    char note[160];
    if (kt_x509_key_note(c, note, sizeof(note)))
        fprintf(f, "%s%-20s %s (%s)\n", indent, "key:", kt_x509_key_algorithm(c), note);
    else if (kt_x509_key_algorithm(c))
        fprintf(f, "%s%-20s %s %u bits\n", indent, "key:", kt_x509_key_algorithm(c),
                kt_x509_key_bits(c));
    else
        fprintf(f, "%s%-20s unsupported key type\n", indent, "key:");
    fprintf(f, "%s%-20s %s%s\n", indent, "signature:",
            tx(kt_x509_sig_algorithm(c, alg, sizeof(alg))),
            kt_x509_sig_algorithm_unsupported(c) ? " (unsupported)" : "");
    hexline(f, indent, "subject key id:", skid, skid_len);
    hexline(f, indent, "authority key id:", akid, akid_len);
    bool ca;
    int path_len;
    if (kt_x509_basic_constraints(c, &ca, &path_len)) {
        fprintf(f, "%s%-20s CA:%s", indent, "basic constraints:", ca ? "true" : "false");
        if (path_len >= 0)
            fprintf(f, ", pathlen:%d", path_len);
        fputc('\n', f);
    }
    const char *eku[16];
    size_t n_eku;
    bool other;
    if (kt_x509_eku(c, eku, sizeof(eku) / sizeof(eku[0]), &n_eku, &other)) {
        fprintf(f, "%s%-20s", indent, "extended key usage:");
        for (size_t i = 0; i < n_eku; i++)
            fprintf(f, " %s", tx(eku[i]));
        if (other)
            fputs(" (other)", f);
        fputc('\n', f);
    }
    bool self = kt_x509_is_self_signed(c);
    fprintf(f, "%s%-20s %s%s\n", indent, "self-signed:", self ? "yes" : "no",
            self && kt_x509_self_signature_unchecked(c) ? " (signature algorithm unsupported)"
                                                         : "");
    if (kt_x509_has_unknown_critical(c))
        fprintf(f, "%s%-20s yes\n", indent, "unknown critical ext:");
    hexline(f, indent, "sha256:", kt_x509_sha256(c), 32);
    hexline(f, indent, "tbs sha256:", kt_x509_tbs_sha256(c), 32);
}

void cli_bad_input_json(const char *file, const char *type, int index, int rc, const char *reason,
                        size_t offset)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "file", file);
    jw_str(&w, "type", type);
    if (index > 0)
        jw_int(&w, "index", index);
    else
        jw_null(&w, "index");
    jw_str(&w, "error", kt_errno_name(rc));
    jw_str(&w, "reason", reason && *reason ? reason : "cannot parse");
    if (offset != KT_NO_OFFSET)
        jw_int(&w, "offset", (long long)offset);
    else
        jw_null(&w, "offset");
    jw_obj_end(&w);
    jw_newline(&w);
}
