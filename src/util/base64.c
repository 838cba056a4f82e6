#include "util/base64.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int value(uint8_t c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

int kt_base64_decode(const uint8_t *p, const uint8_t *end, uint8_t *out, size_t *outlen,
                     const uint8_t **bad_at)
{
    uint32_t acc = 0;
    int nacc = 0, pad = 0;
    size_t w = 0;
    for (; p < end; p++) {
        uint8_t ch = *p;
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n')
            continue;
        if (ch == '=') {
            pad++;
            if (pad > 2 || nacc + pad > 4 || nacc < 2) {
                *bad_at = p;
                return -EBADMSG;
            }
            continue;
        }
        int v = value(ch);
        if (v < 0 || pad) {
            *bad_at = p;
            return -EBADMSG;
        }
        acc = acc << 6 | (uint32_t)v;
        if (++nacc == 4) {
            out[w++] = (uint8_t)(acc >> 16);
            out[w++] = (uint8_t)(acc >> 8);
            out[w++] = (uint8_t)acc;
            acc = 0;
            nacc = 0;
        }
    }
    if (nacc == 1 || (nacc && pad && nacc + pad != 4)) {
        *bad_at = end;
        return -EBADMSG;
    }
    if (nacc == 2) {
        out[w++] = (uint8_t)(acc >> 4);
    } else if (nacc == 3) {
        out[w++] = (uint8_t)(acc >> 10);
        out[w++] = (uint8_t)(acc >> 2);
    }
    *outlen = w;
    return 0;
}

size_t kt_base64_encoded_size(size_t len)
{
    size_t chars = (len + 2) / 3 * 4;
    return chars + chars / 64 + 2;
}

size_t kt_base64_encode_lines(const uint8_t *in, size_t len, char *out)
{
    char *w = out;
    size_t col = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < len)
            v |= in[i + 2];
        *w++ = alphabet[(v >> 18) & 63];
        *w++ = alphabet[(v >> 12) & 63];
        *w++ = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
        *w++ = i + 2 < len ? alphabet[v & 63] : '=';
        col += 4;
        if (col == 64 || i + 3 >= len) {
            *w++ = '\n';
            col = 0;
        }
    }
    *w = 0;
    return (size_t)(w - out);
}

static const uint8_t *find(const uint8_t *p, const uint8_t *end, const char *s)
{
    size_t n = strlen(s);
    for (; (size_t)(end - p) >= n; p++)
        if (memcmp(p, s, n) == 0)
            return p;
    return NULL;
}

int kt_pem_decode(const uint8_t *buf, size_t len, const char *const *labels, size_t n,
                  uint8_t **der, size_t *der_len, struct kt_error *err)
{
    const uint8_t *end = buf + len, *body = NULL, *stop = NULL;
    *der = NULL;
    *der_len = 0;
    for (size_t i = 0; i < n && !body; i++) {
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
