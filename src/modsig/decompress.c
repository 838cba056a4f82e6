/* Compressed modules: the kernel's module formats (xz, zstd, gzip) on top of
 * the shared decompressor (compress/compress.h). */
#include "modsig/modsig.h"

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
    };
    int rc = kt_decompress_ex((enum kt_comp)*comp, buf, len, 0,
                              max ? max : KT_MODSIG_MAX_DECOMPRESSED, &o, owned, out_len, err);
    *out = *owned;
    return rc;
}
