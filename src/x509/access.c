/* access.c - the public accessors of a parsed certificate (ktrust/x509.h). */
#include "x509/x509.h"

#include <stdio.h>

const char *kt_x509_description(const struct kt_x509 *c) { return c->description; }
const char *kt_x509_subject(const struct kt_x509 *c) { return c->subject; }
const char *kt_x509_issuer(const struct kt_x509 *c) { return c->issuer; }
int64_t kt_x509_not_before(const struct kt_x509 *c) { return c->not_before; }
int64_t kt_x509_not_after(const struct kt_x509 *c) { return c->not_after; }
const uint8_t *kt_x509_sha256(const struct kt_x509 *c) { return c->sha256; }
bool kt_x509_is_ca(const struct kt_x509 *c) { return c->is_ca; }
bool kt_x509_is_self_signed(const struct kt_x509 *c) { return c->self_signed; }

const uint8_t *kt_x509_der(const struct kt_x509 *c, size_t *len)
{
    *len = c->der.len;
    return c->der.p;
}

bool kt_x509_self_signature_unchecked(const struct kt_x509 *c) { return c->sig_unsupported; }
const uint8_t *kt_x509_tbs_sha256(const struct kt_x509 *c) { return c->tbs_sha256; }
bool kt_x509_has_unknown_critical(const struct kt_x509 *c) { return c->unknown_critical; }
bool kt_x509_sig_algorithm_unsupported(const struct kt_x509 *c) { return c->sig_alg.unsupported; }

const uint8_t *kt_x509_skid(const struct kt_x509 *c, size_t *len)
{
    *len = c->skid.len;
    return c->skid.p;
}

const uint8_t *kt_x509_akid(const struct kt_x509 *c, size_t *len)
{
    *len = c->akid_keyid.len;
    return c->akid_keyid.p;
}

const char *kt_x509_key_algorithm(const struct kt_x509 *c)
{
    return c->key_algo != KT_PKEY_UNKNOWN ? kt_pkey_algo_name(c->key_algo) : NULL;
}

unsigned kt_x509_key_bits(const struct kt_x509 *c)
{
    return c->key_algo != KT_PKEY_UNKNOWN ? c->key_bits : 0;
}

const char *kt_x509_key_note(const struct kt_x509 *c, char *buf, size_t cap)
{
    const char *pq = kt_mldsa_title(c->key_algo);
    if (!pq || cap == 0)
        return NULL;
    snprintf(buf, cap, "%s, %zu-byte public key%s%s%s", pq, kt_mldsa_pubkey_len(c->key_algo),
             c->pub ? "" : "; ", c->pub ? "" : pq, c->pub ? "" : " needs OpenSSL 3.5 or later");
    return buf;
}

const char *kt_x509_sig_algorithm(const struct kt_x509 *c, char *buf, size_t cap)
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

bool kt_x509_basic_constraints(const struct kt_x509 *c, bool *ca, int *path_len)
{
    if (ca)
        *ca = c->is_ca;
    if (path_len)
        *path_len = c->path_len;
    return c->has_basic_constraints;
}

static const char *const eku_names[] = {
    "any", "serverAuth", "clientAuth", "codeSigning", "emailProtection", "timeStamping",
    "msKernelModeCodeSigning", "msUefiCa", "msWindows", "moduleSigning",
};

bool kt_x509_eku(const struct kt_x509 *c, const char **names, size_t cap, size_t *n,
                 bool *other)
{
    size_t k = 0;
    for (unsigned i = 0; i < sizeof(eku_names) / sizeof(eku_names[0]); i++)
        if (c->has_eku && (c->eku & (1u << i)) && k < cap && names)
            names[k++] = eku_names[i];
    if (n)
        *n = k;
    if (other)
        *other = c->has_eku && (c->eku & KT_EKU_OTHER);
    return c->has_eku;
}

bool kt_x509_key_supported(const struct kt_x509 *c) { return c->pub != NULL; }
