/* fuzz_x509.c - certificate parsing, descriptions, chains and PEM input. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "x509/x509.h"

static void exercise(const uint8_t *der, size_t len)
{
    struct kt_x509 *c = NULL;
    struct kt_error e = {0};
    if (kt_x509_parse(der, len, &c, &e) < 0)
        return;
    char s[256];
    kt_x509_serial_hex(c, s, sizeof(s));
    kt_x509_serial_hex(c, s, 2);
    (void)strlen(c->description);
    (void)strlen(c->subject);
    (void)strlen(c->issuer);
    kt_x509_is_issued_by(c, c);
    if (c->pub)
        kt_x509_check_signature(c, c->pub);
    kt_x509_free(c);
}

static int cb(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    (void)ctx;
    (void)off;
    exercise(der, len);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* exact-size copy so any over-read is caught */
    uint8_t *p = malloc(size ? size : 1);
    if (!p)
        return 0;
    memcpy(p, data, size);
    exercise(p, size);
    struct kt_error e = {0};
    kt_certs_foreach(p, size, cb, NULL, &e);
    kt_x509_element_len(p, size);
    free(p);
    return 0;
}
