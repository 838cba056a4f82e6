/* PEM-armoured PKCS#7 ("-----BEGIN PKCS7-----", "CMS", "PKCS #7 SIGNED DATA"). */
#include "pkcs7/pkcs7.h"
#include "util/base64.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t *find(const uint8_t *p, const uint8_t *end, const char *s)
{
    size_t n = strlen(s);
    for (; (size_t)(end - p) >= n; p++)
        if (memcmp(p, s, n) == 0)
            return p;
    return NULL;
}

int kt_pkcs7_pem_decode(const uint8_t *buf, size_t len, uint8_t **der, size_t *der_len,
                        struct kt_error *err)
{
    static const char *labels[] = {"PKCS7", "CMS", "PKCS #7 SIGNED DATA"};
    const uint8_t *end = buf + len, *body = NULL, *stop = NULL;
    *der = NULL;
    *der_len = 0;
    for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]) && !body; i++) {
        char begin[64], fin[64];
        snprintf(begin, sizeof(begin), "-----BEGIN %s-----", labels[i]);
        snprintf(fin, sizeof(fin), "-----END %s-----", labels[i]);
        const uint8_t *b = find(buf, end, begin);
        if (!b)
            continue;
        body = b + strlen(begin);
        stop = find(body, end, fin);
        if (!stop)
            return kt_fail(err, -EBADMSG, (size_t)(b - buf), "PEM: missing END line");
    }
    if (!body)
        return -ENODATA;
    uint8_t *out = malloc((size_t)(stop - body) / 4 * 3 + 3);
    if (!out)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    size_t w = 0;
    const uint8_t *bad = NULL;
    if (kt_base64_decode(body, stop, out, &w, &bad) < 0) {
        free(out);
        return kt_fail(err, -EBADMSG, (size_t)(bad - buf), "PEM: bad base64");
    }
    *der = out;
    *der_len = w;
    return 0;
}
