/* keyring.h - keys and keyrings with the kernel's trust semantics.
 *
 * A kt_keyrings is the whole set a run works with: the five default keyrings
 * (builtin, secondary, platform, machine, blacklist) and any the user made.
 * A key is a certificate parsed by kt_x509_parse() over a DER copy the key
 * owns, with the kernel's description and a `trusted` flag.
 *
 * A key becomes trusted in exactly three ways (see CONTRACT.md):
 *   KT_ADD_EXPLICIT into builtin (or platform/machine: firmware/MOK sources),
 *   a verified signature by a key already trusted (restrict-by-signature),
 *   KT_ADD_VOUCHED: the caller verified a PE container that wraps it.
 * Lookups (by SKID, issuer+serial, description) are hash-table backed.
 */
#ifndef KT_KEYRING_KEYRING_H
#define KT_KEYRING_KEYRING_H

#include <stdbool.h>
#include <stdint.h>

#include "crypto/crypto.h"
#include "x509/x509.h"

struct kt_keyring;
struct kt_keyrings;

struct kt_key {
    struct kt_x509 *cert;    /* parsed over der */
    uint8_t *der;            /* owned copy */
    size_t der_len;
    bool trusted;
    char *source;            /* "file:/path", "esl:db.esl#3", "kernel:vmlinuz", "pe:shim.efi" */
    int64_t added;           /* seconds since the epoch */
    const struct kt_keyring *ring;
};

enum kt_restrict {
    KT_RESTRICT_NONE = 0,        /* anything may be linked */
    KT_RESTRICT_TRUSTED_ONLY,    /* seed 005: only keys flagged trusted */
    KT_RESTRICT_SIGNED_BY,       /* restrict_link_by_signature against `vouchers` */
    KT_RESTRICT_BLACKLIST,       /* the blacklist: hashes and revoked certs */
};

/* How a key is being added. */
enum kt_add_how {
    KT_ADD_EXPLICIT = 0, /* an operator's add (builtin: "compiled in") */
    KT_ADD_VOUCHED,      /* wrapped in a PE that verified as trusted */
};

/* Which keyrings may vouch for a signature (mainline verify_pkcs7_signature).
 * A key vouches only for the purposes of the keyring that holds it: user
 * keyrings take part in none, unless a run names them
 * (kt_keyring_set_run_voucher). */
enum kt_purpose {
    KT_PURPOSE_MODULE = 0, /* builtin + secondary + machine: modules, detached PKCS#7 */
    KT_PURPOSE_UEFI,       /* those + platform: PE images as firmware/shim load them */
    KT_PURPOSE_KEXEC,      /* the kernel's kexec rule: secondary (with builtin and
                            * machine), then platform; the PE's first entry only */
    KT_PURPOSE_BUILTIN,    /* builtin only */
};

/* The kernel's key ids (asymmetric_type.c): id0 issuer+serial, id1 the
 * subjectKeyIdentifier, id2 the subject name.  A lookup by ids (the kernel's
 * find_asymmetric_key) searches by id0 when given, else id1, else id2; when
 * both id0 and id1 are given, the key found by id0 must carry id1 too. */
struct kt_key_ids {
    kt_span issuer, serial; /* id0 (both or neither) */
    kt_span skid;           /* id1 */
    kt_span subject;        /* id2: a Name TLV */
};
/* The ids a certificate is known by as a key (id0 its issuer+serial, id1
 * its SKID): "is this certificate itself a trusted key?" */
struct kt_key_ids kt_key_ids_of_cert(const struct kt_x509 *c);
/* The ids a certificate names its signer by: its AKID (id0 the AKID's
 * issuer+serial, id1 its keyIdentifier) and, with_issuer_name, id2 its
 * issuer name (the kernel's restrict_link_by_signature uses id2 when there
 * is no AKID; PKCS#7 trust does not). */
struct kt_key_ids kt_key_ids_of_signer(const struct kt_x509 *c, bool with_issuer_name);
bool kt_key_ids_empty(const struct kt_key_ids *ids);

int kt_keyrings_new(struct kt_keyrings **out);
void kt_keyrings_free(struct kt_keyrings *k);
struct kt_keyring *kt_keyrings_get(struct kt_keyrings *k, const char *name);
/* Create a user keyring. vouchers: names of keyrings for SIGNED_BY. -EEXIST, -EINVAL. */
int kt_keyring_create(struct kt_keyrings *k, const char *name, enum kt_restrict r,
                      const char *const *vouchers, size_t n_vouchers, struct kt_error *err);
const char *kt_keyring_name(const struct kt_keyring *r);
enum kt_restrict kt_keyring_restriction(const struct kt_keyring *r);
size_t kt_keyring_count(const struct kt_keyring *r);
const struct kt_key *kt_keyring_key(const struct kt_keyring *r, size_t i);

