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

/* kt_blacklist_remove_hash ("bin:HEX", "tbs:HEX"), and the hashes in add
 * order with their accessors (kt_blacklist_hash_count, _at, _kind,
 * _algorithm, _digest, _source): ktrust/advanced.h. */

/* Restore a stored hash (no duplicate error; for src/store). */
int kt_blacklist_restore_hash(struct kt_keyrings *k, const char *kind, enum kt_hash h,
                              const uint8_t *digest, const char *source);

#endif
