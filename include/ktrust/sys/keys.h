/* ktrust/sys/keys.h - the advanced tier: keys and keyrings beyond the stable API (key files, ids, restrictions, export, the blacklist's hashes, a kernel image's builtin keys).
 *
 * What the ktrust program needs beyond the stable API (ktrust.h), declared
 * and exported so that it (and any program that wants to do what it does)
 * needs no header from src/.  It may change between releases (a changed
 * signature is listed in the release notes, never changed silently), so a
 * program says that it accepts this by defining KT_ADVANCED_API before
 * including it (zstd's ZSTD_STATIC_LINKING_ONLY, libgit2's git2/sys/). */
#ifndef KTRUST_SYS_KEYS_H
#define KTRUST_SYS_KEYS_H

#ifndef KT_ADVANCED_API
#error "ktrust/sys/keys.h is ktrust's advanced tier (it may change between releases): #define KT_ADVANCED_API before including it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"
#include "ktrust/keyring.h"
#include "ktrust/span.h"
#include "ktrust/verify.h"
#include "ktrust/x509.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a file given where certificates (or a kernel) are wanted is
 * instead: "a PE image", "a kernel module", "an empty file", "an ELF file",
 * "a binary file of another kind" ...; NULL for certificates, ESLs and text
 * (a broken one gets its parser's own error).  name: the file's name. */
KT_API const char *kt_ctx_wrong_kind(const uint8_t *p, size_t n, const char *name);

/* The builtin trusted keys compiled into a kernel image (bzImage with any
 * kernel compression, EFI zboot, a compressed vmlinux stream, or vmlinux):
 * cb gets each certificate of the list (der lives only during the call;
 * file_offset is in the decompressed vmlinux), once the answer is certain.
 * max_out bounds the decoded size (0: the default, 512 MiB); *comp (may
 * be NULL) is the payload's compression ("none", "gzip", "xz", "lzma",
 * "zstd", "lz4"), set once the header is read, also when an error follows.
 * Errors: -ENODATA (no builtin certificate list), -EBADMSG (not a kernel
 * image, corrupt stream; with the offset), -ENOPKG (an unsupported
 * compression or boot protocol), -E2BIG (over max_out: a bomb), -ENOMEM,
 * cb's negative result. */
KT_API int kt_kernel_certs_foreach(const uint8_t *img, size_t len, size_t max_out,
                                   kt_cert_cb cb, void *ctx, const char **comp,
                                   struct kt_error *err);

/* The keyring commands.  Add the keys of one file (certificates, a bundle,
 * a list, an EFI signature list, a signed update) to ring r, flagged
 * ephemeral (never saved) when run_only; source is "file:PATH"; *n_added
 * may be NULL.  Errors: the file's, the parser's, the keyring's. */
KT_API int kt_ctx_add_key_file(struct kt_keyrings *k, struct kt_keyring *r, const char *path,
                               enum kt_add_how how, bool run_only, size_t *n_added,
                               struct kt_error *err);
/* Does id match key?  id: its description, or hex (optionally "ab:cd",
 * "id:" partial, "ex:" exact) of its SKID, serial, SHA-256 or the kernel's
 * id 0 (serial then raw issuer), with the kernel's trailing-part matching. */
KT_API bool kt_key_matches_id(const struct kt_key *key, const char *id);
/* When the key was added (seconds since the epoch). */
KT_API int64_t kt_key_added(const struct kt_key *key);
/* Parse "none" | "trusted-only" | "signed-by:A[,B...]" (vouchers are
 * pointers into a malloc'd copy *store_buf the caller frees).  -EINVAL. */
KT_API int kt_restriction_parse(const char *s, enum kt_restrict *r, char **store_buf,
                                const char **vouchers, size_t cap, size_t *n_vouchers);

/* A keyring as one file, as `keyring export` writes it. */
enum kt_export_format {
    KT_EXPORT_PEM = 0,
    KT_EXPORT_DER, /* the certificates back to back (the kernel's list format) */
    KT_EXPORT_ESL, /* one EFI_CERT_X509 list; the blacklist adds one list per
                    * hash type (bin: sha256, tbs: x509_sha256/384/512) */
};
/* "pem", "der", "esl" to the format; -EINVAL for another name. */
KT_API int kt_export_format_parse(const char *name, enum kt_export_format *out);
/* The keys of r (in order), in format f, into a new buffer *out (*len bytes;
 * NULL when empty; free() it).  *n_hashes (may be NULL) counts the
 * blacklisted hashes written (ESL of the blacklist only).  -ENOMEM. */
KT_API int kt_keyring_export(const struct kt_keyrings *k, const struct kt_keyring *r,
                             enum kt_export_format f, uint8_t **out, size_t *len,
                             size_t *n_hashes);

/* The blacklist's hashes (besides its certificates), in add order. */
struct kt_blacklist_hash;
KT_API size_t kt_blacklist_hash_count(const struct kt_keyrings *k);
KT_API const struct kt_blacklist_hash *kt_blacklist_hash_at(const struct kt_keyrings *k,
                                                            size_t i);
/* "bin" (an image hash) or "tbs" (a certificate's TBS hash) */
KT_API const char *kt_blacklist_hash_kind(const struct kt_blacklist_hash *b);
/* "sha256", "sha384", "sha512" ... */
KT_API const char *kt_blacklist_hash_algorithm(const struct kt_blacklist_hash *b);
KT_API const uint8_t *kt_blacklist_hash_digest(const struct kt_blacklist_hash *b, size_t *len);
/* Where it came from ("file:PATH", "store" ...), or NULL. */
KT_API const char *kt_blacklist_hash_source(const struct kt_blacklist_hash *b);
/* Remove blacklist hashes named "bin:HEX" or "tbs:HEX" (the kernel's
 * blacklist key descriptions; the digest's length picks the algorithm).
 * Returns the count removed (0 or 1) or -EINVAL for a malformed id. */
KT_API int kt_blacklist_remove_hash(struct kt_keyrings *k, const char *id);

#ifdef __cplusplus
}
#endif
#endif
