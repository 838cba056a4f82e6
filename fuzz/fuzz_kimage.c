/* fuzz_kimage.c - kernel images: setup header, decompressors (with a small
 * output limit so bombs stay cheap) and the certificate-list scanner, both
 * over a whole decoded vmlinux and through the streaming window that
 * --kernel uses. */
#include <stdint.h>
#include <stdlib.h>

#include "kimage/kimage.h"

static int check_stream(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    (void)ctx, (void)off;
    if (len == 0 || der[0] != 0x30)
        abort(); /* only whole DER SEQUENCEs are handed out */
    volatile uint8_t last = der[len - 1]; /* ASan: the bytes must be readable */
    (void)last;
    return 0;
}

static int check(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    size_t *vlen = ctx;
    if (len == 0 || off + len > *vlen)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *v;
    size_t vlen;
    uint8_t *own;
    enum kt_kimage_comp comp;
    struct kt_error e = {0};
    if (kt_kimage_vmlinux(data, size, (size_t)4 << 20, &v, &vlen, &own, &comp, &e) == 0) {
        kt_kimage_scan_vmlinux(v, vlen, check, &vlen, &e);
        free(own);
    } else if (e.what[0] == 0) {
        abort();
    }
    struct kt_error se = {0};
    int rc = kt_kimage_foreach_cert_ex(data, size, (size_t)4 << 20, check_stream, NULL, &comp, &se);
    if (rc < 0 && se.what[0] == 0)
        abort(); /* every failure explains itself */
    return 0;
}
