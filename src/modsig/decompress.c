/* Compressed modules: detect by magic, decompress streaming with a limit. */
#include "modsig/modsig.h"

#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

const char *kt_modsig_comp_name(enum kt_modsig_comp c)
{
    switch (c) {
    case KT_MODSIG_XZ: return "xz";
    case KT_MODSIG_ZSTD: return "zstd";
    case KT_MODSIG_GZIP: return "gzip";
    default: return "none";
    }
}

enum kt_modsig_comp kt_modsig_detect(const uint8_t *buf, size_t len)
{
    static const uint8_t xz[6] = {0xfd, '7', 'z', 'X', 'Z', 0x00};
    static const uint8_t zst[4] = {0x28, 0xb5, 0x2f, 0xfd};
    if (len >= 6 && memcmp(buf, xz, 6) == 0)
        return KT_MODSIG_XZ;
    if (len >= 4 && memcmp(buf, zst, 4) == 0)
        return KT_MODSIG_ZSTD;
    if (len >= 3 && buf[0] == 0x1f && buf[1] == 0x8b && buf[2] == 8)
        return KT_MODSIG_GZIP;
    return KT_MODSIG_NONE;
}

/* A growing output buffer bounded by max. */
struct outbuf {
    uint8_t *p;
    size_t len, cap, max;
};

/* Make room for at least one more chunk; -EFBIG past max. */
static int grow(struct outbuf *o)
{
    if (o->len < o->cap)
        return 0;
    if (o->cap >= o->max)
        return -EFBIG;
    size_t ncap = o->cap ? o->cap * 2 : 256 * 1024;
    if (ncap > o->max)
        ncap = o->max;
    uint8_t *np = realloc(o->p, ncap);
    if (!np)
        return -ENOMEM;
    o->p = np;
    o->cap = ncap;
    return 0;
}

static int fail_limit(struct kt_error *err, int rc, const char *name, size_t max)
{
    if (rc == -EFBIG)
        return kt_fail(err, -EFBIG, KT_NO_OFFSET,
                       "%s: decompressed module exceeds the %zu MiB limit (decompression bomb?)",
                       name, max >> 20);
    return kt_fail(err, rc, KT_NO_OFFSET, "%s: out of memory", name);
}

static int unxz(const uint8_t *in, size_t len, struct outbuf *o, struct kt_error *err)
{
    lzma_stream s = LZMA_STREAM_INIT;
    if (lzma_stream_decoder(&s, 256u << 20, LZMA_CONCATENATED) != LZMA_OK)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "xz: decoder init failed");
    s.next_in = in;
    s.avail_in = len;
    int rc = 0;
    for (;;) {
        if ((rc = grow(o)) < 0) {
            rc = fail_limit(err, rc, "xz", o->max);
            break;
        }
        s.next_out = o->p + o->len;
        s.avail_out = o->cap - o->len;
        lzma_ret r = lzma_code(&s, LZMA_FINISH);
        o->len = o->cap - s.avail_out;
        if (r == LZMA_STREAM_END)
            break;
        if (r != LZMA_OK) {
            rc = kt_fail(err, -EBADMSG, len - s.avail_in, "xz: corrupt compressed module (lzma error %d)", (int)r);
            break;
        }
        if (s.avail_out != 0 && s.avail_in == 0) {
            rc = kt_fail(err, -EBADMSG, len, "xz: truncated compressed module");
            break;
        }
    }
    lzma_end(&s);
    return rc;
}

static int unzstd(const uint8_t *in, size_t len, struct outbuf *o, struct kt_error *err)
{
    ZSTD_DStream *ds = ZSTD_createDStream();
    if (!ds)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "zstd: decoder init failed");
    ZSTD_DCtx_setParameter(ds, ZSTD_d_windowLogMax, 27);
    ZSTD_inBuffer ib = {in, len, 0};
    int rc = 0;
    size_t last = 1;
    while (ib.pos < ib.size || last != 0) {
        if ((rc = grow(o)) < 0) {
            rc = fail_limit(err, rc, "zstd", o->max);
            break;
        }
        ZSTD_outBuffer ob = {o->p, o->cap, o->len};
        size_t before_in = ib.pos, before_out = ob.pos;
        last = ZSTD_decompressStream(ds, &ob, &ib);
        o->len = ob.pos;
        if (ZSTD_isError(last)) {
            rc = kt_fail(err, -EBADMSG, ib.pos, "zstd: corrupt compressed module (%s)",
                         ZSTD_getErrorName(last));
            break;
        }
        if (ib.pos == before_in && ob.pos == before_out && ob.pos < ob.size) {
            rc = kt_fail(err, -EBADMSG, len, "zstd: truncated compressed module");
            break;
        }
    }
    ZSTD_freeDStream(ds);
    return rc;
}

static int ungzip(const uint8_t *in, size_t len, struct outbuf *o, struct kt_error *err)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "gzip: decoder init failed");
    int rc = 0;
    size_t consumed = 0;
    for (;;) {
        if ((rc = grow(o)) < 0) {
            rc = fail_limit(err, rc, "gzip", o->max);
            break;
        }
        size_t in_chunk = len - consumed > (1u << 30) ? (1u << 30) : len - consumed;
        size_t out_chunk = o->cap - o->len > (1u << 30) ? (1u << 30) : o->cap - o->len;
        z.next_in = (Bytef *)(uintptr_t)(in + consumed);
        z.avail_in = (uInt)in_chunk;
        z.next_out = o->p + o->len;
        z.avail_out = (uInt)out_chunk;
        int r = inflate(&z, Z_NO_FLUSH);
        consumed += in_chunk - z.avail_in;
        o->len += out_chunk - z.avail_out;
        if (r == Z_STREAM_END)
            break;
        if (r == Z_BUF_ERROR && z.avail_out != 0) {
            rc = kt_fail(err, -EBADMSG, len, "gzip: truncated compressed module");
            break;
        }
        if (r != Z_OK && r != Z_BUF_ERROR) {
            rc = kt_fail(err, -EBADMSG, consumed, "gzip: corrupt compressed module (%s)",
                         z.msg ? z.msg : "inflate error");
            break;
        }
    }
    inflateEnd(&z);
    return rc;
}

int kt_modsig_decompress(const uint8_t *buf, size_t len, size_t max, const uint8_t **out,
                         size_t *out_len, uint8_t **owned, enum kt_modsig_comp *comp,
                         struct kt_error *err)
{
    *owned = NULL;
    *comp = kt_modsig_detect(buf, len);
    if (*comp == KT_MODSIG_NONE) {
        *out = buf;
        *out_len = len;
        return 0;
    }
    struct outbuf o = {NULL, 0, 0, max ? max : KT_MODSIG_MAX_DECOMPRESSED};
    int rc;
    switch (*comp) {
    case KT_MODSIG_XZ: rc = unxz(buf, len, &o, err); break;
    case KT_MODSIG_ZSTD: rc = unzstd(buf, len, &o, err); break;
    default: rc = ungzip(buf, len, &o, err); break;
    }
    if (rc < 0) {
        free(o.p);
        return rc;
    }
    if (!o.p) {
        o.p = malloc(1);
        if (!o.p)
            return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    }
    *owned = o.p;
    *out = o.p;
    *out_len = o.len;
    return 0;
}