/* Add one DER certificate (copied).  Obeys the restriction: -EPERM with a
 * detail when refused; -EKEYREJECTED when blacklisted; -EEXIST if already
 * there (the existing key is returned in *added). added may be NULL. */
int kt_keyring_add(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *der, size_t len,
                   const char *source, enum kt_add_how how, const struct kt_key **added,
                   struct kt_error *err);
/* Remove keys whose id (SKID hex, serial hex, description, or sha256 hex,
 * with the kernel's trailing-part matching) matches. Returns count or -errno. */
int kt_keyring_remove(struct kt_keyrings *k, struct kt_keyring *r, const char *id);

/* Blacklist entries (dbx, MokListX, vendor dbx). */
int kt_blacklist_add_hash(struct kt_keyrings *k, const char *kind /* "bin" | "tbs" */,
                          enum kt_hash h, const uint8_t *digest, const char *source);
bool kt_blacklist_has_bin(const struct kt_keyrings *k, enum kt_hash h, const uint8_t *digest);
bool kt_blacklist_has_tbs(const struct kt_keyrings *k, const uint8_t *digest, size_t len);
/* A certificate is blacklisted by its tbs hash (any algorithm listed) or as
 * a revocation certificate in the blacklist keyring. */
bool kt_blacklist_has_cert(const struct kt_keyrings *k, const struct kt_x509 *c);

/* The one trusted-key lookup: the first trusted key, in the keyrings the
 * purpose may use (in order: builtin, secondary, machine, platform, then
 * keyrings named for the run), that the ids name (rule above).  NULL if none.
 * The caller verifies the signature with the key found. */
const struct kt_key *kt_trust_find(const struct kt_keyrings *k, enum kt_purpose p,
                                   const struct kt_key_ids *ids);
/* The same over every keyring but the blacklist, trusted or not: where a key
 * is held that the purpose did not let vouch (for messages). */
const struct kt_key *kt_keyrings_find_any(const struct kt_keyrings *k,
                                          const struct kt_key_ids *ids);
/* Let keyring r vouch for every purpose in this run (a verifying command's
 * --keyring NAME).  Not saved.  -EINVAL for the blacklist. */
int kt_keyring_set_run_voucher(struct kt_keyring *r, bool on);
/* Does keyring r vouch for purpose p? */
bool kt_keyring_vouches_for(const struct kt_keyrings *k, const struct kt_keyring *r,
                            enum kt_purpose p);
/* "modules", "UEFI images", "kexec images", "builtin-only checks". */
const char *kt_purpose_text(enum kt_purpose p);

/* Shorthands of kt_trust_find with one id. */
const struct kt_key *kt_trust_find_by_issuer_serial(const struct kt_keyrings *k,
                                                   enum kt_purpose p, kt_span issuer_raw,
                                                   kt_span serial);
const struct kt_key *kt_trust_find_by_skid(const struct kt_keyrings *k, enum kt_purpose p,
                                          kt_span skid);
/* Any key (trusted or not, any keyring) by issuer+serial or SKID: for module
 * signatures, which carry no certificates. */
const struct kt_key *kt_keyrings_find_cert(const struct kt_keyrings *k, kt_span issuer_raw,
                                           kt_span serial, kt_span skid);

/* ---- additions (keyring engineer) ------------------------------------- */

/* Add every certificate in a blob: DER, PEM, a PEM bundle, concatenated DER
 * certificates (the kernel's compiled-in list) or EFI signature lists.  ESL
 * X509 entries become keys in r (revocation certificates when r is the
 * blacklist); when r is the blacklist (dbx, MokListXRT), SHA256 entries
 * become bin: hashes and X509_SHA256/384/512 entries tbs: hashes; in any
 * other keyring (db, MokListRT: allow lists) hash entries are ignored, as the
 * kernel does.  A certificate already in r is skipped (not
 * counted).  source names the blob ("file:/path"); entries get "#N" appended.
 * *n_added (may be NULL) counts keys and hashes added.  Stops at the first
 * failure: keys added before it stay in memory (the store makes a command
 * all-or-nothing).  Error offsets are offsets into buf. */
int kt_keyrings_add_blob(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *buf,
                         size_t len, const char *source, enum kt_add_how how, size_t *n_added,
                         struct kt_error *err);

/* The same, but a certificate that cannot be added (the strict parser
 * refuses it, it is blacklisted ...) is passed to skip (1-based index among
 * the blob's certificates, its bytes, why) and the rest are added; fails
 * with the first reason only when every certificate was skipped.  For
 * run-only trust bundles such as a distribution's CA list. */
typedef void (*kt_skip_cb)(void *ctx, size_t index, const uint8_t *der, size_t len,
                           const struct kt_error *why);
int kt_keyrings_add_blob_skip(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *buf,
                              size_t len, const char *source, enum kt_add_how how,
                              size_t *n_added, kt_skip_cb skip, void *skip_ctx,
                              struct kt_error *err);

