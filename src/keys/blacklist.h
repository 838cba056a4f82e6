/* blacklist.h - the blacklist (the kernel's blacklist.c): image and TBS
 * hashes ("bin:", "tbs:") and revocation certificates in the blacklist
 * keyring (dbx, MokListX, vendor dbx). */
#ifndef KT_KEYS_BLACKLIST_H
#define KT_KEYS_BLACKLIST_H

#include "keys/keyring.h"

struct kt_blacklist_hash {
    char kind[4];          /* "bin" or "tbs" */
    enum kt_hash hash;
    uint8_t digest[KT_HASH_MAX_SIZE];
    size_t len;
    const char *source;
};

/* Add a hash.  -EEXIST when listed already, -EINVAL, -ENOMEM. */
int kt_blacklist_add_hash(struct kt_keyrings *k, const char *kind /* "bin" | "tbs" */,
                          enum kt_hash h, const uint8_t *digest, const char *source);
bool kt_blacklist_has_bin(const struct kt_keyrings *k, enum kt_hash h, const uint8_t *digest);
bool kt_blacklist_has_tbs(const struct kt_keyrings *k, const uint8_t *digest, size_t len);
/* A certificate is blacklisted by its tbs hash (any algorithm listed) or as
 * a revocation certificate in the blacklist keyring. */
bool kt_blacklist_has_cert(const struct kt_keyrings *k, const struct kt_x509 *c);

/* Remove blacklist hashes named "bin:HEX" or "tbs:HEX" (the kernel's
 * blacklist key descriptions; the digest's length picks the algorithm).
 * Returns the count removed (0 or 1) or -EINVAL for a malformed id. */
int kt_blacklist_remove_hash(struct kt_keyrings *k, const char *id);
/* The hashes in add order, for listing and the store. */
size_t kt_blacklist_hash_count(const struct kt_keyrings *k);
const struct kt_blacklist_hash *kt_blacklist_hash_at(const struct kt_keyrings *k, size_t i);

/* Restore a stored hash (no duplicate error; for src/store). */
int kt_blacklist_restore_hash(struct kt_keyrings *k, const char *kind, enum kt_hash h,
                              const uint8_t *digest, const char *source);

#endif
