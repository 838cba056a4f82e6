/* ktrust/keyring.h - keys and keyrings, as the kernel keeps them.
 *
 *     struct kt_keyrings *rings = kt_ctx_keyrings(ctx);   ktrust/verify.h
 *     kt_keyring_add(rings, kt_keyrings_get(rings, "builtin"), der, len,
 *                    "file:ca.der", KT_ADD_EXPLICIT, NULL, &err);
 *     ... verify (kt_verify_buf), list (kt_keyrings_at, kt_keyring_key),
 *     save (kt_ctx_commit of a writer) ...
 *
 * The default keyrings, in order: builtin (trusted-only: what a kernel has
 * compiled in), secondary (signed by builtin, secondary or machine),
 * platform (firmware db, MOK), machine, blacklist (dbx: hashes and revoked
 * certificates).  A key vouches only for the purposes of the keyring that
 * holds it.  Keys and keyrings belong to their kt_keyrings.
 */
#ifndef KTRUST_KEYRING_H
#define KTRUST_KEYRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"
#include "ktrust/x509.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kt_keyrings; /* a run's keyrings (opaque) */
struct kt_keyring;  /* one keyring (opaque) */
struct kt_key;      /* a certificate held as a key (opaque) */

/* What may be linked into a keyring. */
enum kt_restrict {
    KT_RESTRICT_NONE = 0,        /* anything */
    KT_RESTRICT_TRUSTED_ONLY,    /* only keys added explicitly (builtin) */
    KT_RESTRICT_SIGNED_BY,       /* signed by a trusted key of the voucher keyrings */
    KT_RESTRICT_BLACKLIST,       /* the blacklist: hashes and revoked certificates */
};

/* How a key is being added. */
enum kt_add_how {
    KT_ADD_EXPLICIT = 0, /* an operator's add (builtin: "compiled in") */
    KT_ADD_VOUCHED,      /* wrapped in a PE image the caller verified as trusted */
};

/* A keyring by name ("builtin", ".platform", "secondary_trusted_keys" ...),
 * or NULL. */
KT_API struct kt_keyring *kt_keyrings_get(struct kt_keyrings *k, const char *name);
/* The keyrings in the order they were made (the defaults first). */
KT_API size_t kt_keyrings_count(const struct kt_keyrings *k);
KT_API struct kt_keyring *kt_keyrings_at(struct kt_keyrings *k, size_t i);

/* Make a user keyring; vouchers name the keyrings whose keys may sign what
 * is added to a KT_RESTRICT_SIGNED_BY one.  -EEXIST, -EINVAL. */
KT_API int kt_keyring_create(struct kt_keyrings *k, const char *name, enum kt_restrict r,
                             const char *const *vouchers, size_t n_vouchers,
                             struct kt_error *err);
/* Add one DER certificate (copied) to r, obeying its restriction: -EPERM
 * when refused, -EKEYREJECTED when blacklisted, -EEXIST when r holds it
 * already (*added is then that key).  added may be NULL. */
KT_API int kt_keyring_add(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *der,
                          size_t len, const char *source, enum kt_add_how how,
                          const struct kt_key **added, struct kt_error *err);
/* Add every certificate of a blob to r: DER, PEM, a PEM bundle, the
 * kernel's concatenated DER list or EFI signature lists (into the
 * blacklist, an ESL's hashes become blacklisted hashes).  source names the
 * blob ("file:/path").  Stops at the first failure (keys added before it
 * stay).  *n_added (may be NULL) counts what was added. */
KT_API int kt_keyrings_add_blob(struct kt_keyrings *k, struct kt_keyring *r,
                                const uint8_t *buf, size_t len, const char *source,
                                enum kt_add_how how, size_t *n_added, struct kt_error *err);
/* The keys compiled into a kernel image (bzImage or vmlinux), into builtin,
 * as the kernel loads them at boot.  ephemeral: never saved to a store.
 * -ENODATA when the image has no certificate list. */
KT_API int kt_keyrings_add_kernel_keys(struct kt_keyrings *k, const uint8_t *img, size_t len,
                                       const char *source, bool ephemeral, size_t *n_added,
                                       struct kt_error *err);
/* Remove the keys of r that id names (description, or hex of the SKID,
 * serial or SHA-256).  Returns how many, or -errno. */
KT_API int kt_keyring_remove(struct kt_keyrings *k, struct kt_keyring *r, const char *id);

KT_API const char *kt_keyring_name(const struct kt_keyring *r);
KT_API size_t kt_keyring_count(const struct kt_keyring *r);
KT_API const struct kt_key *kt_keyring_key(const struct kt_keyring *r, size_t i);

/* A key's certificate, whether it is trusted, where it came from
 * ("file:/path", "esl:db.esl#3" ...), and the keyring that holds it. */
KT_API const struct kt_x509 *kt_key_cert(const struct kt_key *key);
KT_API bool kt_key_is_trusted(const struct kt_key *key);
KT_API const char *kt_key_source(const struct kt_key *key);
KT_API const struct kt_keyring *kt_key_keyring(const struct kt_key *key);

#ifdef __cplusplus
}
#endif
#endif