/* Key lookups inside one keyring (any key, trusted or not); NULL if none. */
const struct kt_key *kt_keyring_find_by_skid(const struct kt_keyring *r, kt_span skid);
const struct kt_key *kt_keyring_find_by_issuer_serial(const struct kt_keyring *r,
                                                     kt_span issuer_raw, kt_span serial);
const struct kt_key *kt_keyring_find_by_description(const struct kt_keyring *r, const char *d);
const struct kt_key *kt_keyring_find_by_sha256(const struct kt_keyring *r, const uint8_t sha[32]);
/* Does id (as for kt_keyring_remove) match key? */
bool kt_key_matches_id(const struct kt_key *key, const char *id);

/* Enumerate keyrings: the five defaults first, then user keyrings. */
size_t kt_keyrings_count(const struct kt_keyrings *k);
struct kt_keyring *kt_keyrings_at(struct kt_keyrings *k, size_t i);
bool kt_keyring_is_default(const struct kt_keyring *r);
/* Voucher names of a SIGNED_BY keyring (n may be 0). */
const char *const *kt_keyring_vouchers(const struct kt_keyring *r, size_t *n);
/* "none", "trusted-only", "signed-by:builtin,secondary", "blacklist" into buf. */
const char *kt_keyring_restriction_str(const struct kt_keyring *r, char *buf, size_t cap);
/* Parse "none" | "trusted-only" | "signed-by:A[,B...]" (vouchers are
 * pointers into a malloc'd copy *store_buf the caller frees).  -EINVAL. */
int kt_restriction_parse(const char *s, enum kt_restrict *r, char **store_buf,
                         const char **vouchers, size_t cap, size_t *n_vouchers);

/* Blacklist hash entries, for listing and the store. */
struct kt_blacklist_hash {
    char kind[4];          /* "bin" or "tbs" */
    enum kt_hash hash;
    uint8_t digest[KT_HASH_MAX_SIZE];
    size_t len;
    const char *source;
};
/* Remove blacklist hashes named "bin:HEX" or "tbs:HEX" (the kernel's
 * blacklist key descriptions; the digest's length picks the algorithm).
 * Returns the count removed (0 or 1) or -EINVAL for a malformed id. */
int kt_blacklist_remove_hash(struct kt_keyrings *k, const char *id);
size_t kt_blacklist_hash_count(const struct kt_keyrings *k);
const struct kt_blacklist_hash *kt_blacklist_hash_at(const struct kt_keyrings *k, size_t i);

/* ---- persistence hooks (for src/store; not for verifiers) -------------- */

/* Put a stored key back without checking restriction or blacklist: trusted
 * and added come from the store.  -EEXIST if already in r. */
int kt_keyring_restore(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *der,
                       size_t len, const char *source, int64_t added, bool trusted,
                       int64_t store_id, struct kt_error *err);
/* Store row id of a key (0: not stored yet) and of a blacklist hash. */
int64_t kt_key_store_id(const struct kt_key *key);
void kt_key_set_store_id(const struct kt_key *key, int64_t id);
int64_t kt_blacklist_hash_store_id(const struct kt_keyrings *k, size_t i);
void kt_blacklist_hash_set_store_id(struct kt_keyrings *k, size_t i, int64_t id);
/* Restore a stored hash (no duplicate error). */
int kt_blacklist_restore_hash(struct kt_keyrings *k, const char *kind, enum kt_hash h,
                              const uint8_t *digest, const char *source, int64_t store_id);
/* Keys added for this run only (--trust, --kernel) are never saved. */
void kt_key_set_ephemeral(const struct kt_key *key, bool ephemeral);
bool kt_key_is_ephemeral(const struct kt_key *key);
/* Store ids of keys removed since the last call; *ids is owned by k and
 * valid until the next change. */
size_t kt_keyrings_removed_ids(const struct kt_keyrings *k, const int64_t **ids);
void kt_keyrings_clear_removed(struct kt_keyrings *k);
/* The same for removed blacklist hashes. */
size_t kt_blacklist_removed_ids(const struct kt_keyrings *k, const int64_t **ids);
void kt_blacklist_clear_removed(struct kt_keyrings *k);
/* A user keyring the store has (not) saved yet. */
bool kt_keyring_is_saved(const struct kt_keyring *r);
void kt_keyring_set_saved(struct kt_keyring *r, bool saved);

/* The keys compiled into a kernel image (kt_kimage_foreach_cert) into
 * builtin, as the kernel loads them at boot: explicit, trusted; a key that
 * does not load is skipped, as the kernel skips it.  ephemeral: for this run
 * only (never saved).  Errors: the image's (-ENODATA no list, -EBADMSG ...). */
int kt_keyrings_add_kernel_keys(struct kt_keyrings *k, const uint8_t *img, size_t len,
                                const char *source, bool ephemeral, size_t *n_added,
                                struct kt_error *err);

#endif
