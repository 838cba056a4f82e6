#include "pkcs7/pkcs7_check.h"

#include <stdlib.h>
#include <string.h>

int kt_pkcs7_check_set(const uint8_t *sig, size_t sig_len, const uint8_t *data,
                       size_t data_len, const struct kt_trust_set *trust, enum kt_verify_purpose purpose,
                       bool check_purpose, const struct kt_pkcs7_policy *policy,
                       struct kt_pkcs7_check *out, struct kt_error *err)
{
    memset(out, 0, sizeof(*out));
    const uint8_t *der = sig;
    size_t der_len = sig_len, pem_len = 0;
    int rc = kt_pkcs7_pem_decode(sig, sig_len, &out->der_owned, &pem_len, err);
    if (rc == 0) {
        der = out->der_owned;
        der_len = pem_len;
    } else if (rc != -ENODATA) {
        return rc;
    }
    if (der_len == 0)
        return kt_fail(err, -ENODATA, KT_NO_OFFSET, "empty file: no signature");
    KT_TRY(kt_pkcs7_parse(der, der_len, &out->msg, err));
    if (policy)
        out->msg->policy = *policy;
    if (check_purpose)
        KT_TRY(kt_pkcs7_check_purpose(out->msg, purpose, err));
    rc = kt_pkcs7_verify(out->msg, data, data_len, trust ? trust->all : NULL, err);
    if (rc == 0 || rc == -ENOPKG) {
        if (err)
            *err = (struct kt_error){0};
        return kt_pkcs7_validate_trust_set(out->msg, trust, err);
    }
    for (size_t i = 0; i < out->msg->n_signers; i++)
        out->msg->signers[i].verdict = out->msg->signers[i].verify_rc;
    return rc;
}

void kt_pkcs7_check_free(struct kt_pkcs7_check *c)
{
    kt_pkcs7_free(c->msg);
    free(c->der_owned);
    memset(c, 0, sizeof(*c));
}
