/* A kernel image's compiled-in keys into the builtin keyring. */
#include <stdio.h>

#include "kimage/kimage.h"
#include "policy/load.h"

struct kernel_ctx {
    struct kt_keyrings *k;
    const char *source;
    bool ephemeral;
    size_t n, seen;
};

bool kt_keyrings_add_kernel_cert(struct kt_keyrings *k, const uint8_t *der, size_t len,
                                 const char *source, size_t idx, bool ephemeral)
{
    char src[4096];
    snprintf(src, sizeof(src), "kernel:%s#%zu", source ? source : "", idx);
    struct kt_error e = KT_ERROR_INIT;
    const struct kt_key *key = NULL;
    int rc = kt_keyring_add(k, kt_keyrings_get(k, "builtin"), der, len, src, KT_ADD_EXPLICIT,
                            &key, &e);
    if (rc < 0) /* already there, or the kernel would skip a key it cannot load: so do we */
        return false;
    if (ephemeral)
        kt_key_set_ephemeral(key, true);
    return true;
}

static int kernel_key(void *vctx, const uint8_t *der, size_t len, size_t off)
{
    struct kernel_ctx *c = vctx;
    (void)off;
    if (kt_keyrings_add_kernel_cert(c->k, der, len, c->source, c->seen++, c->ephemeral))
        c->n++;
    return 0;
}

int kt_keyrings_add_kernel_keys(struct kt_keyrings *k, const uint8_t *img, size_t len,
                                const char *source, bool ephemeral, size_t *n_added,
                                struct kt_error *err)
{
    struct kernel_ctx c = {k, source ? source : "", ephemeral, 0, 0};
    int rc = kt_kimage_foreach_cert(img, len, kernel_key, &c, err);
    if (n_added)
        *n_added = c.n;
    return rc < 0 ? rc : 0;
}
