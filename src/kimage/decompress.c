/* decompress.c - find and inflate the vmlinux inside a kernel image.
 *
 * x86 bzImage: the real-mode setup header carries "HdrS" at 0x202, the
 * boot protocol version at 0x206 (payload fields need >= 2.08),
 * setup_sects at 0x1f1 (0 means 4), payload_offset / payload_length at
 * 0x248 / 0x24c, the offset counted from the protected-mode code, which
 * starts after the (setup_sects + 1) * 512 bytes of setup.  EFI zboot images
 * (arm64, riscv, loongarch vmlinuz.efi) carry "zimg" at 4 and the payload's
 * offset/size at 8/12.  The payload is a compressed stream followed by the
 * kernel's 4-byte size trailer, which the decoders stop short of. */
#include "kimage/kimage.h"

#include <lz4.h>
#include <lz4frame.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

/* Memory a decoder may use for its dictionary (the kernel's xz uses 32 MiB). */
#define KT_KIMAGE_DECODER_MEM ((uint64_t)256 << 20)

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

const char *kt_kimage_comp_name(enum kt_kimage_comp c)
{
    switch (c) {
    case KT_KIMAGE_NONE: return "none";
    case KT_KIMAGE_GZIP: return "gzip";
    case KT_KIMAGE_XZ: return "xz";
    case KT_KIMAGE_LZMA: return "lzma";
    case KT_KIMAGE_ZSTD: return "zstd";
    case KT_KIMAGE_LZ4: return "lz4";
    }
    return "?";
}

/* Output buffer growing up to max bytes. */
struct obuf {
    uint8_t *p;
    size_t len, cap, max;
};

/* Make room for at least one more byte (more when possible).  -EFBIG when
 * max is reached. */
static int grow(struct obuf *o, size_t base, struct kt_error *err)
{
    if (o->cap - o->len > 0)
        return 0;
    if (o->len >= o->max)
        return kt_fail(err, -EFBIG, base,
                       "vmlinux: decompressed size exceeds the %zu-byte limit "
                       "(decompression bomb or not a kernel)",
                       o->max);
    size_t ncap = o->cap ? o->cap * 2 : (size_t)1 << 20;
    if (ncap > o->max || ncap < o->cap)
        ncap = o->max;
    uint8_t *np = realloc(o->p, ncap);
    if (!np)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "vmlinux: out of memory (%zu bytes)", ncap);
    o->p = np;
    o->cap = ncap;
    return 0;
}

static int corrupt(struct kt_error *err, size_t at, const char *fmt_name, const char *why)
{
    return kt_fail(err, -EBADMSG, at, "vmlinux: %s stream: %s", fmt_name, why);
}

static int do_gzip(const uint8_t *in, size_t len, size_t base, struct obuf *o,
                   struct kt_error *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "vmlinux: zlib init failed");
    size_t consumed = 0;
    int rc = 0;
    for (;;) {
        if ((rc = grow(o, base + consumed, err)) < 0)
            break;
        size_t in_chunk = len - consumed > UINT32_MAX ? UINT32_MAX : len - consumed;
        size_t out_chunk = o->cap - o->len > UINT32_MAX ? UINT32_MAX : o->cap - o->len;
        zs.next_in = (Bytef *)(in + consumed);
        zs.avail_in = (uInt)in_chunk;
        zs.next_out = o->p + o->len;
        zs.avail_out = (uInt)out_chunk;
        int z = inflate(&zs, Z_NO_FLUSH);
        consumed += in_chunk - zs.avail_in;
        o->len += out_chunk - zs.avail_out;
        if (z == Z_STREAM_END)
            break;
        if (z == Z_BUF_ERROR || (z == Z_OK && consumed == len && zs.avail_out != 0)) {
            rc = corrupt(err, base + consumed, "gzip", "truncated");
            break;
        }
        if (z != Z_OK) {
            rc = corrupt(err, base + consumed, "gzip", zs.msg ? zs.msg : "corrupt data");
            break;
        }
    }
    inflateEnd(&zs);
    return rc;
}

