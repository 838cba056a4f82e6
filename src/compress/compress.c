/* compress.c - streaming decompression (gzip, xz, lzma, zstd, lz4): one
 * incremental decoder per format (step_*), and kt_decompress_ex, which
 * gathers a decoder's output into a buffer grown geometrically up to a limit.
 *
 * The decoder hands out at most max_out + 1 bytes: a stream producing exactly
 * max_out bytes can then finish, and one byte more proves a bomb.  So the
 * buffer never grows past max_out + 1 and the limit is checked before more
 * memory is taken. */
#include "compress/compress.h"
#include "util/le.h"

#include <lz4.h>
#include <lz4frame.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#define LZ4_LEGACY_MAGIC 0x184C2102u
#define LZ4_FRAME_MAGIC 0x184D2204u
#define LZ4_LEGACY_BLOCK ((size_t)8 << 20)
#define FIRST_ALLOC ((size_t)256 << 10)

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
    kt_le c;
    uint32_t magic = 0; /* no format's 4-byte magic */
    if (!p)
        return KT_COMP_NONE;
    kt_le_init(&c, p, len, NULL);
    kt_le_u32(&c, &magic, NULL);
    if (len >= 3 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8)
        return KT_COMP_GZIP;
    if (len >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6))
        return KT_COMP_XZ;
    if (len >= 13 && p[0] == 0x5d && p[1] == 0 && p[2] == 0)
        return KT_COMP_LZMA;
    if (magic == 0xFD2FB528u)
        return KT_COMP_ZSTD;
    if (magic == LZ4_LEGACY_MAGIC || magic == LZ4_FRAME_MAGIC)
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
    size_t max;            /* output limit */
    uint64_t mem;          /* decoder memory limit */
    struct kt_error *err;
};

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

/* ---- the incremental decoder ----------------------------------------------
 * One step per call, writing into the caller's buffer; the bomb limit counts
 * the bytes handed out (the output offered to a step is cut to
 * max + 1 - total). */
struct kt_decoder {
    struct dec d;          /* input, names, flags, max, err */
    enum kt_comp c;
    bool legacy, inited, done;
    int failed;            /* sticky error */
    size_t pos, total;     /* input consumed, output handed out */
    z_stream zs;
    lzma_stream ls;
    ZSTD_DCtx *zd;
    LZ4F_dctx *lf;
    uint8_t *blk;          /* lz4 legacy: the current decoded block */
    size_t blk_len, blk_off, blocks;
};

static int step_gzip(struct kt_decoder *k, uint8_t *buf, size_t cap, size_t *n)
{
    struct dec *d = &k->d;
    size_t in_chunk = d->len - k->pos > UINT32_MAX ? UINT32_MAX : d->len - k->pos;
    size_t out_chunk = cap > UINT32_MAX ? UINT32_MAX : cap;
    k->zs.next_in = (Bytef *)(uintptr_t)(d->in + k->pos);
    k->zs.avail_in = (uInt)in_chunk;
    k->zs.next_out = buf;
    k->zs.avail_out = (uInt)out_chunk;
    int z = inflate(&k->zs, Z_NO_FLUSH);
    k->pos += in_chunk - k->zs.avail_in;
    *n = out_chunk - k->zs.avail_out;
    if (z == Z_STREAM_END) {
        if (!(d->flags & KT_DECOMPRESS_CONCAT) || k->pos == d->len)
            k->done = true;
        else
            inflateReset(&k->zs); /* the next member */
        return 0;
    }
    if (z == Z_BUF_ERROR || (z == Z_OK && k->pos == d->len && k->zs.avail_out != 0))
        return corrupt(d, k->pos, "truncated");
    if (z != Z_OK)
        return corrupt(d, k->pos, k->zs.msg ? k->zs.msg : "corrupt data");
    return 0;
}

static int step_lzma(struct kt_decoder *k, uint8_t *buf, size_t cap, size_t *n)
{
    struct dec *d = &k->d;
    k->ls.next_in = d->in + k->pos;
    k->ls.avail_in = d->len - k->pos;
    k->ls.next_out = buf;
    k->ls.avail_out = cap;
    lzma_ret r = lzma_code(&k->ls, LZMA_FINISH);
    k->pos = d->len - k->ls.avail_in;
    *n = cap - k->ls.avail_out;
    if (r == LZMA_STREAM_END) {
        k->done = true;
        return 0;
    }
    if (r == LZMA_OK)
        return 0;
    size_t at = k->pos;
    if (r == LZMA_BUF_ERROR) /* no progress possible: the input ended */
        return corrupt(d, at, "truncated");
    if (r == LZMA_MEM_ERROR)
        return kt_fail(d->err, -ENOMEM, d->base + at, "%s%s%s: out of memory", d->what, d->sep,
                       d->name);
    if (r == LZMA_MEMLIMIT_ERROR)
        return kt_fail(d->err, -E2BIG, d->base + at,
                       "%s%s%s stream needs more than the %u MiB decoder memory limit", d->what,
                       d->sep, d->name, (unsigned)(d->mem >> 20));
    if (r == LZMA_OPTIONS_ERROR || r == LZMA_UNSUPPORTED_CHECK)
        return kt_fail(d->err, -ENOPKG, d->base + at, "%s%s%s stream uses unsupported options",
                       d->what, d->sep, d->name);
    return corrupt(d, at, "corrupt data");
}

