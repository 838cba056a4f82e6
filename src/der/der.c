#include "der/der.h"

#include <stdio.h>
#include <string.h>

void kt_der_init(kt_der *d, const uint8_t *buf, size_t len, enum kt_der_mode mode,
                 struct kt_error *err)
{
    d->p = buf;
    d->len = buf ? len : 0;
    d->base = buf;
    d->mode = (uint8_t)mode;
    d->depth = 0;
    d->err = err;
}

size_t kt_der_offset(const kt_der *d)
{
    return (size_t)(d->p - d->base);
}

static int bad(const kt_der *d, const uint8_t *at, const char *what, const char *why)
{
    return kt_fail(d->err, -EBADMSG, (size_t)(at - d->base), "%s: %s", what ? what : "ASN.1",
                   why);
}

/* Parse one header at [p, p+avail).  Sets tag, header length, and either the
 * definite content length or *indef. */
struct hdr {
    uint32_t tag;
    size_t hlen;
    size_t clen;
    bool indef;
};

static int parse_header(const kt_der *d, const uint8_t *p, size_t avail, struct hdr *h,
                        const char *what)
{
    if (avail < 2)
        return bad(d, p, what, avail ? "truncated header" : "missing element");
    size_t i = 0;
    uint8_t id = p[i++];
    uint32_t number = id & 0x1f;
    if (number == 0x1f) {
        /* high-tag-number form */
        number = 0;
        for (int n = 0;; n++) {
            if (i >= avail)
                return bad(d, p, what, "truncated tag");
            uint8_t b = p[i++];
            if (n == 0 && b == 0x80)
                return bad(d, p, what, "non-minimal tag number");
            if (n >= 4 || (number >> 22) != 0)
                return bad(d, p, what, "tag number too large");
            number = (number << 7) | (b & 0x7f);
            if (!(b & 0x80))
                break;
        }
        if (number < 0x1f)
            return bad(d, p, what, "high-tag form for a low tag number");
    }
    h->tag = ((uint32_t)(id & 0xe0) << 24) | number;
    if (i >= avail)
        return bad(d, p, what, "truncated length");
    uint8_t lb = p[i++];
    h->indef = false;
    if (lb < 0x80) {
        h->clen = lb;
    } else if (lb == 0x80) {
        if (d->mode != KT_DER_BER)
            return bad(d, p, what, "indefinite length not allowed in DER");
        if (!(h->tag & KT_TAG_CONSTRUCTED))
            return bad(d, p, what, "indefinite length on a primitive element");
        h->indef = true;
        h->clen = 0;
    } else {
        unsigned n = lb & 0x7f;
        if (n > 4)
            return bad(d, p, what, "length field longer than 4 bytes");
        if (avail - i < n)
            return bad(d, p, what, "truncated length");
        size_t v = 0;
        for (unsigned k = 0; k < n; k++)
            v = (v << 8) | p[i++];
        if (d->mode != KT_DER_BER) {
            if (p[i - n] == 0 || v < 0x80)
                return bad(d, p, what, "non-minimal length encoding");
        }
        h->clen = v;
    }
    h->hlen = i;
    if (!h->indef && h->clen > avail - i)
        return bad(d, p, what, "length runs past the end of its container");
    return 0;
}

/* For an indefinite-length element starting at content p (avail bytes),
 * find the content length up to the matching EOC.  depth bounds recursion. */
static int indef_length(const kt_der *d, const uint8_t *p, size_t avail, unsigned depth,
                        size_t *content_len, const char *what)
{
    if (depth >= KT_DER_MAX_DEPTH)
        return bad(d, p, what, "nesting too deep");
    size_t off = 0;
    for (;;) {
        if (avail - off < 2)
            return bad(d, p + off, what, "missing end-of-contents");
        if (p[off] == 0 && p[off + 1] == 0) {
            *content_len = off;
            return 0;
        }
        struct hdr h;
        KT_TRY(parse_header(d, p + off, avail - off, &h, what));
        size_t clen = h.clen;
        if (h.indef) {
            KT_TRY(indef_length(d, p + off + h.hlen, avail - off - h.hlen, depth + 1, &clen,
                                what));
            clen += 2; /* its EOC */
        }
        off += h.hlen + clen;
    }
}

