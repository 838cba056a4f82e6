/* peek.c - the subject of a certificate the strict parser refused, for
 * messages that name what was skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "x509/x509.h"
#include "x509/x509_int.h"

char *kt_x509_peek_subject(const uint8_t *der, size_t len, char *buf, size_t cap)
{
    kt_der d, cert, tbs, name;
    kt_der_init(&d, der, len, KT_DER_BER, NULL);
    if (!cap)
        return buf;
    snprintf(buf, cap, "?");
    if (kt_der_get(&d, KT_TAG_SEQUENCE, &cert, NULL) < 0 ||
        kt_der_get(&cert, KT_TAG_SEQUENCE, &tbs, NULL) < 0)
        return buf;
    /* [0] version, serialNumber, signature, issuer, validity, subject */
    if (kt_der_peek(&tbs, KT_CTX_CONS(0)) && kt_der_skip_any(&tbs, NULL) < 0)
        return buf;
    for (int i = 0; i < 4; i++)
        if (kt_der_skip_any(&tbs, NULL) < 0)
            return buf;
    if (kt_der_get(&tbs, KT_TAG_SEQUENCE, &name, NULL) < 0)
        return buf;
    struct kt_x509_name n;
    if (kt_x509_name_parse(&name, &n) == 0 && n.text) {
        snprintf(buf, cap, "%s", n.text[0] ? n.text : "(empty subject)");
    }
    free(n.text);
    return buf;
}