static int step_zstd(struct kt_decoder *k, uint8_t *buf, size_t cap, size_t *n)
{
    struct dec *d = &k->d;
    ZSTD_inBuffer ib = {d->in, d->len, k->pos};
    ZSTD_outBuffer ob = {buf, cap, 0};
    size_t before_in = ib.pos;
    size_t z = ZSTD_decompressStream(k->zd, &ob, &ib);
    k->pos = ib.pos;
    *n = ob.pos;
    if (ZSTD_getErrorCode(z) == ZSTD_error_frameParameter_windowTooLarge)
        return kt_fail(d->err, -E2BIG, d->base + ib.pos,
                       "%s%s%s stream needs more than the %u MiB decoder memory limit", d->what,
                       d->sep, d->name, (unsigned)(d->mem >> 20));
    if (ZSTD_isError(z))
        return corrupt(d, ib.pos, ZSTD_getErrorName(z));
    if (z == 0) { /* a frame complete and flushed */
        if (!(d->flags & KT_DECOMPRESS_CONCAT) || ib.pos == ib.size)
            k->done = true;
        return 0;
    }
    /* the frame unfinished, output room left and no input to take */
    if (ib.pos == ib.size && ob.pos < ob.size && ib.pos == before_in)
        return corrupt(d, ib.pos, "truncated");
    return 0;
}

static int step_lz4_frame(struct kt_decoder *k, uint8_t *buf, size_t cap, size_t *n)
{
    struct dec *d = &k->d;
    size_t dst = cap, src = d->len - k->pos;
    size_t z = LZ4F_decompress(k->lf, buf, &dst, d->in + k->pos, &src, NULL);
    k->pos += src;
    *n = dst;
    if (LZ4F_isError(z))
        return corrupt(d, k->pos, LZ4F_getErrorName(z));
    if (z == 0) { /* a frame complete */
        if (!(d->flags & KT_DECOMPRESS_CONCAT) || k->pos == d->len)
            k->done = true;
        return 0;
    }
    if (dst == 0 && src == 0)
        return corrupt(d, k->pos, k->pos == d->len ? "truncated" : "no progress");
    return 0;
}

/* The lz4 legacy format: magic, then blocks of (le32 compressed size, LZ4
 * block of at most 8 MiB output); the magic may repeat (concatenated
 * streams); the kernel appends a 4-byte size after the last block.  A step
 * hands out the rest of the decoded block, else decodes the next block. */
/* Does the input start with the lz4 legacy magic? */
static bool starts_lz4_legacy(const uint8_t *in, size_t len)
{
    kt_le c;
    uint32_t magic;
    kt_le_init(&c, in, len, NULL);
    return kt_le_u32(&c, &magic, NULL) == 0 && magic == LZ4_LEGACY_MAGIC;
}

static int step_lz4_legacy(struct kt_decoder *k, uint8_t *buf, size_t cap, size_t *n)
{
    struct dec *d = &k->d;
    if (k->blk_off < k->blk_len) {
        size_t m = k->blk_len - k->blk_off < cap ? k->blk_len - k->blk_off : cap;
        memcpy(buf, k->blk + k->blk_off, m);
        k->blk_off += m;
        *n = m;
        return 0;
    }
    kt_le in, block;
    uint32_t csize;
    kt_le_init(&in, d->in, d->len, NULL);
    kt_le_skip(&in, k->pos, NULL); /* k->pos <= d->len */
    while (kt_le_u32(&in, &csize, NULL) == 0) {
        if (csize == LZ4_LEGACY_MAGIC) {
            k->pos += 4;
            continue;
        }
        if (kt_le_sub(&in, csize, &block, NULL) < 0) {
            if (k->blocks && kt_le_left(&in) == 0)
                break; /* the kernel's 4-byte size trailer */
            return corrupt(d, k->pos, k->blocks ? "truncated" : "block size runs past the end");
        }
        if (csize > (size_t)LZ4_compressBound((int)LZ4_LEGACY_BLOCK))
            return corrupt(d, k->pos, "block size too large");
        if (!k->blk && !(k->blk = malloc(LZ4_LEGACY_BLOCK)))
            return kt_fail(d->err, -ENOMEM, KT_NO_OFFSET, "%s%s%s: out of memory (%zu bytes)",
                           d->what, d->sep, d->name, LZ4_LEGACY_BLOCK);
        int r = LZ4_decompress_safe((const char *)block.p, (char *)k->blk, (int)csize,
                                    (int)LZ4_LEGACY_BLOCK);
        if (r < 0)
            return corrupt(d, k->pos + 4, "corrupt block");
        k->blk_len = (size_t)r;
        k->blk_off = 0;
        k->pos += 4 + csize;
        k->blocks++;
        return 0;
    }
    if (!k->blocks)
        return corrupt(d, k->pos, "truncated");
    k->done = true;
    return 0;
}

