/* Compressed modules: the kernel's module formats (xz, zstd, gzip) on top of
 * the shared decompressor (compress/compress.h). */
#include "modsig/modsig.h"

#include <stdlib.h>
#include <string.h>

const char *kt_modsig_comp_name(enum kt_modsig_comp c)
{
    return kt_comp_name((enum kt_comp)c);
}

enum kt_modsig_comp kt_modsig_detect(const uint8_t *buf, size_t len)
{
    enum kt_comp c = kt_comp_sniff(buf, len);
    if (c == KT_COMP_XZ || c == KT_COMP_ZSTD || c == KT_COMP_GZIP)
        return (enum kt_modsig_comp)c;
    return KT_MODSIG_NONE; /* lzma and lz4 are not module formats */
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
    /* xz and zstd: concatenated streams as xz -d / zstd -d read them;
     * gzip: the first member, as the kernel's module loader does */
    struct kt_decompress_opts o = {
        .flags = *comp == KT_MODSIG_GZIP ? 0 : KT_DECOMPRESS_CONCAT,
        .what = "module",
        .mem_limit = KT_MODSIG_DECODER_MEM,
    };
    int rc = kt_decompress_ex((enum kt_comp)*comp, buf, len, 0,
                              max ? max : KT_MODSIG_MAX_DECOMPRESSED, &o, owned, out_len, err);
    *out = *owned;
    return rc;
}

/* A decoder over a module's compressed bytes: xz and zstd decode concatenated
 * streams as xz -d / zstd -d read them; gzip its first member, as the
 * kernel's module loader does; the decoder's memory bounded. */
static int module_decoder(const uint8_t *buf, size_t len, enum kt_modsig_comp comp, size_t max,
                          struct kt_decoder **dec, struct kt_error *err)
{
    struct kt_decompress_opts o = {
        .flags = comp == KT_MODSIG_GZIP ? 0 : KT_DECOMPRESS_CONCAT,
        .what = "module",
        .mem_limit = KT_MODSIG_DECODER_MEM,
    };
    return kt_decoder_new((enum kt_comp)comp, buf, len, 0, max ? max : KT_MODSIG_MAX_DECOMPRESSED,
                          &o, dec, err);
}

/* Room for the next piece: the buffer doubled up to KT_MODSIG_WHOLE_MAX, then
 * only its last KT_MODSIG_TAIL_MAX bytes kept. */
static int make_room(uint8_t **b, size_t *cap, size_t *n, struct kt_error *err)
{
    if (*n < *cap)
        return 0;
    if (*cap < KT_MODSIG_WHOLE_MAX) {
        size_t ncap = *cap * 2 > KT_MODSIG_WHOLE_MAX ? KT_MODSIG_WHOLE_MAX : *cap * 2;
        uint8_t *nb = realloc(*b, ncap);
        if (!nb)
            return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
        *b = nb;
        *cap = ncap;
        return 0;
    }
    memmove(*b, *b + *n - KT_MODSIG_TAIL_MAX, KT_MODSIG_TAIL_MAX);
    *n = KT_MODSIG_TAIL_MAX;
    return 0;
}

int kt_modsig_load(const uint8_t *buf, size_t len, struct kt_modsig_payload *pl,
                   enum kt_modsig_comp *comp, struct kt_error *err)
{
    *pl = (struct kt_modsig_payload){buf, len, len, NULL};
    *comp = kt_modsig_detect(buf, len);
    if (*comp == KT_MODSIG_NONE)
        return 0;
    struct kt_decoder *dec;
    int rc = module_decoder(buf, len, *comp, 0, &dec, err);
    if (rc < 0)
        return rc;
    size_t cap = (size_t)256 << 10, n = 0, got = 0;
    uint8_t *b = malloc(cap);
    if (!b)
        rc = kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    while (rc == 0 && (rc = make_room(&b, &cap, &n, err)) == 0 &&
           (rc = kt_decoder_read(dec, b + n, cap - n, &got, err)) == 0 && got)
        n += got;
    size_t total = kt_decoder_total(dec);
    kt_decoder_free(dec);
    if (rc < 0) {
        free(b);
        return rc;
    }
    *pl = (struct kt_modsig_payload){b, n, total, b};
    return 0;
}

int kt_modsig_digest_stream(const uint8_t *buf, size_t len, enum kt_modsig_comp comp, size_t n,
                            const enum kt_hash *hashes, size_t nh,
                            uint8_t out[][KT_HASH_MAX_SIZE], const struct kt_modsig_whole *whole,
                            struct kt_error *err)
{
    struct kt_decoder *dec = NULL;
    struct kt_digester *dg = NULL;
    size_t cap = (size_t)256 << 10, got = 0, done = 0;
    uint8_t *b = malloc(cap);
    int rc = b ? kt_digester_new(&dg, hashes, nh) : -ENOMEM;
    if (rc < 0)
        rc = kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    else
        rc = module_decoder(buf, len, comp, n + 1, &dec, err);
    while (rc == 0 && done < n) {
        size_t want = n - done < cap ? n - done : cap;
        if ((rc = kt_decoder_read(dec, b, want, &got, err)) < 0)
            break;
        if (!got)
            rc = kt_fail(err, -EBADMSG, KT_NO_OFFSET, "module: shorter when decoded again");
        kt_digester_update(dg, b, got);
        done += got;
    }
    if (rc == 0 && whole &&
        (rc = kt_digester_final_more(dg, whole->i, whole->tail, whole->tail_len, whole->out)) < 0)
        rc = kt_fail(err, rc, KT_NO_OFFSET, "digest of the module failed");
    if (rc == 0 && (rc = kt_digester_final(dg, out)) < 0)
        rc = kt_fail(err, rc, KT_NO_OFFSET, "digest of the content failed");
    kt_digester_free(dg);
    kt_decoder_free(dec);
    free(b);
    return rc;
}
