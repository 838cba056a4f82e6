#include "util/le.h"

void kt_le_init(kt_le *c, const uint8_t *buf, size_t len, struct kt_error *err)
{
    c->p = buf;
    c->len = buf ? len : 0;
    c->base = buf;
    c->err = err;
}

size_t kt_le_offset(const kt_le *c)
{
    return (size_t)(c->p - c->base);
}

static int short_read(const kt_le *c, size_t want, const char *field)
{
    return kt_fail(c->err, -EBADMSG, kt_le_offset(c), "%s: truncated (%zu bytes left, %zu wanted)",
                   field ? field : "field", c->len, want);
}

int kt_le_window(const kt_le *c, size_t off, size_t n, kt_le *out, const char *field)
{
    size_t end = kt_le_offset(c) + c->len; /* the end of this window, from base */
    if (off > end || n > end - off)
        return kt_fail(c->err, -EBADMSG, kt_le_offset(c),
                       "%s: %zu bytes at %zu run past the end (%zu)", field ? field : "field", n,
                       off, end);
    out->p = c->base ? c->base + off : NULL; /* no buffer: off and n are 0 */
    out->len = n;
    out->base = c->base;
    out->err = c->err;
    return 0;
}

int kt_le_bytes(kt_le *c, size_t n, const uint8_t **p, const char *field)
{
    if (c->len < n)
        return short_read(c, n, field);
    if (p)
        *p = c->p;
    if (n) { /* an empty window may have no buffer at all (p NULL) */
        c->p += n;
        c->len -= n;
    }
    return 0;
}

int kt_le_skip(kt_le *c, size_t n, const char *field)
{
    return kt_le_bytes(c, n, NULL, field);
}

int kt_le_seek(kt_le *c, size_t off, const char *field)
{
    size_t at = kt_le_offset(c);
    if (off < at)
        return kt_fail(c->err, -EBADMSG, at, "%s: offset %zu is behind the cursor",
                       field ? field : "field", off);
    return kt_le_skip(c, off - at, field);
}

int kt_le_sub(kt_le *c, size_t n, kt_le *child, const char *field)
{
    const uint8_t *p = NULL; /* set whenever kt_le_bytes succeeds */
    int rc = kt_le_bytes(c, n, &p, field);
    if (rc < 0)
        return rc;
    child->p = p;
    child->len = n;
    child->base = c->base;
    child->err = c->err;
    return 0;
}

int kt_le_u8(kt_le *c, uint8_t *v, const char *field)
{
    const uint8_t *p = NULL; /* set whenever kt_le_bytes succeeds */
    KT_TRY(kt_le_bytes(c, 1, &p, field));
    *v = p[0];
    return 0;
}

int kt_le_u16(kt_le *c, uint16_t *v, const char *field)
{
    const uint8_t *p = NULL; /* set whenever kt_le_bytes succeeds */
    KT_TRY(kt_le_bytes(c, 2, &p, field));
    *v = kt_le16(p);
    return 0;
}

int kt_le_u32(kt_le *c, uint32_t *v, const char *field)
{
    const uint8_t *p = NULL; /* set whenever kt_le_bytes succeeds */
    KT_TRY(kt_le_bytes(c, 4, &p, field));
    *v = kt_le32(p);
    return 0;
}

int kt_le_u64(kt_le *c, uint64_t *v, const char *field)
{
    const uint8_t *p = NULL; /* set whenever kt_le_bytes succeeds */
    KT_TRY(kt_le_bytes(c, 8, &p, field));
    *v = kt_le64(p);
    return 0;
}

int kt_le_u32be(kt_le *c, uint32_t *v, const char *field)
{
    const uint8_t *p = NULL; /* set whenever kt_le_bytes succeeds */
    KT_TRY(kt_le_bytes(c, 4, &p, field));
    *v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return 0;
}