static int step_copy(struct kt_decoder *k, uint8_t *buf, size_t cap, size_t *n)
{
    size_t m = k->d.len - k->pos < cap ? k->d.len - k->pos : cap;
    if (m)
        memcpy(buf, k->d.in + k->pos, m);
    k->pos += m;
    *n = m;
    if (k->pos == k->d.len)
        k->done = true;
    return 0;
}

/* The largest zstd window (a power of two) below a memory limit: 27 (128 MiB)
 * for the default 256 MiB. */
static int window_log(uint64_t mem)
{
    int log = 10; /* ZSTD_WINDOWLOG_ABSOLUTEMIN */
    while (log < 31 && ((uint64_t)1 << (log + 1)) < mem)
        log++;
    return log;
}

int kt_decoder_new(enum kt_comp c, const uint8_t *in, size_t len, size_t base_offset,
                   size_t max_out, const struct kt_decompress_opts *opts,
                   struct kt_decoder **dec, struct kt_error *err)
{
    static const uint8_t nothing[1];
    *dec = NULL;
    if (c != KT_COMP_NONE && c != KT_COMP_GZIP && c != KT_COMP_XZ && c != KT_COMP_LZMA &&
        c != KT_COMP_ZSTD && c != KT_COMP_LZ4)
        return kt_fail(err, -ENOPKG, KT_NO_OFFSET, "unknown compression format %d", (int)c);
    struct kt_decoder *k = calloc(1, sizeof(*k));
    if (!k)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    k->c = c;
    k->d = (struct dec){
        .in = in ? in : nothing,
        .len = in ? len : 0,
        .base = base_offset,
        .name = kt_comp_name(c),
        .what = opts && opts->what ? opts->what : "",
        .sep = opts && opts->what ? ": " : "",
        .flags = opts ? opts->flags : 0,
        .max = max_out ? max_out : KT_DECOMPRESS_DEFAULT_MAX,
        .mem = opts && opts->mem_limit ? opts->mem_limit : KT_DECOMPRESS_DECODER_MEM,
        .err = err,
    };
    struct dec *d = &k->d;
    int rc = 0;
    switch (c) {
    case KT_COMP_NONE: break;
    case KT_COMP_GZIP:
        if (inflateInit2(&k->zs, 16 + MAX_WBITS) != Z_OK)
            rc = kt_fail(err, -ENOMEM, KT_NO_OFFSET, "%s%sgzip: zlib init failed", d->what,
                         d->sep);
        break;
    case KT_COMP_XZ:
    case KT_COMP_LZMA: {
        lzma_stream s = LZMA_STREAM_INIT;
        k->ls = s;
        uint32_t lflags = d->flags & KT_DECOMPRESS_CONCAT ? LZMA_CONCATENATED : 0;
        lzma_ret r = c == KT_COMP_LZMA
                         ? lzma_alone_decoder(&k->ls, d->mem)
                         : lzma_stream_decoder(&k->ls, d->mem, lflags);
        if (r != LZMA_OK)
            rc = kt_fail(err, -ENOMEM, KT_NO_OFFSET, "%s%s%s: liblzma init failed", d->what,
                         d->sep, d->name);
        break;
    }
    case KT_COMP_ZSTD:
        if (!(k->zd = ZSTD_createDCtx()))
            rc = kt_fail(err, -ENOMEM, KT_NO_OFFSET, "%s%szstd: init failed", d->what, d->sep);
        else
            ZSTD_DCtx_setParameter(k->zd, ZSTD_d_windowLogMax, window_log(d->mem));
        break;
    case KT_COMP_LZ4:
        if (starts_lz4_legacy(d->in, d->len)) {
            k->legacy = true;
            k->pos = 4;
        } else if (LZ4F_isError(LZ4F_createDecompressionContext(&k->lf, LZ4F_VERSION))) {
            k->lf = NULL;
            rc = kt_fail(err, -ENOMEM, KT_NO_OFFSET, "%s%slz4: init failed", d->what, d->sep);
        }
        break;
    }
    if (rc < 0) {
        free(k);
        return rc;
    }
    k->inited = true;
    *dec = k;
    return 0;
}

