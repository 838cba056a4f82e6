/* ktrust/update.h - would a dbx update and/or an SbatLevel revoke a boot
 * binary?  (`check-update`, and the outlook of `audit`.)
 *
 * The boot engine answers (ktrust/chain.h, kt_chain_link's db and dbx):
 * firmware's rule (EDK2 DxeImageVerificationLib, IsForbiddenByDbx): an
 * image is forbidden when its Authenticode hash, in any algorithm the dbx
 * holds, is an image entry, or when a certificate of a top-level
 * signature's chain from its signer is an X509 entry (whole DER, or the
 * one that issued it) or an X509_SHA256/384/512 entry (hash of its
 * TBSCertificate).  shim adds the SbatLevel rule.
 *
 *   struct kt_update_check *u;
 *   kt_update_check_new(&u);
 *   kt_update_check_add_dbx(u, buf, len, "DBXUpdate.bin", &err);   any number
 *   kt_update_check_set_level(u, level);                             optional
 *   kt_update_check_file(u, "EFI/debian/grubx64.efi", &v);
 *   ... v.n reasons ...; kt_update_verdict_free(&v);
 *   kt_update_check_free(u);
 */
#ifndef KTRUST_UPDATE_H
#define KTRUST_UPDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/chain.h"
#include "ktrust/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kt_update_check;
struct kt_sbat_level;

/* enum kt_revoke_by: ktrust/chain.h (the chain's reasons) */

/* One reason an image would be revoked. */
struct kt_update_reason {
    enum kt_revoke_by by;
    char detail[400];     /* "sha256 image hash 80b4...", "certificate CN=...", "grub 4 < 5 (level ...)" */
    char *description;    /* what Microsoft's dbx_info says of the entry, or NULL (owned) */
};

/* What an update would do to one image. */
struct kt_update_verdict {
    int rc;                        /* 0 checked; else why not (-ELIBBAD, -EBADMSG, -ENOENT ...) */
    struct kt_error error;         /* ... in words */
    struct kt_update_reason *reasons; /* owned */
    size_t n;                      /* 0: still boots */
    bool sbat_missing;             /* a level was given and the image has no .sbat */
    bool pe32plus;
    int db;                        /* -1 no db given; 1 a db certificate vouches; 0 none does */
    char db_by[320];               /* that certificate's description ("" none) */
    uint16_t machine;              /* the PE's machine type (0x8664 x64, 0xaa64 ...) */
};

KT_API int kt_update_check_new(struct kt_update_check **out);
KT_API void kt_update_check_free(struct kt_update_check *u);

/* The entries of a dbx input: a signed update, an EFI signature list or an
 * efivarfs dump; several combine.  source is kept by pointer (it names the
 * input in the reasons).  Errors: -EBADMSG (with offset), -ENOMEM. */
KT_API int kt_update_check_add_dbx(struct kt_update_check *u, const uint8_t *buf, size_t len,
                                   const char *source, struct kt_error *err);
/* kt_update_check_add_dbx of a file (`-`: standard input), held open until
 * kt_update_check_free instead of copied: a dbx of a million hashes costs
 * its size and 4 bytes an entry (#32).  path is kept by pointer.  Errors:
 * as kt_update_check_add_dbx, and the file's (-ENOENT ...). */
KT_API int kt_update_check_add_dbx_file(struct kt_update_check *u, const char *path,
                                        struct kt_error *err);
/* Image hashes and certificates the dbx inputs hold (SVN records aside). */
KT_API size_t kt_update_check_dbx_entries(const struct kt_update_check *u);
/* The SbatLevel to check against (copied); NULL: none. */
KT_API int kt_update_check_set_level(struct kt_update_check *u, const struct kt_sbat_level *level,
                                     struct kt_error *err);
/* db lists: whether a db certificate vouches for each image (dates
 * ignored, as firmware).  Certificates or signature lists. */
KT_API int kt_update_check_add_db(struct kt_update_check *u, const uint8_t *buf, size_t len,
                                  struct kt_error *err);
/* Microsoft's dbx_info_msft_latest.json, to describe the entries found. */
KT_API int kt_update_check_set_dbx_info(struct kt_update_check *u, const uint8_t *buf, size_t len,
                                        struct kt_error *err);

/* Check one image in memory.  Returns v->rc; free v with
 * kt_update_verdict_free whatever it returns. */
KT_API int kt_update_check_image(const struct kt_update_check *u, const uint8_t *buf, size_t len,
                                 struct kt_update_verdict *v);
/* Check one file: v->rc (a file that cannot be read is its error).  With
 * KT_UPDATE_BOOT_FILES, a file that is neither a PE by its MZ header nor
 * named *.efi is no boot binary: 1 (skipped, v untouched); so is one that
 * cannot be read unless it is named *.efi. */
#define KT_UPDATE_BOOT_FILES 1u
KT_API int kt_update_check_file(const struct kt_update_check *u, const char *path,
                                unsigned flags, struct kt_update_verdict *v);
KT_API void kt_update_verdict_free(struct kt_update_verdict *v);

/* A PE machine type in the words of Microsoft's dbx_info ("x64" 0x8664,
 * "ia32" 0x14c, "aarch64" 0xaa64, "arm" 0x1c2/0x1c4), or NULL. */
KT_API const char *kt_update_arch_name(uint16_t machine);

/* Which architecture is a dbx update for?  The image hashes of a dbx say
 * nothing of it themselves; Microsoft's dbx_info (set with
 * kt_update_check_set_dbx_info) lists each published hash under an
 * architecture.  Given the machine types of the images checked, this counts
 * the dbx inputs' image hashes dbx_info lists for those architectures, for
 * others only, and not at all.  Certificates and SVN records belong to no
 * architecture and are not counted. */
struct kt_update_arch_note {
    int other_arch;        /* 1: dbx_info lists some of the hashes, all of them for other
                            * architectures than the images': the update is not for
                            * them; 0: some hash is listed for an image's architecture;
                            * -1: cannot tell (no dbx_info, no image hash, or dbx_info
                            * lists none of them) */
    char update_arches[64];  /* where dbx_info lists the hashes: "ia32", "aarch64, arm" */
    char image_arches[64];   /* the images' architectures: "x64" ("" none known) */
    size_t hashes;           /* image hashes in the dbx inputs */
    size_t for_images;       /* ... that dbx_info lists for an image's architecture */
    size_t for_others;       /* ... listed for other architectures only */
    size_t unlisted;         /* ... that dbx_info does not list (any architecture) */
};
KT_API void kt_update_check_arch(const struct kt_update_check *u, const uint16_t *machines,
                                 size_t n_machines, struct kt_update_arch_note *note);

/* "image_hash", "certificate", "certificate_tbs", "sbat" */
KT_API const char *kt_revoke_by_name(enum kt_revoke_by by);

#ifdef __cplusplus
}
#endif
#endif
