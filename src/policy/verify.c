/* verify.c - a purpose's keyrings as a search set, for each format. */
#include "policy/verify.h"

int kt_pkcs7_validate_trust(struct kt_pkcs7 *msg, const struct kt_keyrings *rings,
                            enum kt_purpose purpose, struct kt_error *err)
{
    struct kt_trust_set s;
    kt_trust_set_for(rings, purpose, &s);
    return kt_pkcs7_validate_trust_set(msg, &s, err);
}

int kt_pkcs7_check(const uint8_t *sig, size_t sig_len, const uint8_t *data, size_t data_len,
                   const struct kt_keyrings *rings, enum kt_purpose purpose, bool check_purpose,
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
    kt_trust_set_for(rings, opts ? opts->purpose : KT_PURPOSE_UEFI, &s);
    return kt_pe_verify_set(buf, len, &s, opts, out, err);
}

int kt_modsig_verify(const uint8_t *buf, size_t len, const struct kt_keyrings *rings,
                     struct kt_modsig_result *res, struct kt_error *err)
{
    struct kt_trust_set s;
    kt_trust_set_for(rings, KT_PURPOSE_MODULE, &s);
    return kt_modsig_verify_set(buf, len, &s, res, err);
}

/* ---- the public verifiers (ktrust/verifiers.h) ---------------------------- */

static const struct kt_key *pkcs7_voucher(const struct kt_pkcs7 *msg)
{
    for (size_t i = 0; msg && i < msg->n_signers; i++)
        if (msg->signers[i].verdict == 0 && msg->signers[i].trusted_by)
            return msg->signers[i].trusted_by;
    return NULL;
}

int kt_verify_module(const uint8_t *buf, size_t len, const struct kt_keyrings *rings,
                     const struct kt_key **by, struct kt_error *err)
{
    struct kt_modsig_result res = {0};
    int rc = kt_modsig_verify(buf, len, rings, &res, err);
    if (by)
        *by = rc == 0 ? pkcs7_voucher(res.msg) : NULL;
    kt_modsig_result_free(&res);
    return rc;
}

int kt_verify_pe(const uint8_t *buf, size_t len, const struct kt_keyrings *rings,
                 enum kt_purpose purpose, const struct kt_key **by, struct kt_error *err)
{
    struct kt_pe_verify_opts opts = {.purpose = purpose};
    struct kt_pe_result *r = NULL;
    int rc = kt_pe_verify(buf, len, rings, &opts, &r, err);
    if (by) {
        *by = NULL;
        for (size_t i = 0; rc == 0 && r && i < r->n_sigs && !*by; i++)
            if (r->sigs[i].vouches)
                *by = r->sigs[i].trusted_by;
    }
    kt_pe_result_free(r);
    return rc;
}

int kt_verify_pkcs7(const uint8_t *sig, size_t sig_len, const uint8_t *data, size_t data_len,
                    const struct kt_keyrings *rings, enum kt_purpose purpose,
                    const struct kt_key **by, struct kt_error *err)
{
    struct kt_pkcs7_check chk;
    int rc = kt_pkcs7_check(sig, sig_len, data, data_len, rings, purpose, false, NULL, &chk,
                            err);
    if (by)
        *by = rc == 0 ? pkcs7_voucher(chk.msg) : NULL;
    kt_pkcs7_check_free(&chk);
    return rc;
}