int kt_decoder_read(struct kt_decoder *k, uint8_t *buf, size_t cap, size_t *got,
                    struct kt_error *err)
{
    *got = 0;
    if (k->failed)
        return k->failed;
    k->d.err = err;
    if (!buf || !cap)
        return k->failed = kt_fail(err, -EINVAL, KT_NO_OFFSET, "decoder: no output buffer");
    for (;;) {
        if (k->total > k->d.max) /* the byte past the limit: a bomb */
            return k->failed = bomb(&k->d, k->c == KT_COMP_NONE ? k->d.max : k->pos);
        if (k->done)
            return 0;
        size_t room = cap;
        if (k->d.max != SIZE_MAX && room > k->d.max + 1 - k->total)
            room = k->d.max + 1 - k->total;
        size_t n = 0;
        int rc;
        switch (k->c) {
        case KT_COMP_GZIP: rc = step_gzip(k, buf, room, &n); break;
        case KT_COMP_XZ:
        case KT_COMP_LZMA: rc = step_lzma(k, buf, room, &n); break;
        case KT_COMP_ZSTD: rc = step_zstd(k, buf, room, &n); break;
        case KT_COMP_LZ4:
            rc = k->legacy ? step_lz4_legacy(k, buf, room, &n) : step_lz4_frame(k, buf, room, &n);
            break;
        default: rc = step_copy(k, buf, room, &n); break;
        }
        k->total += n;
        if (rc < 0)
            return k->failed = rc;
        if (n && k->total <= k->d.max) {
            *got = n;
            return 0;
        }
    }
}

size_t kt_decoder_total(const struct kt_decoder *k)
{
    return k ? k->total : 0;
}

void kt_decoder_free(struct kt_decoder *k)
{
    if (!k)
        return;
    if (k->inited) {
        switch (k->c) {
        case KT_COMP_GZIP: inflateEnd(&k->zs); break;
        case KT_COMP_XZ:
        case KT_COMP_LZMA: lzma_end(&k->ls); break;
        case KT_COMP_ZSTD: ZSTD_freeDCtx(k->zd); break;
        case KT_COMP_LZ4:
            if (k->lf)
                LZ4F_freeDecompressionContext(k->lf);
            break;
        default: break;
        }
    }
    free(k->blk);
    free(k);
}

/* ---- the whole-buffer call, on the incremental decoder -------------------- */

int kt_decompress_ex(enum kt_comp c, const uint8_t *in, size_t len, size_t base_offset,
                     size_t max_out, const struct kt_decompress_opts *opts, uint8_t **out,
                     size_t *out_len, struct kt_error *err)
{
    *out = NULL;
    *out_len = 0;
    struct kt_decoder *k;
    int rc = kt_decoder_new(c, in, len, base_offset, max_out, opts, &k, err);
    if (rc < 0)
        return rc;
    struct dec *d = &k->d;
    size_t lim = d->max == SIZE_MAX ? SIZE_MAX : d->max + 1; /* the most handed out */
    uint8_t *p = NULL;
    size_t cap = 0, olen = 0;
    if (c == KT_COMP_NONE) {
        if (d->len > d->max) {
            rc = bomb(d, d->max);
            goto out;
        }
        cap = d->len ? d->len : 1; /* the copy in one piece */
    } else if (opts && opts->size_hint && opts->size_hint <= d->max) {
        /* slack past the hint: the decoder sees the end of the stream */
        cap = opts->size_hint + 4096;
        if (cap > lim || cap < opts->size_hint)
            cap = lim;
    }
    if (cap && !(p = malloc(cap)))
        cap = 0;
    while (!k->done) {
        if (olen == cap) { /* grow: doubling, up to max + 1 */
            size_t ncap = cap ? cap * 2 : FIRST_ALLOC;
            if (ncap > lim || ncap < cap)
                ncap = lim;
            uint8_t *np = realloc(p, ncap);
            if (!np) {
                rc = kt_fail(err, -ENOMEM, KT_NO_OFFSET, "%s%s%s: out of memory (%zu bytes)",
                             d->what, d->sep, d->name, ncap);
                break;
            }
            p = np;
            cap = ncap;
        }
        size_t got;
        rc = kt_decoder_read(k, p + olen, cap - olen, &got, err);
        if (rc < 0 || got == 0)
            break;
        olen += got;
    }
out:
    kt_decoder_free(k);
    if (rc < 0) {
        free(p);
        return rc;
    }
    *out = p;
    *out_len = olen;
    return 0;
}

int kt_decompress(enum kt_comp c, const uint8_t *in, size_t len, size_t base_offset,
                  size_t max_out, uint8_t **out, size_t *out_len, struct kt_error *err)
{
    return kt_decompress_ex(c, in, len, base_offset, max_out, NULL, out, out_len, err);
}