static int do_lzma(const uint8_t *in, size_t len, size_t base, struct obuf *o, bool alone,
                   struct kt_error *err)
{
    const char *name = alone ? "lzma" : "xz";
    lzma_stream s = LZMA_STREAM_INIT;
    lzma_ret r = alone ? lzma_alone_decoder(&s, KT_KIMAGE_DECODER_MEM)
                       : lzma_stream_decoder(&s, KT_KIMAGE_DECODER_MEM, 0);
    if (r != LZMA_OK)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "vmlinux: liblzma init failed");
    s.next_in = in;
    s.avail_in = len;
    int rc = 0;
    for (;;) {
        if ((rc = grow(o, base + (len - s.avail_in), err)) < 0)
            break;
        s.next_out = o->p + o->len;
        s.avail_out = o->cap - o->len;
        size_t before = s.avail_out;
        r = lzma_code(&s, LZMA_FINISH);
        o->len += before - s.avail_out;
        if (r == LZMA_STREAM_END)
            break;
        if (r == LZMA_OK)
            continue;
        size_t at = base + (len - s.avail_in);
        if (r == LZMA_BUF_ERROR)
            rc = corrupt(err, at, name, "truncated");
        else if (r == LZMA_MEM_ERROR || r == LZMA_MEMLIMIT_ERROR)
            rc = kt_fail(err, r == LZMA_MEM_ERROR ? -ENOMEM : -EFBIG, at,
                         "vmlinux: %s stream needs more than %u MiB to decode", name,
                         (unsigned)(KT_KIMAGE_DECODER_MEM >> 20));
        else if (r == LZMA_OPTIONS_ERROR || r == LZMA_UNSUPPORTED_CHECK)
            rc = kt_fail(err, -ENOPKG, at, "vmlinux: %s stream uses unsupported options", name);
        else
            rc = corrupt(err, at, name, "corrupt data");
        break;
    }
    lzma_end(&s);
    return rc;
}

static int do_zstd(const uint8_t *in, size_t len, size_t base, struct obuf *o,
                   struct kt_error *err)
{
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (!dc)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "vmlinux: zstd init failed");
    /* 2^27: zstd's own default limit, and more than the kernel's -22 uses */
    ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, 27);
    ZSTD_inBuffer ib = {in, len, 0};
    int rc = 0;
    for (;;) {
        if ((rc = grow(o, base + ib.pos, err)) < 0)
            break;
        ZSTD_outBuffer ob = {o->p + o->len, o->cap - o->len, 0};
        size_t before_in = ib.pos;
        size_t z = ZSTD_decompressStream(dc, &ob, &ib);
        o->len += ob.pos;
        if (ZSTD_isError(z)) {
            rc = corrupt(err, base + ib.pos, "zstd", ZSTD_getErrorName(z));
            break;
        }
        if (z == 0)
            break; /* frame complete */
        if (ib.pos == ib.size && ob.pos < ob.size && ib.pos == before_in) {
            rc = corrupt(err, base + ib.pos, "zstd", "truncated");
            break;
        }
    }
    ZSTD_freeDCtx(dc);
    return rc;
}

#define LZ4_LEGACY_MAGIC 0x184C2102u
#define LZ4_LEGACY_BLOCK ((size_t)8 << 20)

static int do_lz4_legacy(const uint8_t *in, size_t len, size_t base, struct obuf *o,
                         struct kt_error *err)
{
    size_t pos = 4;
    size_t blocks = 0;
    while (len - pos >= 4) {
        uint32_t csize = le32(in + pos);
        if (csize == LZ4_LEGACY_MAGIC) { /* another stream concatenated */
            pos += 4;
            continue;
        }
        if (csize > len - pos - 4) {
            if (blocks && len - pos == 4)
                break; /* the kernel's 4-byte size trailer */
            return corrupt(err, base + pos, "lz4",
                           blocks ? "truncated" : "block size runs past the end");
        }
        if (csize > (size_t)LZ4_compressBound((int)LZ4_LEGACY_BLOCK))
            return corrupt(err, base + pos, "lz4", "block size too large");
        if (o->len >= o->max)
            return grow(o, base + pos, err);
        if (o->cap - o->len < LZ4_LEGACY_BLOCK) {
            size_t ncap = o->cap ? o->cap * 2 : (size_t)16 << 20;
            if (ncap < o->len + LZ4_LEGACY_BLOCK)
                ncap = o->len + LZ4_LEGACY_BLOCK;
            uint8_t *np = realloc(o->p, ncap);
            if (!np)
                return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "vmlinux: out of memory");
            o->p = np;
            o->cap = ncap;
        }
        int n = LZ4_decompress_safe((const char *)in + pos + 4, (char *)o->p + o->len,
                                    (int)csize, (int)LZ4_LEGACY_BLOCK);
        if (n < 0)
            return corrupt(err, base + pos + 4, "lz4", "corrupt block");
        o->len += (size_t)n;
        pos += 4 + csize;
        blocks++;
        if (o->len > o->max)
            return kt_fail(err, -EFBIG, base + pos,
                           "vmlinux: decompressed size exceeds the %zu-byte limit "
                           "(decompression bomb or not a kernel)",
                           o->max);
    }
    if (!blocks)
        return corrupt(err, base + pos, "lz4", "truncated");
    return 0;
}

