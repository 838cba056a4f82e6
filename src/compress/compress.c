/* compress.c - streaming decompression (gzip, xz, lzma, zstd, lz4) into a
 * buffer grown geometrically up to a limit.
 *
 * The buffer may grow to max_out + 1 bytes: a stream producing exactly
 * max_out bytes can then finish, and one byte more proves a bomb.  Every
 * decoder asks room() for space before each step, so the limit is checked
 * before more memory is taken. */
#include "compress/compress.h"

#include <lz4.h>
#include <lz4frame.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#define LZ4_LEGACY_MAGIC 0x184C2102u
#define LZ4_FRAME_MAGIC 0x184D2204u
#define LZ4_LEGACY_BLOCK ((size_t)8 << 20)
#define FIRST_ALLOC ((size_t)256 << 10)

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

const char *kt_comp_name(enum kt_comp c)
{
    switch (c) {
    case KT_COMP_NONE: return "none";
    case KT_COMP_GZIP: return "gzip";
    case KT_COMP_XZ: return "xz";
    case KT_COMP_LZMA: return "lzma";
    case KT_COMP_ZSTD: return "zstd";
    case KT_COMP_LZ4: return "lz4";
    }
    return "?";
}

enum kt_comp kt_comp_sniff(const uint8_t *p, size_t len)
{
    if (!p)
        return KT_COMP_NONE;
    if (len >= 3 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8)
        return KT_COMP_GZIP;
    if (len >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6))
        return KT_COMP_XZ;
    if (len >= 13 && p[0] == 0x5d && p[1] == 0 && p[2] == 0)
        return KT_COMP_LZMA;
    if (len >= 4 && le32(p) == 0xFD2FB528u)
        return KT_COMP_ZSTD;
    if (len >= 4 && (le32(p) == LZ4_LEGACY_MAGIC || le32(p) == LZ4_FRAME_MAGIC))
        return KT_COMP_LZ4;
    return KT_COMP_NONE;
}

/* One decompression: input, output buffer, limit, error reporting. */
struct dec {
    const uint8_t *in;
    size_t len, base;
    const char *name;      /* "xz" */
    const char *what, *sep; /* message prefix: "vmlinux", ": " or "", "" */
    unsigned flags;
    uint8_t *p;            /* output */
    size_t olen, cap, max;
    struct kt_error *err;
};

/* The most the output buffer may hold: max + 1. */
static size_t cap_limit(const struct dec *d)
{
    return d->max == SIZE_MAX ? SIZE_MAX : d->max + 1;
}

static int bomb(struct dec *d, size_t at)
{
    return kt_fail(d->err, -E2BIG, d->base + at,
                   "%s%s%s: decompressed size exceeds the %zu-byte limit (%zu MiB; "
                   "decompression bomb?)",
                   d->what, d->sep, d->name, d->max, d->max >> 20);
}

static int corrupt(struct dec *d, size_t at, const char *why)
{
    return kt_fail(d->err, -EBADMSG, d->base + at, "%s%s%s stream: %s", d->what, d->sep,
                   d->name, why);
}

static int resize(struct dec *d, size_t ncap)
{
    uint8_t *np = realloc(d->p, ncap);
    if (!np)
        return kt_fail(d->err, -ENOMEM, KT_NO_OFFSET, "%s%s%s: out of memory (%zu bytes)",
                       d->what, d->sep, d->name, ncap);
    d->p = np;
    d->cap = ncap;
    return 0;
}

/* Make room for at least one more output byte (doubling, up to max + 1);
 * -E2BIG once the output is over the limit.  at: input position. */
static int room(struct dec *d, size_t at)
{
    if (d->olen > d->max)
        return bomb(d, at);
    if (d->cap > d->olen)
        return 0;
    size_t lim = cap_limit(d);
    size_t ncap = d->cap ? d->cap * 2 : FIRST_ALLOC;
    if (ncap > lim || ncap < d->cap)
        ncap = lim;
    return resize(d, ncap);
}

static int do_gzip(struct dec *d)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return kt_fail(d->err, -ENOMEM, KT_NO_OFFSET, "%s%sgzip: zlib init failed", d->what,
                       d->sep);
    size_t consumed = 0;
    int rc = 0;
    for (;;) {
        if ((rc = room(d, consumed)) < 0)
            break;
        size_t in_chunk = d->len - consumed > UINT32_MAX ? UINT32_MAX : d->len - consumed;
        size_t out_chunk = d->cap - d->olen > UINT32_MAX ? UINT32_MAX : d->cap - d->olen;
        zs.next_in = (Bytef *)(uintptr_t)(d->in + consumed);
        zs.avail_in = (uInt)in_chunk;
        zs.next_out = d->p + d->olen;
        zs.avail_out = (uInt)out_chunk;
        int z = inflate(&zs, Z_NO_FLUSH);
        consumed += in_chunk - zs.avail_in;
        d->olen += out_chunk - zs.avail_out;
        if (z == Z_STREAM_END) {
            if (!(d->flags & KT_DECOMPRESS_CONCAT) || consumed == d->len)
                break;
            inflateReset(&zs); /* the next member */
            continue;
        }
        if (z == Z_BUF_ERROR || (z == Z_OK && consumed == d->len && zs.avail_out != 0)) {
            rc = corrupt(d, consumed, "truncated");
            break;
        }
        if (z != Z_OK) {
            rc = corrupt(d, consumed, zs.msg ? zs.msg : "corrupt data");
            break;
        }
    }
    inflateEnd(&zs);
    return rc;
}

