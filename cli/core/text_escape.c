/* text_escape.c - tx / text_escape: input strings made one safe line for the
 * text output (see text_escape.h). */
#include "text_escape.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at p (1..4, within the left bytes),
 * or 0; *cp its value. */
static size_t utf8_seq(const uint8_t *p, size_t left, uint32_t *cp)
{
    uint8_t c = p[0];
    size_t n;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, v = c & 0x1f, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, v = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, v = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n > left)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) /* also stops at the NUL */
            return 0;
        v = v << 6 | (p[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return n;
}

static bool escaped_cp(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

/* text_escape over len bytes (a NUL among them escaped too); keep_bs: a
 * backslash stays as it is (a name the library escaped already). */
static size_t escape_n(const char *s, size_t len, bool keep_bs, char *out, size_t cap)
{
    const uint8_t *p = (const uint8_t *)s, *end = p + len;
    size_t o = 0, need = 0;
    bool cut = false;
    while (p < end) {
        char e[12];
        size_t el;
        uint32_t cp = 0;
        size_t n = utf8_seq(p, (size_t)(end - p), &cp);
        if (n == 0)
            el = (size_t)snprintf(e, sizeof(e), "\\x%02x", *p), n = 1;
        else if (n == 1 && (cp < 0x20 || cp == 0x7f))
            el = (size_t)snprintf(e, sizeof(e), "\\x%02x", (unsigned)cp);
        else if (n == 1 && cp == '\\' && !keep_bs)
            el = 2, memcpy(e, "\\\\", 2);
        else if (escaped_cp(cp))
            el = (size_t)snprintf(e, sizeof(e), "\\u%04x", (unsigned)cp);
        else
            el = n, memcpy(e, p, n);
        if (!cut && o + el < cap) {
            memcpy(out + o, e, el);
            o += el;
        } else {
            cut = true;
        }
        need += el;
        p += n;
    }
    if (cap)
        out[o] = 0;
    return need;
}

size_t text_escape(const char *s, char *out, size_t cap)
{
    return escape_n(s, strlen(s), false, out, cap);
}

/* Does s need escaping at all (the common case: no). */
static bool plain(const char *s, size_t len, bool keep_bs)
{
    const uint8_t *p = (const uint8_t *)s, *end = p + len;
    while (p < end) {
        uint32_t cp;
        size_t n = utf8_seq(p, (size_t)(end - p), &cp);
        if (!n || (n == 1 && (cp < 0x20 || cp == 0x7f || (cp == '\\' && !keep_bs))) ||
            escaped_cp(cp))
            return false;
        p += n;
    }
    return true;
}

/* The next of the rotating buffers, need bytes long (NULL: out of memory).
 * One ring per thread: scan formats its results in worker threads. */
static char *ring_buffer(size_t need)
{
    static _Thread_local char *ring[8];
    static _Thread_local size_t next;
    char *b = malloc(need);
    if (!b)
        return NULL;
    free(ring[next]);
    ring[next] = b;
    next = (next + 1) % (sizeof(ring) / sizeof(ring[0]));
    return b;
}

static const char *tx_as(const char *s, bool keep_bs)
{
    if (!s || plain(s, strlen(s), keep_bs))
        return s;
    size_t need = escape_n(s, strlen(s), keep_bs, NULL, 0) + 1;
    char *b = ring_buffer(need);
    if (!b)
        return "(out of memory)";
    escape_n(s, strlen(s), keep_bs, b, need);
    return b;
}

const char *tx(const char *s) { return tx_as(s, false); }

const char *tx_name(const char *s) { return tx_as(s, true); }

const char *txn(const char *s, size_t len)
{
    if (!s)
        return "";
    size_t need = escape_n(s, len, false, NULL, 0) + 1;
    char *b = ring_buffer(need);
    if (!b)
        return "(out of memory)";
    escape_n(s, len, false, b, need);
    return b;
}

void cli_text_escape_vfprintf(FILE *f, const char *fmt, va_list ap)
{
    char small[512];
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(small, sizeof(small), fmt, cp);
    va_end(cp);
    if (n < 0)
        return;
    char *s = (size_t)n < sizeof(small) ? small : malloc((size_t)n + 1);
    if (!s)
        return;
    if (s != small)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    fputs(tx(s), f);
    if (s != small)
        free(s);
}
