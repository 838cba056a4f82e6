/* kimage.h - kernel images: bzImage -> decompressed vmlinux -> the builtin
 * certificate list (the keys the kernel compiled into .builtin_trusted_keys).
 *
 * Inputs: an x86 bzImage (setup header "HdrS"; payload compressed with gzip,
 * xz, lzma, zstd or lz4), a raw vmlinux ELF, or any of these compressed
 * streams on their own.  No System.map needed.
 *
 * Finding the list inside vmlinux (details and limits in scan.c): runs of
 * structurally valid DER certificates lying back to back are candidates; a
 * run is reported only when it is followed (after zero padding / the extra
 * certificate area) by a size word equal to its length, as the build's
 * system_certificate_list_size variable is; a run also followed by
 * module_cert_size wins.  Random certificates elsewhere in the image are not
 * followed by their own size and are never reported.
 */
#ifndef KT_KIMAGE_KIMAGE_H
#define KT_KIMAGE_KIMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "compress/compress.h"
#include "util/err.h"
#include "x509/x509.h" /* kt_cert_cb */

/* Upper bound for a decompressed vmlinux (a decompression bomb beyond this
 * fails with -E2BIG and a clear message). */
#define KT_KIMAGE_MAX_VMLINUX ((size_t)512 << 20)

/* The payload compressions: the shared enum kt_comp under kimage names. */
enum kt_kimage_comp {
    KT_KIMAGE_NONE = KT_COMP_NONE, /* raw vmlinux / ELF */
    KT_KIMAGE_GZIP = KT_COMP_GZIP,
    KT_KIMAGE_XZ = KT_COMP_XZ,
    KT_KIMAGE_LZMA = KT_COMP_LZMA,
    KT_KIMAGE_ZSTD = KT_COMP_ZSTD,
    KT_KIMAGE_LZ4 = KT_COMP_LZ4,
};

/* "none", "gzip", "xz", "lzma", "zstd", "lz4" (kt_comp_name) */
const char *kt_kimage_comp_name(enum kt_kimage_comp c);

/* The Linux release an x86 bzImage's setup header names (KT_LINUX(6, 1)
 * for "6.1.0-57-amd64 ..."), 0 when img is no bzImage or names none.  A UKI
 * is read through its .linux. */
unsigned kt_kimage_linux_version(const uint8_t *img, size_t len);

/* What a kernel image's version string says about its build: the release,
 * and whose build it is (a distribution's patches change trust rules:
 * policy/distro.h decides which).  All zero / "" when it says nothing. */
#define KT_KIMAGE_BANNER_MAX 255
struct kt_kimage_build {
    unsigned linux_version;               /* KT_LINUX, 0 unknown */
    char banner[KT_KIMAGE_BANNER_MAX + 1]; /* the version string, printable */
    char debian_version[48];              /* a Debian build's package version
                                           * ("6.1.192-3"), else "" */
};
void kt_kimage_build_of(const uint8_t *img, size_t len, struct kt_kimage_build *b);

/* Locate and decompress the vmlinux in img (bzImage, EFI zboot, a bare
 * compressed stream, or already a vmlinux / raw Image).  On success
 * *vmlinux / *vmlinux_len is the uncompressed kernel and *owned the malloc'd
 * buffer behind it, which the caller frees; for uncompressed input no copy
 * is made: *owned is NULL and *vmlinux points into img.  Usage:
 *   const uint8_t *v; size_t vlen; uint8_t *own;
 *   rc = kt_kimage_vmlinux(img, len, 0, &v, &vlen, &own, &comp, err); ... free(own);
 * max_out 0 means KT_KIMAGE_MAX_VMLINUX; comp may be NULL.
 * Errors: -EBADMSG (not a kernel image; corrupt or truncated stream; setup
 * header fields outside the file; with the offset), -ENOPKG (bzip2, lzo,
 * an unknown payload magic, boot protocol < 2.08, unsupported xz/lzma
 * options), -E2BIG (output over max_out, or a decoder needing more than
 * 256 MiB: a bomb), -ENOMEM. */
int kt_kimage_vmlinux(const uint8_t *img, size_t len, size_t max_out,
                      const uint8_t **vmlinux, size_t *vmlinux_len, uint8_t **owned,
                      enum kt_kimage_comp *comp, struct kt_error *err);

/* Find the builtin certificate list in an (uncompressed) vmlinux and call
 * fn for each certificate (der, len, offset in vmlinux).  Returns 1 when a
 * list was found, 0 when none was (fn not called), or fn's negative result. */
int kt_kimage_scan_vmlinux(const uint8_t *vmlinux, size_t len, kt_cert_cb cb, void *ctx,
                           struct kt_error *err);

/* The builtin certificate list of a kernel image: what kt_kimage_vmlinux +
 * kt_kimage_scan_vmlinux find, streaming: the payload is decoded piece by
 * piece into a window of a few MiB (not the whole vmlinux) and decoding
 * stops once the list and its size words are seen, so a stream damaged after
 * the list still yields it.  fn is called only once the answer is certain
 * (never for a list that a later error would have hidden).  The der passed
 * to fn lives only during the call (copy what you keep); file_offset is the
 * offset in the decompressed vmlinux.  Errors as kt_kimage_vmlinux (max_out
 * counting the bytes decoded before the list is found), -ENODATA when the
 * image holds no builtin certificate list, or fn's negative result. */
int kt_kimage_foreach_cert(const uint8_t *img, size_t len, kt_cert_cb cb, void *ctx,
                           struct kt_error *err);

/* kt_kimage_foreach_cert with a decoded-size limit (max_out 0:
 * KT_KIMAGE_MAX_VMLINUX) and the payload's compression (*comp; comp may be
 * NULL), set once the header is read, also when an error follows. */
int kt_kimage_foreach_cert_ex(const uint8_t *img, size_t len, size_t max_out, kt_cert_cb cb,
                              void *ctx, enum kt_kimage_comp *comp, struct kt_error *err);

#endif