static int do_lz4_frame(const uint8_t *in, size_t len, size_t base, struct obuf *o,
                        struct kt_error *err)
{
    LZ4F_dctx *dc;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&dc, LZ4F_VERSION)))
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "vmlinux: lz4 init failed");
    size_t pos = 0;
    int rc = 0;
    for (;;) {
        if ((rc = grow(o, base + pos, err)) < 0)
            break;
        size_t dst = o->cap - o->len, src = len - pos;
        size_t z = LZ4F_decompress(dc, o->p + o->len, &dst, in + pos, &src, NULL);
        pos += src;
        o->len += dst;
        if (LZ4F_isError(z)) {
            rc = corrupt(err, base + pos, "lz4", LZ4F_getErrorName(z));
            break;
        }
        if (z == 0)
            break;
        if (dst == 0 && src == 0) {
            rc = corrupt(err, base + pos, "lz4", pos == len ? "truncated" : "no progress");
            break;
        }
    }
    LZ4F_freeDecompressionContext(dc);
    return rc;
}

/* Identify a compressed stream by its magic. */
static int sniff(const uint8_t *p, size_t len, enum kt_kimage_comp *c, int *lz4_legacy)
{
    *lz4_legacy = 0;
    if (len >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        *c = KT_KIMAGE_GZIP;
    else if (len >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6))
        *c = KT_KIMAGE_XZ;
    else if (len >= 13 && p[0] == 0x5d && p[1] == 0 && p[2] == 0)
        *c = KT_KIMAGE_LZMA;
    else if (len >= 4 && le32(p) == 0xFD2FB528u)
        *c = KT_KIMAGE_ZSTD;
    else if (len >= 4 && le32(p) == LZ4_LEGACY_MAGIC) {
        *c = KT_KIMAGE_LZ4;
        *lz4_legacy = 1;
    } else if (len >= 4 && le32(p) == 0x184D2204u)
        *c = KT_KIMAGE_LZ4;
    else if (len >= 4 && !memcmp(p, "\x7f" "ELF", 4))
        *c = KT_KIMAGE_NONE;
    else
        return -1;
    return 0;
}

static int unsupported_magic(const uint8_t *p, size_t len, size_t at, struct kt_error *err)
{
    if (len >= 3 && !memcmp(p, "BZh", 3))
        return kt_fail(err, -ENOPKG, at, "vmlinux: bzip2 compression is not supported");
    if (len >= 4 && !memcmp(p, "\x89LZO", 4))
        return kt_fail(err, -ENOPKG, at, "vmlinux: lzo compression is not supported");
    return kt_fail(err, -ENOPKG, at,
                   "vmlinux: payload has an unknown compression (magic %02x %02x %02x %02x)",
                   len > 0 ? p[0] : 0, len > 1 ? p[1] : 0, len > 2 ? p[2] : 0,
                   len > 3 ? p[3] : 0);
}

int kt_kimage_vmlinux(const uint8_t *img, size_t len, size_t max_out,
                      const uint8_t **vmlinux, size_t *vmlinux_len, uint8_t **owned,
                      enum kt_kimage_comp *comp, struct kt_error *err)
{
    *vmlinux = NULL;
    *vmlinux_len = 0;
    *owned = NULL;
    if (comp)
        *comp = KT_KIMAGE_NONE;
    if (!img)
        len = 0;
    if (!max_out)
        max_out = KT_KIMAGE_MAX_VMLINUX;