static int do_lzma(struct dec *d, bool alone)
{
    lzma_stream s = LZMA_STREAM_INIT;
    uint32_t lflags = d->flags & KT_DECOMPRESS_CONCAT ? LZMA_CONCATENATED : 0;
    lzma_ret r = alone ? lzma_alone_decoder(&s, KT_DECOMPRESS_DECODER_MEM)
                       : lzma_stream_decoder(&s, KT_DECOMPRESS_DECODER_MEM, lflags);
    if (r != LZMA_OK)
        return kt_fail(d->err, -ENOMEM, KT_NO_OFFSET, "%s%s%s: liblzma init failed", d->what,
                       d->sep, d->name);
    s.next_in = d->in;
    s.avail_in = d->len;
    int rc = 0;
    for (;;) {
        if ((rc = room(d, d->len - s.avail_in)) < 0)
            break;
        s.next_out = d->p + d->olen;
        s.avail_out = d->cap - d->olen;
        size_t before = s.avail_out;
        r = lzma_code(&s, LZMA_FINISH);
        d->olen += before - s.avail_out;
        if (r == LZMA_STREAM_END)
            break;
        if (r == LZMA_OK)
            continue;
        size_t at = d->len - s.avail_in;
        if (r == LZMA_BUF_ERROR) /* no progress possible: the input ended */
            rc = corrupt(d, at, "truncated");
        else if (r == LZMA_MEM_ERROR)
            rc = kt_fail(d->err, -ENOMEM, d->base + at, "%s%s%s: out of memory", d->what,
                         d->sep, d->name);
        else if (r == LZMA_MEMLIMIT_ERROR)
            rc = kt_fail(d->err, -E2BIG, d->base + at,
                         "%s%s%s stream needs more than the %u MiB decoder memory limit",
                         d->what, d->sep, d->name,
                         (unsigned)(KT_DECOMPRESS_DECODER_MEM >> 20));
        else if (r == LZMA_OPTIONS_ERROR || r == LZMA_UNSUPPORTED_CHECK)
            rc = kt_fail(d->err, -ENOPKG, d->base + at, "%s%s%s stream uses unsupported options",
                         d->what, d->sep, d->name);
        else
            rc = corrupt(d, at, "corrupt data");
        break;
    }
    lzma_end(&s);
    return rc;
}

static int do_zstd(struct dec *d)
{
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (!dc)
        return kt_fail(d->err, -ENOMEM, KT_NO_OFFSET, "%s%szstd: init failed", d->what, d->sep);
    /* 2^27: zstd's own default limit, and more than the kernel's -22 uses */
    ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, 27);
    ZSTD_inBuffer ib = {d->in, d->len, 0};
    int rc = 0;
    for (;;) {
        if ((rc = room(d, ib.pos)) < 0)
            break;
        ZSTD_outBuffer ob = {d->p + d->olen, d->cap - d->olen, 0};
        size_t before_in = ib.pos;
        size_t z = ZSTD_decompressStream(dc, &ob, &ib);
        d->olen += ob.pos;
        if (ZSTD_isError(z)) {
            rc = corrupt(d, ib.pos, ZSTD_getErrorName(z));
            break;
        }
        if (z == 0) { /* a frame complete and flushed */
            if (!(d->flags & KT_DECOMPRESS_CONCAT) || ib.pos == ib.size)
                break;
            continue;
        }
        /* the frame unfinished, output room left and no input to take */
        if (ib.pos == ib.size && ob.pos < ob.size && ib.pos == before_in) {
            rc = corrupt(d, ib.pos, "truncated");
            break;
        }
    }
    ZSTD_freeDCtx(dc);
    return rc;
}

/* The legacy format: magic, then blocks of (le32 compressed size, LZ4 block
 * of at most 8 MiB output); the magic may repeat (concatenated streams); the
 * kernel appends a 4-byte size after the last block. */
