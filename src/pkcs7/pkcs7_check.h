/* pkcs7_check.h - the whole check of a standalone PKCS#7 file (what
 * `verify-pkcs7` and `scan` do): PEM or DER, parse, purpose, verify, trust. */
#ifndef KT_PKCS7_PKCS7_CHECK_H
#define KT_PKCS7_PKCS7_CHECK_H

#include "pkcs7/pkcs7.h"

struct kt_pkcs7_check {
    struct kt_pkcs7 *msg;   /* the parsed message with per-signer results, or NULL */
    uint8_t *der_owned;     /* decoded PEM the message points into, or NULL */
};

/* sig: the file (PEM or DER).  data: detached content, or NULL.  When
 * check_purpose, the purpose's content rules apply too (module: data, no
 * attributes); trust uses the search set (trust may be NULL: nothing
 * trusted).  Returns the verdict (0 / -errno); out->msg is set whenever the
 * message parsed.  Free with kt_pkcs7_check_free.  policy/verify.h's
 * kt_pkcs7_check takes keyrings and a purpose instead. */
int kt_pkcs7_check_set(const uint8_t *sig, size_t sig_len, const uint8_t *data,
                       size_t data_len, const struct kt_trust_set *trust, enum kt_verify_purpose purpose,
                       bool check_purpose, const struct kt_pkcs7_policy *policy,
                       struct kt_pkcs7_check *out, struct kt_error *err);
void kt_pkcs7_check_free(struct kt_pkcs7_check *c);

#endif