static int take(kt_der *d, struct hdr *h, kt_der *content, kt_span *whole, const char *what)
{
    if (d->len == 0)
        return bad(d, d->p, what, "missing element");
    KT_TRY(parse_header(d, d->p, d->len, h, what));
    size_t clen = h->clen, total;
    if (h->indef) {
        KT_TRY(indef_length(d, d->p + h->hlen, d->len - h->hlen, d->depth + 1, &clen, what));
        total = h->hlen + clen + 2;
    } else {
        total = h->hlen + clen;
    }
    if (d->depth + 1 > KT_DER_MAX_DEPTH)
        return bad(d, d->p, what, "nesting too deep");
    /* compute everything before writing: content or whole may alias d */
    kt_der child = {d->p + h->hlen, clen, d->base, d->mode, (uint8_t)(d->depth + 1), d->err};
    kt_span all = {d->p, total};
    d->p += total;
    d->len -= total;
    if (content)
        *content = child;
    if (whole)
        *whole = all;
    return 0;
}

bool kt_der_peek(const kt_der *d, uint32_t tag)
{
    uint32_t t;
    return kt_der_peek_tag(d, &t) == 0 && t == tag;
}

int kt_der_peek_tag(const kt_der *d, uint32_t *tag)
{
    struct hdr h;
    kt_der quiet = *d;
    quiet.err = NULL;
    if (d->len == 0)
        return -EBADMSG;
    int rc = parse_header(&quiet, d->p, d->len, &h, NULL);
    if (rc < 0)
        return rc;
    *tag = h.tag;
    return 0;
}

int kt_der_get_any(kt_der *d, uint32_t *tag, kt_der *content, kt_span *whole)
{
    struct hdr h;
    KT_TRY(take(d, &h, content, whole, NULL));
    if (tag)
        *tag = h.tag;
    return 0;
}

static int get_tagged(kt_der *d, uint32_t tag, kt_der *content, kt_span *whole, const char *what)
{
    kt_der save = *d;
    struct hdr h;
    if (d->len == 0)
        return bad(d, d->p, what, "missing element");
    KT_TRY(parse_header(d, d->p, d->len, &h, what));
    if (h.tag != tag) {
        char why[64];
        snprintf(why, sizeof(why), "unexpected tag 0x%02x", d->p[0]);
        return bad(d, d->p, what, why);
    }
    int rc = take(d, &h, content, whole, what);
    if (rc < 0)
        *d = save;
    return rc;
}

int kt_der_get(kt_der *d, uint32_t tag, kt_der *content, const char *what)
{
    return get_tagged(d, tag, content, NULL, what);
}

int kt_der_get_element(kt_der *d, uint32_t tag, kt_span *whole, const char *what)
{
    return get_tagged(d, tag, NULL, whole, what);
}

int kt_der_get_optional(kt_der *d, uint32_t tag, kt_der *content, bool *present,
                        const char *what)
{
    *present = false;
    if (!kt_der_peek(d, tag))
        return 0;
    KT_TRY(get_tagged(d, tag, content, NULL, what));
    *present = true;
    return 0;
}

int kt_der_skip_any(kt_der *d, const char *what)
{
    struct hdr h;
    return take(d, &h, NULL, NULL, what);
}

int kt_der_expect_end(const kt_der *d, const char *what)
{
    if (d->len != 0)
        return bad(d, d->p, what, "unexpected trailing data");
    return 0;
}

/* Primitive element with a definite length (BER may not split primitives we
 * read here; constructed strings are the caller's business). */
static int get_prim(kt_der *d, uint32_t tag, kt_span *out, const char *what)
{
    kt_der c;
    KT_TRY(kt_der_get(d, tag, &c, what));
    out->p = c.p;
    out->len = c.len;
    return 0;
}

