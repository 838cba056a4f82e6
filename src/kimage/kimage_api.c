/* kimage_api.c - a kernel image's builtin keys for ktrust/advanced.h. */
#include "kimage/kimage.h"

struct tramp {
    kt_cert_cb cb;
    void *ctx;
    enum kt_kimage_comp comp;
    const char **comp_name;
};

/* The compression is known before the first certificate: name it for cb. */
static int each(void *vctx, const uint8_t *der, size_t len, size_t file_offset)
{
    struct tramp *t = vctx;
    if (t->comp_name)
        *t->comp_name = kt_kimage_comp_name(t->comp);
    return t->cb(t->ctx, der, len, file_offset);
}

int kt_kernel_certs_foreach(const uint8_t *img, size_t len, size_t max_out, kt_cert_cb cb,
                            void *ctx, const char **comp, struct kt_error *err)
{
    struct tramp t = {.cb = cb, .ctx = ctx, .comp = KT_KIMAGE_NONE, .comp_name = comp};
    int rc = kt_kimage_foreach_cert_ex(img, len, max_out, each, &t, &t.comp, err);
    if (comp)
        *comp = kt_kimage_comp_name(t.comp);
    return rc;
}