static int do_lz4_legacy(struct dec *d)
{
    size_t pos = 4;
    size_t blocks = 0;
    while (d->len - pos >= 4) {
        uint32_t csize = le32(d->in + pos);
        if (csize == LZ4_LEGACY_MAGIC) {
            pos += 4;
            continue;
        }
        if (csize > d->len - pos - 4) {
            if (blocks && d->len - pos == 4)
                break; /* the kernel's 4-byte size trailer */
            return corrupt(d, pos, blocks ? "truncated" : "block size runs past the end");
        }
        if (csize > (size_t)LZ4_compressBound((int)LZ4_LEGACY_BLOCK))
            return corrupt(d, pos, "block size too large");
        if (d->olen > d->max)
            return bomb(d, pos);
        if (d->cap - d->olen < LZ4_LEGACY_BLOCK) {
            /* a block needs its whole 8 MiB of room: the buffer may pass
             * max + 1 by less than one block */
            size_t lim = cap_limit(d);
            size_t ncap = d->cap ? d->cap * 2 : (size_t)16 << 20;
            if (ncap > lim || ncap < d->cap)
                ncap = lim;
            if (ncap < d->olen + LZ4_LEGACY_BLOCK)
                ncap = d->olen + LZ4_LEGACY_BLOCK;
            int rc = resize(d, ncap);
            if (rc < 0)
                return rc;
        }
        int n = LZ4_decompress_safe((const char *)d->in + pos + 4, (char *)d->p + d->olen,
                                    (int)csize, (int)LZ4_LEGACY_BLOCK);
        if (n < 0)
            return corrupt(d, pos + 4, "corrupt block");
        d->olen += (size_t)n;
        pos += 4 + csize;
        blocks++;
    }
    if (!blocks)
        return corrupt(d, pos, "truncated");
    if (d->olen > d->max)
        return bomb(d, pos);
    return 0;
}

static int do_lz4_frame(struct dec *d)
{
    LZ4F_dctx *dc;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&dc, LZ4F_VERSION)))
        return kt_fail(d->err, -ENOMEM, KT_NO_OFFSET, "%s%slz4: init failed", d->what, d->sep);
    size_t pos = 0;
    int rc = 0;
    for (;;) {
        if ((rc = room(d, pos)) < 0)
            break;
        size_t dst = d->cap - d->olen, src = d->len - pos;
        size_t z = LZ4F_decompress(dc, d->p + d->olen, &dst, d->in + pos, &src, NULL);
        pos += src;
        d->olen += dst;
        if (LZ4F_isError(z)) {
            rc = corrupt(d, pos, LZ4F_getErrorName(z));
            break;
        }
        if (z == 0) { /* a frame complete */
            if (!(d->flags & KT_DECOMPRESS_CONCAT) || pos == d->len)
                break;
            continue;
        }
        if (dst == 0 && src == 0) {
            rc = corrupt(d, pos, pos == d->len ? "truncated" : "no progress");
            break;
        }
    }
    LZ4F_freeDecompressionContext(dc);
    return rc;
}

static int do_copy(struct dec *d)
{
    if (d->len > d->max)
        return bomb(d, d->max);
    int rc = resize(d, d->len ? d->len : 1);
    if (rc < 0)
        return rc;
    if (d->len)
        memcpy(d->p, d->in, d->len);
    d->olen = d->len;
    return 0;
}

int kt_decompress_ex(enum kt_comp c, const uint8_t *in, size_t len, size_t base_offset,
                     size_t max_out, const struct kt_decompress_opts *opts, uint8_t **out,
                     size_t *out_len, struct kt_error *err)
{
    static const uint8_t nothing[1];
    *out = NULL;
    *out_len = 0;
    struct dec d = {
        .in = in ? in : nothing,
        .len = in ? len : 0,
        .base = base_offset,
        .name = kt_comp_name(c),
        .what = opts && opts->what ? opts->what : "",
        .sep = opts && opts->what ? ": " : "",
        .flags = opts ? opts->flags : 0,
        .max = max_out ? max_out : KT_DECOMPRESS_DEFAULT_MAX,
        .err = err,
    };
    if (opts && opts->size_hint && opts->size_hint <= d.max && c != KT_COMP_NONE) {
        /* slack past the hint: the decoder sees the end of the stream */
        size_t want = opts->size_hint + 4096;
        if (want > cap_limit(&d) || want < opts->size_hint)
            want = cap_limit(&d);
        d.p = malloc(want);
        if (d.p)
            d.cap = want;
    }
    int rc;
    switch (c) {
    case KT_COMP_NONE: rc = do_copy(&d); break;
    case KT_COMP_GZIP: rc = do_gzip(&d); break;
    case KT_COMP_XZ: rc = do_lzma(&d, false); break;
    case KT_COMP_LZMA: rc = do_lzma(&d, true); break;
    case KT_COMP_ZSTD: rc = do_zstd(&d); break;
    case KT_COMP_LZ4:
        if (d.len >= 4 && le32(d.in) == LZ4_LEGACY_MAGIC)
            rc = do_lz4_legacy(&d);
        else
            rc = do_lz4_frame(&d);
        break;
    default:
        rc = kt_fail(err, -ENOPKG, KT_NO_OFFSET, "unknown compression format %d", (int)c);
        break;
    }
    if (rc == 0 && d.olen > d.max)
        rc = bomb(&d, d.len);
    if (rc == 0 && !d.p)
        rc = resize(&d, 1);
    if (rc < 0) {
        free(d.p);
        return rc;
    }
    *out = d.p;
    *out_len = d.olen;
    return 0;
}

int kt_decompress(enum kt_comp c, const uint8_t *in, size_t len, size_t base_offset,
                  size_t max_out, uint8_t **out, size_t *out_len, struct kt_error *err)
{
    return kt_decompress_ex(c, in, len, base_offset, max_out, NULL, out, out_len, err);
}