    const uint8_t *pl = img;
    size_t pl_len = len, pl_off = 0;
    bool container = false;
    if (len >= 0x250 && !memcmp(img + 0x202, "HdrS", 4)) {
        unsigned version = (unsigned)img[0x206] | (unsigned)img[0x207] << 8;
        if (version < 0x208)
            return kt_fail(err, -ENOPKG, 0x206,
                           "bzImage: boot protocol %u.%02u has no payload fields (need 2.08)",
                           version >> 8, version & 0xff);
        size_t setup_sects = img[0x1f1] ? img[0x1f1] : 4;
        size_t pm = (setup_sects + 1) * 512;
        size_t poff = le32(img + 0x248), plen = le32(img + 0x24c);
        if (pm > len || poff > len - pm || plen > len - pm - poff || plen == 0)
            return kt_fail(err, -EBADMSG, 0x248,
                           "bzImage: payload (offset %zu + %zu, length %zu) lies outside the "
                           "%zu-byte file",
                           pm, poff, plen, len);
        pl_off = pm + poff;
        pl = img + pl_off;
        pl_len = plen;
        container = true;
    } else if (len >= 0x40 && img[0] == 'M' && img[1] == 'Z' && !memcmp(img + 4, "zimg", 4)) {
        size_t poff = le32(img + 8), plen = le32(img + 12);
        if (poff > len || plen > len - poff || plen == 0)
            return kt_fail(err, -EBADMSG, 8,
                           "zboot image: payload (offset %zu, length %zu) lies outside the "
                           "%zu-byte file",
                           poff, plen, len);
        pl_off = poff;
        pl = img + poff;
        pl_len = plen;
        container = true;
    }

    enum kt_kimage_comp c;
    int legacy;
    if (sniff(pl, pl_len, &c, &legacy) < 0) {
        if (container)
            return unsupported_magic(pl, pl_len, pl_off, err);
        /* raw kernel Image formats (arm64 "ARM\x64" at 0x38, riscv "RSC\x05"
         * at 0x34) are uncompressed and scanned as they are */
        if ((len >= 0x40 && !memcmp(img + 0x38, "ARM\x64", 4)) ||
            (len >= 0x40 && !memcmp(img + 0x34, "RSC\x05", 4)))
            c = KT_KIMAGE_NONE;
        else if ((len >= 3 && !memcmp(img, "BZh", 3)) ||
                 (len >= 4 && !memcmp(img, "\x89LZO", 4)))
            return unsupported_magic(img, len, 0, err);
        else
            return kt_fail(err, -EBADMSG, 0,
                           "not a kernel image: no bzImage setup header, ELF header or known "
                           "compression magic");
    }
    if (comp)
        *comp = c;
    if (c == KT_KIMAGE_NONE) {
        *vmlinux = pl;
        *vmlinux_len = pl_len;
        return 0;
    }

    struct obuf o = {NULL, 0, 0, max_out};
    /* The kernel appends the uncompressed size as a u32: a hint for the
     * first allocation when it is sane. */
    if (container && pl_len >= 8) {
        size_t hint = le32(pl + pl_len - 4);
        if (hint > 0 && hint <= max_out && hint <= (pl_len + 64) * 64) {
            o.p = malloc(hint + 4096); /* slack: the decoder sees the end */
            if (o.p)
                o.cap = hint + 4096;
        }
    }
    int rc;
    switch (c) {
    case KT_KIMAGE_GZIP: rc = do_gzip(pl, pl_len, pl_off, &o, err); break;
    case KT_KIMAGE_XZ: rc = do_lzma(pl, pl_len, pl_off, &o, false, err); break;
    case KT_KIMAGE_LZMA: rc = do_lzma(pl, pl_len, pl_off, &o, true, err); break;
    case KT_KIMAGE_ZSTD: rc = do_zstd(pl, pl_len, pl_off, &o, err); break;
    default:
        rc = legacy ? do_lz4_legacy(pl, pl_len, pl_off, &o, err)
                    : do_lz4_frame(pl, pl_len, pl_off, &o, err);
        break;
    }
    if (rc == 0 && o.len > max_out)
        rc = kt_fail(err, -EFBIG, pl_off,
                     "vmlinux: decompressed size exceeds the %zu-byte limit "
                     "(decompression bomb or not a kernel)",
                     max_out);
    if (rc < 0) {
        free(o.p);
        return rc;
    }
    *owned = o.p;
    *vmlinux = o.p;
    *vmlinux_len = o.len;
    return 0;
}