int kt_der_get_integer(kt_der *d, kt_span *raw, const char *what)
{
    const uint8_t *at = d->p;
    kt_der save = *d;
    KT_TRY(get_prim(d, KT_TAG_INTEGER, raw, what));
    if (raw->len == 0) {
        *d = save;
        return bad(d, at, what, "empty INTEGER");
    }
    if (d->mode == KT_DER_STRICT && raw->len > 1 &&
        ((raw->p[0] == 0 && !(raw->p[1] & 0x80)) || (raw->p[0] == 0xff && (raw->p[1] & 0x80)))) {
        *d = save;
        return bad(d, at, what, "non-minimal INTEGER");
    }
    return 0;
}

int kt_der_get_uint64(kt_der *d, uint64_t *v, const char *what)
{
    kt_span raw;
    kt_der save = *d;
    const uint8_t *at = d->p;
    KT_TRY(kt_der_get_integer(d, &raw, what));
    if (raw.p[0] & 0x80) {
        *d = save;
        return bad(d, at, what, "negative INTEGER");
    }
    kt_span m = kt_integer_magnitude(raw);
    if (m.len > 8 || (m.len == 8 && (m.p[0] & 0x80))) {
        *d = save;
        return bad(d, at, what, "INTEGER too large");
    }
    uint64_t x = 0;
    for (size_t i = 0; i < m.len; i++)
        x = (x << 8) | m.p[i];
    *v = x;
    return 0;
}

int kt_der_get_oid(kt_der *d, kt_span *oid, const char *what)
{
    const uint8_t *at = d->p;
    kt_der save = *d;
    KT_TRY(get_prim(d, KT_TAG_OID, oid, what));
    /* well formed: non-empty, last byte ends an arc, no 0x80 arc starts */
    bool start = true;
    for (size_t i = 0; i < oid->len; i++) {
        if (start && oid->p[i] == 0x80) {
            *d = save;
            return bad(d, at, what, "non-minimal OID arc");
        }
        start = !(oid->p[i] & 0x80);
    }
    if (oid->len == 0 || !start) {
        *d = save;
        return bad(d, at, what, "malformed OBJECT IDENTIFIER");
    }
    return 0;
}

int kt_der_get_bitstring(kt_der *d, kt_span *bits, unsigned *unused_bits, const char *what)
{
    const uint8_t *at = d->p;
    kt_der save = *d;
    kt_span c;
    KT_TRY(get_prim(d, KT_TAG_BIT_STRING, &c, what));
    if (c.len == 0 || c.p[0] > 7 || (c.len == 1 && c.p[0] != 0)) {
        *d = save;
        return bad(d, at, what, "malformed BIT STRING");
    }
    *unused_bits = c.p[0];
    bits->p = c.p + 1;
    bits->len = c.len - 1;
    return 0;
}

int kt_der_get_octets(kt_der *d, kt_span *octets, const char *what)
{
    return get_prim(d, KT_TAG_OCTET_STRING, octets, what);
}

int kt_der_get_bool(kt_der *d, bool *v, const char *what)
{
    const uint8_t *at = d->p;
    kt_der save = *d;
    kt_span c;
    KT_TRY(get_prim(d, KT_TAG_BOOLEAN, &c, what));
    if (c.len != 1 || (d->mode == KT_DER_STRICT && c.p[0] != 0 && c.p[0] != 0xff)) {
        *d = save;
        return bad(d, at, what, "malformed BOOLEAN");
    }
    *v = c.p[0] != 0;
    return 0;
}

int kt_der_get_null(kt_der *d, const char *what)
{
    const uint8_t *at = d->p;
    kt_der save = *d;
    kt_span c;
    KT_TRY(get_prim(d, KT_TAG_NULL, &c, what));
    if (c.len != 0) {
        *d = save;
        return bad(d, at, what, "NULL with content");
    }
    return 0;
}

static int digits(const uint8_t *p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return 0;
}

