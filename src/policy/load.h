/* load.h - keys from blobs: certificate files and lists, EFI signature
 * lists, kernel images. */
#ifndef KT_POLICY_LOAD_H
#define KT_POLICY_LOAD_H

#include "policy/restrict.h"

/* kt_keyrings_add_blob: ktrust/keyring.h.  In detail: ESL X509 entries
 * become keys in r (revocation certificates when r is the blacklist); when r
 * is the blacklist (dbx, MokListXRT), SHA256 entries become bin: hashes and
 * X509_SHA256/384/512 entries tbs: hashes; in any other keyring (db,
 * MokListRT: allow lists) hash entries are ignored, as the kernel does.  A
 * certificate already in r is skipped (not counted); entries get "#N"
 * appended to source.  Keys added before a failure stay in memory (the
 * store makes a command all-or-nothing).  Error offsets are offsets into
 * buf. */

/* kt_keyrings_add_blob, but a certificate that cannot be added (the strict
 * parser refuses it, it is blacklisted ...) is passed to skip (1-based index among
 * the blob's certificates, its bytes, why) and the rest are added; fails
 * with the first reason only when every certificate was skipped.  For
 * run-only trust bundles such as a distribution's CA list. */
typedef void (*kt_skip_cb)(void *ctx, size_t index, const uint8_t *der, size_t len,
                           const struct kt_error *why);
/* kt_keyrings_add_blob with KT_ADD_EXPLICIT, for signature lists into the
 * blacklist: their hashes are indexed where they lie in buf
 * (kt_blacklist_add_index: no copy), so buf must stay valid as long as k. */
int kt_keyrings_add_blob_indexed(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *buf,
                                 size_t len, const char *source, struct kt_error *err);

int kt_keyrings_add_blob_skip(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *buf,
                              size_t len, const char *source, enum kt_add_how how,
                              size_t *n_added, kt_skip_cb skip, void *skip_ctx,
                              struct kt_error *err);

/* kt_keyrings_add_kernel_keys (ktrust/keyring.h) reads the image with
 * kt_kimage_foreach_cert; the keys are explicit and trusted, and one that
 * does not load is skipped, as the kernel skips it. */

/* The idx-th certificate of kernel image `source`'s list into builtin, as
 * kt_keyrings_add_kernel_keys adds each one (source "kernel:SOURCE#IDX");
 * false when it is skipped (already there, or a key the kernel would not
 * load). */
bool kt_keyrings_add_kernel_cert(struct kt_keyrings *k, const uint8_t *der, size_t len,
                                 const char *source, size_t idx, bool ephemeral);

#endif
