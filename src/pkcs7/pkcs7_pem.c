/* PEM-armoured PKCS#7 ("-----BEGIN PKCS7-----", "CMS", "PKCS #7 SIGNED DATA"). */
#include "pkcs7/pkcs7.h"
#include "util/base64.h"

int kt_pkcs7_pem_decode(const uint8_t *buf, size_t len, uint8_t **der, size_t *der_len,
                        struct kt_error *err)
{
    static const char *const labels[] = {"PKCS7", "CMS", "PKCS #7 SIGNED DATA"};
    return kt_pem_decode(buf, len, labels, sizeof(labels) / sizeof(labels[0]), der, der_len, err);
}
