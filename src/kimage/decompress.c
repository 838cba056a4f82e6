/* decompress.c - find and inflate the vmlinux inside a kernel image.
 *
 * x86 bzImage: the real-mode setup header carries "HdrS" at 0x202, the
 * boot protocol version at 0x206 (payload fields need >= 2.08),
 * setup_sects at 0x1f1 (0 means 4), payload_offset / payload_length at
 * 0x248 / 0x24c, the offset counted from the protected-mode code, which
 * starts after the (setup_sects + 1) * 512 bytes of setup.  EFI zboot images
 * (arm64, riscv, loongarch vmlinuz.efi) carry "zimg" at 4 and the payload's
 * offset/size at 8/12.  The payload is a compressed stream followed by the
 * kernel's 4-byte size trailer, which the decoders stop short of
 * (compress/compress.h does the decoding). */
#include "kimage/internal.h"
#include "kimage/kimage.h"
#include "util/le.h"

#include <stdlib.h>
#include <string.h>

const char *kt_kimage_comp_name(enum kt_kimage_comp c)
{
    return kt_comp_name((enum kt_comp)c);
}

/* Identify a payload by its magic: a compressed stream or an ELF vmlinux. */
static int sniff(const uint8_t *p, size_t len, enum kt_comp *c)
{
    *c = kt_comp_sniff(p, len);
    if (*c != KT_COMP_NONE || (len >= 4 && !memcmp(p, "\x7f" "ELF", 4)))
        return 0;
    return -1;
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

/* Are the n bytes at off the given magic? */
static bool magic_at(const kt_le *whole, size_t off, const char *magic, size_t n)
{
    kt_le w;
    return kt_le_window(whole, off, n, &w, NULL) == 0 && !memcmp(w.p, magic, n);
}

/* An x86 bzImage's payload: 1 with *w over it, 0 when this is no bzImage
 * (no "HdrS" setup header), or an error. */
static int locate_bzimage(const kt_le *whole, kt_le *w, struct kt_error *err)
{
    kt_le hdr;
    uint8_t setup_sects;
    uint16_t version;
    uint32_t poff, plen;
    if (kt_le_window(whole, 0, 0x250, &hdr, NULL) < 0 || !magic_at(whole, 0x202, "HdrS", 4))
        return 0;
    kt_le_seek(&hdr, 0x1f1, NULL);
    kt_le_u8(&hdr, &setup_sects, NULL);
    kt_le_seek(&hdr, 0x206, NULL);
    kt_le_u16(&hdr, &version, NULL);
    if (version < 0x208)
        return kt_fail(err, -ENOPKG, 0x206,
                       "bzImage: boot protocol %u.%02u has no payload fields (need 2.08)",
                       version >> 8, version & 0xff);
    kt_le_seek(&hdr, 0x248, NULL);
    kt_le_u32(&hdr, &poff, NULL); /* payload_offset */
    kt_le_u32(&hdr, &plen, NULL); /* payload_length */
    size_t pm = ((size_t)(setup_sects ? setup_sects : 4) + 1) * 512;
    if (kt_le_window(whole, pm + poff, plen, w, NULL) < 0 || plen == 0)
        return kt_fail(err, -EBADMSG, 0x248,
                       "bzImage: payload (offset %zu + %zu, length %zu) lies outside the "
                       "%zu-byte file",
                       pm, (size_t)poff, (size_t)plen, kt_le_left(whole));
    return 1;
}

/* An EFI zboot image's payload: 1 with *w over it, 0 when this is no zboot
 * image ("MZ", then "zimg" at 4), or an error. */
static int locate_zboot(const kt_le *whole, kt_le *w, struct kt_error *err)
{
    kt_le hdr;
    uint32_t poff, plen;
    if (kt_le_window(whole, 0, 0x40, &hdr, NULL) < 0 || !magic_at(whole, 0, "MZ", 2) ||
        !magic_at(whole, 4, "zimg", 4))
        return 0;
    kt_le_seek(&hdr, 8, NULL);
    kt_le_u32(&hdr, &poff, NULL);
    kt_le_u32(&hdr, &plen, NULL);
    if (kt_le_window(whole, poff, plen, w, NULL) < 0 || plen == 0)
        return kt_fail(err, -EBADMSG, 8,
                       "zboot image: payload (offset %zu, length %zu) lies outside the "
                       "%zu-byte file",
                       (size_t)poff, (size_t)plen, kt_le_left(whole));
    return 1;
}

/* What a file without a container or compressed stream is: a raw kernel
 * Image (arm64 "ARM\x64" at 0x38, riscv "RSC\x05" at 0x34, uncompressed and
 * scanned as it is: 0), an unsupported compression or not a kernel. */
static int classify_raw(const kt_le *whole, struct kt_error *err)
{
    if ((kt_le_left(whole) >= 0x40 && magic_at(whole, 0x38, "ARM\x64", 4)) ||
        (kt_le_left(whole) >= 0x40 && magic_at(whole, 0x34, "RSC\x05", 4)))
        return 0;
    if (magic_at(whole, 0, "BZh", 3) || magic_at(whole, 0, "\x89LZO", 4))
        return unsupported_magic(whole->p, kt_le_left(whole), 0, err);
    return kt_fail(err, -EBADMSG, 0,
                   "not a kernel image: no bzImage setup header, ELF header or known "
                   "compression magic");
}

int kt_kimage_locate(const uint8_t *img, size_t len, const uint8_t **payload,
                     size_t *payload_len, size_t *payload_off, bool *container,
                     enum kt_comp *comp, struct kt_error *err)
{
    *payload = NULL;
    *payload_len = *payload_off = 0;
    *container = false;
    *comp = KT_COMP_NONE;
    kt_le whole, w;
    kt_le_init(&whole, img, len, NULL); /* img NULL: empty */
    int cont = locate_bzimage(&whole, &w, err);
    if (cont == 0)
        cont = locate_zboot(&whole, &w, err);
    if (cont < 0)
        return cont;
    if (!cont)
        w = whole;

    enum kt_comp c;
    if (sniff(w.p, w.len, &c) < 0) {
        if (cont)
            return unsupported_magic(w.p, w.len, kt_le_offset(&w), err);
        KT_TRY(classify_raw(&whole, err));
        c = KT_COMP_NONE;
    }
    *payload = w.p;
    *payload_len = w.len;
    *payload_off = kt_le_offset(&w);
    *container = cont;
    *comp = c;
    return 0;
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
    if (!max_out)
        max_out = KT_KIMAGE_MAX_VMLINUX;
    const uint8_t *pl;
    size_t pl_len, pl_off;
    bool container;
    enum kt_comp c;
    KT_TRY(kt_kimage_locate(img, len, &pl, &pl_len, &pl_off, &container, &c, err));
    if (comp)
        *comp = (enum kt_kimage_comp)c;
    if (c == KT_COMP_NONE) {
        *vmlinux = pl;
        *vmlinux_len = pl_len;
        return 0;
    }

    struct kt_decompress_opts o = {.what = "vmlinux"};
    /* The kernel appends the uncompressed size as a u32: a hint for the
     * first allocation when it is sane. */
    kt_le payload, trailer;
    uint32_t hint;
    kt_le_init(&payload, pl, pl_len, NULL);
    if (container && pl_len >= 8 && kt_le_window(&payload, pl_len - 4, 4, &trailer, NULL) == 0 &&
        kt_le_u32(&trailer, &hint, NULL) == 0 && hint > 0 && hint <= max_out &&
        hint <= (pl_len + 64) * 64)
        o.size_hint = hint;
    size_t out_len;
    int rc = kt_decompress_ex(c, pl, pl_len, pl_off, max_out, &o, owned, &out_len, err);
    if (rc < 0)
        return rc;
    *vmlinux = *owned;
    *vmlinux_len = out_len;
    return 0;
}
