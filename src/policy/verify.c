/* verify.c - a purpose's keyrings as a search set, for each format. */
#include "policy/verify.h"

int kt_pkcs7_validate_trust(struct kt_pkcs7 *msg, const struct kt_keyrings *rings,
                            enum kt_verify_purpose purpose, struct kt_error *err)
{
    struct kt_trust_set s;
    kt_trust_set_for(rings, purpose, &s);
    return kt_pkcs7_validate_trust_set(msg, &s, err);
}

int kt_pkcs7_check(const uint8_t *sig, size_t sig_len, const uint8_t *data, size_t data_len,
                   const struct kt_keyrings *rings, enum kt_verify_purpose purpose, bool check_purpose,
                   const struct kt_pkcs7_policy *policy, struct kt_pkcs7_check *out,
                   struct kt_error *err)
{
    struct kt_trust_set s;
    kt_trust_set_for(rings, purpose, &s);
    return kt_pkcs7_check_set(sig, sig_len, data, data_len, &s, purpose, check_purpose, policy,
                              out, err);
}

int kt_pe_verify(const uint8_t *buf, size_t len, const struct kt_keyrings *rings,
                 const struct kt_pe_verify_opts *opts, struct kt_pe_result **out,
                 struct kt_error *err)
{
    struct kt_trust_set s;
    kt_trust_set_for(rings, opts ? opts->purpose : KT_VERIFY_PURPOSE_UEFI, &s);
    return kt_pe_verify_set(buf, len, &s, opts, out, err);
}

int kt_modsig_verify(const uint8_t *buf, size_t len, const struct kt_keyrings *rings,
                     struct kt_modsig_result *res, struct kt_error *err)
{
    return kt_modsig_verify_build(buf, len, rings, NULL, res, err);
}

int kt_modsig_verify_build(const uint8_t *buf, size_t len, const struct kt_keyrings *rings,
                           const struct kt_kimage_build *build, struct kt_modsig_result *res,
                           struct kt_error *err)
{
    struct kt_trust_set s;
    kt_trust_set_for_build(rings, KT_VERIFY_PURPOSE_MODULE, build, &s);
    return kt_modsig_verify_set(buf, len, &s, res, err);
}
