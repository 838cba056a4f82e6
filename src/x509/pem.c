/* Certificate files: one DER certificate, DER certificates back to back (the
 * kernel's compiled-in list format), a PEM file or a PEM bundle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/base64.h"
#include "x509/x509.h"

static const char BEGIN[] = "-----BEGIN ";
static const char DASHES[] = "-----";

static const uint8_t *find(const uint8_t *p, const uint8_t *end, const char *s)
{
    size_t n = strlen(s);
    if ((size_t)(end - p) < n)
        return NULL;
    return memmem(p, (size_t)(end - p), s, n);
}

static bool is_cert_label(const uint8_t *l, size_t n)
{
    return (n == 11 && !memcmp(l, "CERTIFICATE", 11)) ||
           (n == 16 && !memcmp(l, "X509 CERTIFICATE", 16)) ||
           (n == 19 && !memcmp(l, "TRUSTED CERTIFICATE", 19));
}

static int foreach_pem(const uint8_t *buf, size_t len, kt_cert_cb fn, void *ctx,
                       struct kt_error *err)
{
    const uint8_t *end = buf + len, *p = buf;
    int found = 0;
    while ((p = find(p, end, BEGIN)) != NULL) {
        const uint8_t *label = p + strlen(BEGIN);
        const uint8_t *ldash = find(label, end, DASHES);
        const uint8_t *eol = memchr(label, '\n', (size_t)(end - label));
        if (!ldash || (eol && eol < ldash))
            return kt_fail(err, -EBADMSG, (size_t)(p - buf), "PEM: malformed BEGIN line");
        size_t lablen = (size_t)(ldash - label);
        const uint8_t *body = ldash + strlen(DASHES);
        /* the matching END line */
        char endline[96];
        if (lablen > 64)
            return kt_fail(err, -EBADMSG, (size_t)(p - buf), "PEM: label too long");
        snprintf(endline, sizeof(endline), "-----END %.*s-----", (int)lablen, (const char *)label);
        const uint8_t *e = find(body, end, endline);
        if (!e)
            return kt_fail(err, -EBADMSG, (size_t)(p - buf), "PEM: no %s line", endline);
        if (!is_cert_label(label, lablen)) {
            p = e + strlen(endline);
            continue;
        }
        /* skip RFC 1421 headers ("Name: value" lines before a blank line) */
        const uint8_t *b = body;
        {
            const uint8_t *colon = memchr(b, ':', (size_t)(e - b));
            const uint8_t *blank = find(b, e, "\n\n");
            if (colon && blank && colon < blank)
                b = blank + 2;
        }
        uint8_t *der = malloc((size_t)(e - b) / 4 * 3 + 3);
        if (!der)
            return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
        size_t dlen = 0;
        const uint8_t *bad = NULL;
        int rc = kt_base64_decode(b, e, der, &dlen, &bad);
        if (rc < 0) {
            free(der);
            return kt_fail(err, -EBADMSG, (size_t)(bad - buf), "PEM: bad base64");
        }
        /* TRUSTED CERTIFICATE carries OpenSSL trust settings after the cert */
        size_t clen = dlen;
        if (lablen == 19) {
            size_t n = kt_x509_element_len(der, dlen);
            if (n)
                clen = n;
        }
        rc = fn(ctx, der, clen, (size_t)(p - buf));
        free(der);
        if (rc < 0)
            return rc;
        found++;
        p = e + strlen(endline);
    }
    if (!found)
        return kt_fail(err, -ENODATA, KT_NO_OFFSET, "no certificate in PEM input");
    return 0;
}

int kt_certs_foreach(const uint8_t *buf, size_t len, kt_cert_cb fn, void *ctx,
                     struct kt_error *err)
{
    if (len == 0)
        return kt_fail(err, -ENODATA, 0, "empty input");
    if (buf[0] == 0x30) {
        size_t off = 0;
        while (off < len) {
            size_t n = kt_x509_element_len(buf + off, len - off);
            if (n == 0)
                n = len - off; /* let the parser say what is wrong */
            int rc = fn(ctx, buf + off, n, off);
            if (rc < 0)
                return rc;
            off += n;
        }
        return 0;
    }
    if (find(buf, buf + len, BEGIN))
        return foreach_pem(buf, len, fn, ctx, err);
    return kt_fail(err, -EBADMSG, 0, "not a certificate (neither DER nor PEM)");
}

char *kt_pem_encode_cert(const uint8_t *der, size_t len, size_t *out_len)
{
    static const char head[] = "-----BEGIN CERTIFICATE-----\n", tail[] = "-----END CERTIFICATE-----\n";
    char *out = malloc(sizeof(head) + kt_base64_encoded_size(len) + sizeof(tail));
    if (!out)
        return NULL;
    size_t n = sizeof(head) - 1;
    memcpy(out, head, n);
    n += kt_base64_encode_lines(der, len, out + n);
    memcpy(out + n, tail, sizeof(tail));
    if (out_len)
        *out_len = n + sizeof(tail) - 1;
    return out;
}
