/* le.h - a bounds-checked little-endian byte cursor (CBS-style) for the
 * binary formats that are not DER: PE/COFF headers, EFI signature lists,
 * module signature trailers, kernel images.
 *
 * A kt_le is a window [p, p+len) into a caller-owned buffer plus the start
 * of the whole input (base), so that errors name absolute offsets.  Reads
 * consume from the front; on failure a call consumes nothing and returns
 * -EBADMSG with "FIELD: truncated (N bytes left, M wanted) (at offset X)" in
 * the kt_error, if one was given.  Callers that report a short field in their
 * own words (and with their own error code) pass err NULL and test the
 * result.  Nothing here allocates.
 *
 * kt_le16/kt_le32/kt_le64 are the loads behind the cursor, at a pointer
 * whose bounds are already checked; parsers read through the cursor, not
 * with these at p + off.
 */
#ifndef KT_UTIL_LE_H
#define KT_UTIL_LE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

static inline uint16_t kt_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t kt_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t kt_le64(const uint8_t *p)
{
    return (uint64_t)kt_le32(p) | (uint64_t)kt_le32(p + 4) << 32;
}

typedef struct kt_le {
    const uint8_t *p;      /* current position */
    size_t len;            /* bytes left in this window */
    const uint8_t *base;   /* start of the whole input (for offsets) */
    struct kt_error *err;  /* where failures are described; may be NULL */
} kt_le;

/* Start a cursor over a whole input. err may be NULL. */
void kt_le_init(kt_le *c, const uint8_t *buf, size_t len, struct kt_error *err);

/* A cursor over [off, off+n) of the whole input c->base..: what a table
 * entry's (offset, size) names.  -EBADMSG when it does not lie within
 * [c->base, c->p + c->len). */
int kt_le_window(const kt_le *c, size_t off, size_t n, kt_le *out, const char *field);

/* Absolute offset of the current position within the whole input. */
size_t kt_le_offset(const kt_le *c);

/* Bytes left. */
static inline size_t kt_le_left(const kt_le *c) { return c->len; }

int kt_le_u8(kt_le *c, uint8_t *v, const char *field);
int kt_le_u16(kt_le *c, uint16_t *v, const char *field);
int kt_le_u32(kt_le *c, uint32_t *v, const char *field);
int kt_le_u64(kt_le *c, uint64_t *v, const char *field);
/* A big-endian u32 (struct module_signature's sig_len, the one such field). */
int kt_le_u32be(kt_le *c, uint32_t *v, const char *field);

/* Move forward to absolute offset off (from base), for a header whose
 * fields are documented at fixed offsets: kt_le_seek(&hdr, 0x202, "magic").
 * -EBADMSG (nothing moved) when off lies before the current position or
 * past the end of the window. */
int kt_le_seek(kt_le *c, size_t off, const char *field);

/* The next n bytes as a span (pointing into the input), or skip them. */
int kt_le_bytes(kt_le *c, size_t n, const uint8_t **p, const char *field);
int kt_le_skip(kt_le *c, size_t n, const char *field);

/* The next n bytes as a child cursor (same base and err). */
int kt_le_sub(kt_le *c, size_t n, kt_le *child, const char *field);

#endif