/* days since 1970-01-01 of a proleptic Gregorian date */
int64_t kt_days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int kt_der_parse_time(uint32_t tag, kt_span c, int64_t *t)
{
    int year, mon, day, hh, mm, ss = 0;
    const uint8_t *p = c.p;
    size_t n = c.len;
    if (tag == KT_TAG_UTC_TIME) {
        /* YYMMDDHHMM[SS]Z */
        if (n != 13 && n != 11)
            return -EBADMSG;
        if (digits(p, 2, &year))
            return -EBADMSG;
        year += year < 50 ? 2000 : 1900;
        p += 2;
        n -= 2;
    } else if (tag == KT_TAG_GENERALIZED_TIME) {
        /* YYYYMMDDHHMMSS[.fff]Z */
        if (n < 15)
            return -EBADMSG;
        if (digits(p, 4, &year))
            return -EBADMSG;
        p += 4;
        n -= 4;
    } else {
        return -EBADMSG;
    }
    if (digits(p, 2, &mon) || digits(p + 2, 2, &day) || digits(p + 4, 2, &hh) ||
        digits(p + 6, 2, &mm))
        return -EBADMSG;
    p += 8;
    n -= 8;
    if (n >= 3) {
        if (digits(p, 2, &ss))
            return -EBADMSG;
        p += 2;
        n -= 2;
    }
    if (tag == KT_TAG_GENERALIZED_TIME && n > 1 && *p == '.') {
        p++;
        n--;
        while (n > 1 && *p >= '0' && *p <= '9') {
            p++;
            n--;
        }
    }
    if (n != 1 || *p != 'Z')
        return -EBADMSG;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (mon < 1 || mon > 12 || day < 1 || day > mdays[mon - 1] || hh > 23 || mm > 59 ||
        ss > 60)
        return -EBADMSG;
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (mon == 2 && day == 29 && !leap)
        return -EBADMSG;
    *t = kt_days_from_civil(year, mon, day) * 86400 + hh * 3600 + mm * 60 + ss;
    return 0;
}

int kt_der_get_time(kt_der *d, int64_t *t, const char *what)
{
    uint32_t tag;
    kt_der save = *d;
    const uint8_t *at = d->p;
    kt_der c;
    if (kt_der_peek_tag(d, &tag) < 0 ||
        (tag != KT_TAG_UTC_TIME && tag != KT_TAG_GENERALIZED_TIME))
        return bad(d, at, what, "expected UTCTime or GeneralizedTime");
    KT_TRY(kt_der_get(d, tag, &c, what));
    kt_span s = {c.p, c.len};
    if (kt_der_parse_time(tag, s, t) < 0) {
        *d = save;
        return bad(d, at, what, "malformed time");
    }
    return 0;
}

int kt_oid_to_dotted(kt_span oid, char *buf, size_t cap)
{
    size_t w = 0;
    uint64_t v = 0;
    bool first = true;
    if (cap == 0)
        return -EINVAL;
    buf[0] = 0;
    for (size_t i = 0; i < oid.len; i++) {
        if (v > (UINT64_MAX >> 7))
            return -EBADMSG;
        v = (v << 7) | (oid.p[i] & 0x7f);
        if (oid.p[i] & 0x80)
            continue;
        int n;
        if (first) {
            unsigned a = v < 40 ? 0 : v < 80 ? 1 : 2;
            n = snprintf(buf + w, cap - w, "%u.%llu", a, (unsigned long long)(v - 40 * a));
            first = false;
        } else {
            n = snprintf(buf + w, cap - w, ".%llu", (unsigned long long)v);
        }
        if (n < 0 || (size_t)n >= cap - w)
            return -ENOSPC;
        w += (size_t)n;
        v = 0;
    }
    return first ? -EBADMSG : 0;
}

kt_span kt_integer_magnitude(kt_span raw)
{
    while (raw.len > 1 && raw.p[0] == 0) {
        raw.p++;
        raw.len--;
    }
    return raw;
}
