/* Certificates as JSON objects and as text. */
#include <stdlib.h>
#include <string.h>

#include "cert_print.h"
#include "der/der.h"

const char *cli_cert_sigalg_name(const struct kt_x509 *c, char *buf, size_t cap)
{
    if (c->sig_alg.oid != 0)
        return kt_sigalg_name(&c->sig_alg);
    kt_der d, seq;
    kt_span oid;
    kt_der_init(&d, c->sig_alg_raw.p, c->sig_alg_raw.len, KT_DER_STRICT, NULL);
    if (kt_der_get(&d, KT_TAG_SEQUENCE, &seq, NULL) == 0 &&
        kt_der_get_oid(&seq, &oid, NULL) == 0 && kt_oid_to_dotted(oid, buf, cap) == 0)
        return buf;
    return "unknown";
}

void cli_cert_json_fields(struct jw *w, const struct kt_x509 *c)
{
    char serial[160], alg[96];
    kt_x509_serial_hex(c, serial, sizeof(serial));
    jw_str(w, "description", c->description);
    jw_str(w, "subject", c->subject);
    jw_str(w, "issuer", c->issuer);
    jw_str(w, "serial", serial);
    jw_hex(w, "skid", c->skid.p, c->skid.len);
    jw_hex(w, "akid", c->akid_keyid.p, c->akid_keyid.len);
    jw_time(w, "not_before", c->not_before);
    jw_time(w, "not_after", c->not_after);
    if (c->key_algo != KT_PKEY_UNKNOWN) {
        jw_str(w, "key_algorithm", kt_pkey_algo_name(c->key_algo));
        jw_int(w, "key_bits", c->key_bits);
    } else {
        jw_null(w, "key_algorithm");
        jw_null(w, "key_bits");
    }
    jw_str(w, "signature_algorithm", cli_cert_sigalg_name(c, alg, sizeof(alg)));
    jw_bool(w, "self_signed", c->self_signed);
    jw_hex(w, "sha256", c->sha256, sizeof(c->sha256));
    jw_hex(w, "tbs_sha256", c->tbs_sha256, sizeof(c->tbs_sha256));
}

void cli_cert_json(struct jw *w, const char *key, const struct kt_x509 *c)
{
    jw_obj(w, key);
    cli_cert_json_fields(w, c);
    jw_obj_end(w);
}

static void hexline(FILE *f, const char *indent, const char *name, kt_span s)
{
    fprintf(f, "%s%-20s ", indent, name);
    if (!s.len)
        fputs("(none)", f);
    for (size_t i = 0; i < s.len; i++)
        fprintf(f, "%02x", s.p[i]);
    fputc('\n', f);
}

static const char *const eku_names[] = {
    "any", "serverAuth", "clientAuth", "codeSigning", "emailProtection", "timeStamping",
    "msKernelModeCodeSigning", "msUefiCa", "msWindows", "moduleSigning",
};

void cli_cert_text(FILE *f, const struct kt_x509 *c, const char *indent)
{
    char serial[160], t1[40], t2[40], alg[96];
    kt_x509_serial_hex(c, serial, sizeof(serial));
    fprintf(f, "%s%-20s %s\n", indent, "description:", c->description);
    fprintf(f, "%s%-20s %s\n", indent, "subject:", c->subject);
    fprintf(f, "%s%-20s %s\n", indent, "issuer:", c->issuer);
    fprintf(f, "%s%-20s %s\n", indent, "serial:", serial);
    fprintf(f, "%s%-20s %s to %s\n", indent, "validity:", kt_iso_time(c->not_before, t1, sizeof(t1)),
            kt_iso_time(c->not_after, t2, sizeof(t2)));
    if (c->key_algo != KT_PKEY_UNKNOWN)
        fprintf(f, "%s%-20s %s %u bits\n", indent, "key:", kt_pkey_algo_name(c->key_algo),
                c->key_bits);
    else
        fprintf(f, "%s%-20s unsupported key type\n", indent, "key:");
    fprintf(f, "%s%-20s %s%s\n", indent, "signature:", cli_cert_sigalg_name(c, alg, sizeof(alg)),
            c->sig_alg.unsupported ? " (unsupported)" : "");
    hexline(f, indent, "subject key id:", c->skid);
    hexline(f, indent, "authority key id:", c->akid_keyid);
    if (c->has_basic_constraints) {
        fprintf(f, "%s%-20s CA:%s", indent, "basic constraints:", c->is_ca ? "true" : "false");
        if (c->path_len >= 0)
            fprintf(f, ", pathlen:%d", c->path_len);
        fputc('\n', f);
    }
    if (c->has_eku) {
        fprintf(f, "%s%-20s", indent, "extended key usage:");
        for (unsigned i = 0; i < sizeof(eku_names) / sizeof(eku_names[0]); i++)
            if (c->eku & (1u << i))
                fprintf(f, " %s", eku_names[i]);
        if (c->eku & KT_EKU_OTHER)
            fputs(" (other)", f);
        fputc('\n', f);
    }
    fprintf(f, "%s%-20s %s%s\n", indent, "self-signed:", c->self_signed ? "yes" : "no",
            c->self_signed && c->sig_unsupported ? " (signature algorithm unsupported)" : "");
    if (c->unknown_critical)
        fprintf(f, "%s%-20s yes\n", indent, "unknown critical ext:");
    hexline(f, indent, "sha256:", (kt_span){c->sha256, sizeof(c->sha256)});
    hexline(f, indent, "tbs sha256:", (kt_span){c->tbs_sha256, sizeof(c->tbs_sha256)});
}

void cli_bad_input_json(const char *file, int index, int rc, const char *reason, size_t offset)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "file", file);
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
