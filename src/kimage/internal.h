/* internal.h - kimage's private pieces shared by decompress.c and scan.c. */
#ifndef KT_KIMAGE_INTERNAL_H
#define KT_KIMAGE_INTERNAL_H

#include <stdbool.h>

#include "kimage/kimage.h"

/* Find the payload in img (bzImage, EFI zboot, a bare compressed stream, an
 * ELF vmlinux or a raw Image): *payload / *payload_len point into img at
 * *payload_off, *container tells a bzImage/zboot payload (which ends with
 * the kernel's 4-byte size), *comp its compression (KT_COMP_NONE: the
 * payload is the vmlinux).  Errors as kt_kimage_vmlinux's header errors. */
int kt_kimage_locate(const uint8_t *img, size_t len, const uint8_t **payload,
                     size_t *payload_len, size_t *payload_off, bool *container,
                     enum kt_comp *comp, struct kt_error *err);

#endif
