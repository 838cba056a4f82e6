/* der.h - a bounds-safe DER/BER cursor over a byte span (CBS-style).
 *
 * A kt_der is a window [p, p+len) into a caller-owned buffer plus the start of
 * the whole input (base) so that errors can name absolute offsets.  Parsing is
 * a sequence of kt_der_get_* calls that consume from the front; an element is
 * taken whole and its content is returned as a child cursor, so no caller does
 * pointer arithmetic.  On failure a call consumes nothing and returns
 * -EBADMSG (with a detail in the kt_error, if given).
 *
 * Modes: KT_DER_STRICT (certificates: minimal definite lengths only; x509.c
 * reads an indefinite-length outer SEQUENCE in BER, as the kernel does) and
 * KT_DER_BER (PKCS#7: non-minimal lengths and indefinite lengths with
 * end-of-contents are accepted).  Nesting is limited to KT_DER_MAX_DEPTH.
 *
 * Nothing here allocates.  Spans point into the caller's buffer.
 */
#ifndef KT_DER_DER_H
#define KT_DER_DER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "ktrust/span.h" /* kt_span */
#include "util/err.h"

enum kt_der_mode { KT_DER_STRICT = 0, KT_DER_BER = 1 };

#define KT_DER_MAX_DEPTH 32

typedef struct kt_der {
    const uint8_t *p;      /* current position */
    size_t len;            /* bytes left in this window */
    const uint8_t *base;   /* start of the whole input (for offsets) */
    uint8_t mode;          /* enum kt_der_mode */
    uint8_t depth;         /* nesting depth of this window */
    struct kt_error *err;  /* where failures are described; may be NULL */
} kt_der;

/* Tags: the identifier octet's class and constructed bits in the top byte,
 * the tag number in the low 29 bits (high-tag-number form supported). */
#define KT_TAG_CONSTRUCTED (0x20u << 24)
#define KT_TAG_CONTEXT (0x80u << 24)
#define KT_TAG_APPLICATION (0x40u << 24)
#define KT_TAG_PRIVATE (0xC0u << 24)
#define KT_TAG_NUMBER_MASK 0x1fffffffu
#define KT_TAG_CLASS_MASK (0xC0u << 24)

#define KT_TAG_BOOLEAN 0x01u
#define KT_TAG_INTEGER 0x02u
#define KT_TAG_BIT_STRING 0x03u
#define KT_TAG_OCTET_STRING 0x04u
#define KT_TAG_NULL 0x05u
#define KT_TAG_OID 0x06u
#define KT_TAG_ENUMERATED 0x0au
#define KT_TAG_UTF8_STRING 0x0cu
#define KT_TAG_SEQUENCE (0x10u | KT_TAG_CONSTRUCTED)
#define KT_TAG_SET (0x11u | KT_TAG_CONSTRUCTED)
#define KT_TAG_NUMERIC_STRING 0x12u
#define KT_TAG_PRINTABLE_STRING 0x13u
#define KT_TAG_T61_STRING 0x14u
#define KT_TAG_IA5_STRING 0x16u
#define KT_TAG_UTC_TIME 0x17u
#define KT_TAG_GENERALIZED_TIME 0x18u
#define KT_TAG_VISIBLE_STRING 0x1au
#define KT_TAG_UNIVERSAL_STRING 0x1cu
#define KT_TAG_BMP_STRING 0x1eu
/* [n] IMPLICIT primitive / [n] constructed (EXPLICIT or IMPLICIT SEQUENCE) */
#define KT_CTX(n) (KT_TAG_CONTEXT | (uint32_t)(n))
#define KT_CTX_CONS(n) (KT_TAG_CONTEXT | KT_TAG_CONSTRUCTED | (uint32_t)(n))

/* Start a cursor over a whole input. err may be NULL. */
void kt_der_init(kt_der *d, const uint8_t *buf, size_t len, enum kt_der_mode mode,
                 struct kt_error *err);

/* Absolute offset of the cursor's current position in the input. */
size_t kt_der_offset(const kt_der *d);
static inline bool kt_der_empty(const kt_der *d) { return d->len == 0; }
/* The window's remaining bytes as a span. */
static inline kt_span kt_der_rest(const kt_der *d) { kt_span s = {d->p, d->len}; return s; }

/* Tag of the next element without consuming (0 and false when empty or bad). */
bool kt_der_peek(const kt_der *d, uint32_t tag);
int kt_der_peek_tag(const kt_der *d, uint32_t *tag);

/* Take the next element whatever its tag.  content: a child cursor over its
 * content (for an indefinite length: up to, not including, the EOC).
 * whole: the full TLV including header (and EOC).  Either may be NULL. */
int kt_der_get_any(kt_der *d, uint32_t *tag, kt_der *content, kt_span *whole);
/* Take the next element, which must carry tag `tag`. `what` names the field
 * for error messages ("tbsCertificate"). */
int kt_der_get(kt_der *d, uint32_t tag, kt_der *content, const char *what);
/* Same, returning the whole TLV span. */
int kt_der_get_element(kt_der *d, uint32_t tag, kt_span *whole, const char *what);
/* If the next element has tag `tag`, take it (*present = true). */
int kt_der_get_optional(kt_der *d, uint32_t tag, kt_der *content, bool *present,
                        const char *what);
/* Skip one element of any tag. */
int kt_der_skip_any(kt_der *d, const char *what);
/* Fail unless the window is empty (trailing data check). */
int kt_der_expect_end(const kt_der *d, const char *what);

/* Typed readers.  Each takes one element of the named universal type. */
/* INTEGER: the raw content bytes (two's complement, as encoded). */
int kt_der_get_integer(kt_der *d, kt_span *raw, const char *what);
/* Small non-negative INTEGER into *v (fails if negative or > INT64_MAX). */
int kt_der_get_uint64(kt_der *d, uint64_t *v, const char *what);
/* OBJECT IDENTIFIER: raw content bytes (validated as well formed). */
int kt_der_get_oid(kt_der *d, kt_span *oid, const char *what);
/* BIT STRING: bytes after the unused-bits octet; *unused_bits set. */
int kt_der_get_bitstring(kt_der *d, kt_span *bits, unsigned *unused_bits, const char *what);
/* OCTET STRING (primitive): its content. */
int kt_der_get_octets(kt_der *d, kt_span *octets, const char *what);
/* BOOLEAN */
int kt_der_get_bool(kt_der *d, bool *v, const char *what);
/* NULL */
int kt_der_get_null(kt_der *d, const char *what);
/* UTCTime or GeneralizedTime to seconds since the epoch (UTC). */
int kt_der_get_time(kt_der *d, int64_t *t, const char *what);

/* Raw-content helpers (no tag read). */
int kt_der_parse_time(uint32_t tag, kt_span content, int64_t *t);
/* Days since 1970-01-01 of a proleptic Gregorian date (linear in d: day 31
 * of a 30-day month is the 1st of the next, as timegm normalises it); the
 * one civil-to-epoch rule, with no time zone (timegm reads /etc/localtime). */
int64_t kt_days_from_civil(int64_t y, int m, int d);
/* Render an OID's content bytes as dotted decimal into buf. */
int kt_oid_to_dotted(kt_span oid, char *buf, size_t cap);
/* Minimal big-endian magnitude of an INTEGER's raw bytes (strips leading 00). */
kt_span kt_integer_magnitude(kt_span raw);

static inline bool kt_span_eq(kt_span a, kt_span b)
{
    return a.len == b.len && (a.len == 0 || __builtin_memcmp(a.p, b.p, a.len) == 0);
}

#endif
