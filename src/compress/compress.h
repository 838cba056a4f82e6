/* compress.h - one streaming decompressor for every compressed input ktrust
 * reads: kernel modules (.ko.gz/.ko.xz/.ko.zst) and kernel image payloads
 * (gzip, xz, lzma, zstd, lz4 legacy and frame).
 *
 * Output grows geometrically up to a caller-given ceiling; a stream that
 * would produce more is a decompression bomb and fails with -E2BIG (the CLI
 * reports it as malformed).  Where a compressed input is found (bzImage
 * payload, module file) is the callers' business: see kimage/ and modsig/.
 */
#ifndef KT_COMPRESS_COMPRESS_H
#define KT_COMPRESS_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* Ceiling used when kt_decompress is given max_out 0. */
#define KT_DECOMPRESS_DEFAULT_MAX ((size_t)512 << 20)
/* Memory a decoder may use for its dictionary/window (liblzma memlimit;
 * zstd windowLog 27 = 128 MiB).  Needing more fails with -E2BIG. */
#define KT_DECOMPRESS_DECODER_MEM ((uint64_t)256 << 20)

enum kt_comp {
    KT_COMP_NONE = 0, /* not compressed (or not recognised) */
    KT_COMP_GZIP,
    KT_COMP_XZ,
    KT_COMP_LZMA,     /* the legacy .lzma ("LZMA_alone") format */
    KT_COMP_ZSTD,
    KT_COMP_LZ4,      /* legacy (lz4 -l, the kernel's) or frame format */
};

/* "none", "gzip", "xz", "lzma", "zstd", "lz4" ("?" for other values). */
const char *kt_comp_name(enum kt_comp c);

/* The format of a stream starting at p, by its magic bytes: gzip 1f 8b 08,
 * xz fd "7zXZ" 00, lzma 5d 00 00 (and at least 13 header bytes), zstd
 * 28 b5 2f fd, lz4 02 21 4c 18 (legacy: at least one block must follow) or
 * 04 22 4d 18 (frame).
 * KT_COMP_NONE when none matches. */
enum kt_comp kt_comp_sniff(const uint8_t *p, size_t len);

/* Flags for kt_decompress_ex. */
enum {
    /* Decode concatenated streams (gzip members, xz streams, zstd and lz4
     * frames) up to the end of the input; anything after them is an error.
     * Without it decoding stops at the end of the first stream and trailing
     * bytes (the kernel's 4-byte size trailer) are ignored.  lzma has a
     * single stream; lz4 legacy always reads all its blocks. */
    KT_DECOMPRESS_CONCAT = 1u << 0,
};

struct kt_decompress_opts {
    unsigned flags;      /* KT_DECOMPRESS_* */
    size_t size_hint;    /* expected output size (0: unknown): the first
                          * allocation, when it is within max_out */
    const char *what;    /* prefix for error messages ("vmlinux"), or NULL */
    uint64_t mem_limit;  /* the decoder's own memory (xz/lzma dictionary, zstd
                          * window): 0 is KT_DECOMPRESS_DECODER_MEM */
};

/* Decompress the stream in[0..len) of format c.  On success *out is a
 * malloc'd buffer (never NULL, even for empty output; the caller frees it)
 * of *out_len bytes.  KT_COMP_NONE copies the input.  base_offset is added to
 * every offset reported in err (the stream's position in the caller's file).
 * max_out 0 means KT_DECOMPRESS_DEFAULT_MAX.  Errors (*out NULL):
 *   -EBADMSG  corrupt or truncated stream, with the offset where it failed
 *   -E2BIG    output over max_out bytes, or a decoder needing more than
 *             KT_DECOMPRESS_DECODER_MEM (decompression bomb); the message
 *             names the limit
 *   -ENOPKG   an xz/lzma stream using unsupported options (or an invalid c)
 *   -ENOMEM */
int kt_decompress(enum kt_comp c, const uint8_t *in, size_t len, size_t base_offset,
                  size_t max_out, uint8_t **out, size_t *out_len, struct kt_error *err);

/* kt_decompress with options (opts may be NULL: the same as kt_decompress). */
int kt_decompress_ex(enum kt_comp c, const uint8_t *in, size_t len, size_t base_offset,
                     size_t max_out, const struct kt_decompress_opts *opts, uint8_t **out,
                     size_t *out_len, struct kt_error *err);

/* An incremental decoder over a stream held whole in memory (in[0..len) must
 * stay valid until kt_decoder_free): the output comes in pieces of at most
 * the caller's buffer size, so memory stays bounded by the decoder's own
 * window.  Same formats, flags, offsets, limits and errors as
 * kt_decompress_ex: max_out (0: KT_DECOMPRESS_DEFAULT_MAX) counts the decoded
 * bytes; producing one more is -E2BIG.  opts->size_hint is ignored.
 * KT_COMP_NONE hands out the input.  Usage:
 *   struct kt_decoder *dec;
 *   rc = kt_decoder_new(c, in, len, base, 0, &opts, &dec, err);
 *   while ((rc = kt_decoder_read(dec, buf, sizeof(buf), &got, err)) == 0 && got) ...
 *   kt_decoder_free(dec);
 * kt_decoder_new: 0, -ENOPKG (an invalid c) or -ENOMEM; *dec is the caller's
 * (kt_decoder_free).  */
struct kt_decoder;
int kt_decoder_new(enum kt_comp c, const uint8_t *in, size_t len, size_t base_offset,
                   size_t max_out, const struct kt_decompress_opts *opts,
                   struct kt_decoder **dec, struct kt_error *err);

/* The next up to cap (> 0) decoded bytes into buf: 0 with *got > 0, or
 * *got == 0 at the end of the stream(s); or a negative error as
 * kt_decompress_ex (later calls return the same code again, err untouched). */
int kt_decoder_read(struct kt_decoder *dec, uint8_t *buf, size_t cap, size_t *got,
                    struct kt_error *err);

/* Bytes handed out so far. */
size_t kt_decoder_total(const struct kt_decoder *dec);

/* Free a decoder (NULL is fine). */
void kt_decoder_free(struct kt_decoder *dec);

#endif
