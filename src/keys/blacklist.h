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
/* Index n hashes of algorithm h lying in a caller's buffer, at base +
 * offs[i], without copying them (a dbx of a million entries: 4 bytes each).
 * base must stay valid and unchanged as long as k.  Takes offs (malloc'd;
 * sorted here, a hash listed twice kept once; freed on error too).  The
 * hashes are listed after the others (kt_blacklist_hash_at: valid until its
 * next call), all under source, and cannot be removed.  0, -EINVAL,
 * -ENOMEM. */
int kt_blacklist_add_index(struct kt_keyrings *k, const char *kind /* "bin" | "tbs" */,
                           enum kt_hash h, const uint8_t *base, uint32_t *offs, size_t n,
                           const char *source);
/* Each algorithm among the "bin" hashes, once (out holds KT_HASH__COUNT);
 * returns how many. */
size_t kt_blacklist_bin_algs(const struct kt_keyrings *k, enum kt_hash *out);
bool kt_blacklist_has_bin(const struct kt_keyrings *k, enum kt_hash h, const uint8_t *digest);
bool kt_blacklist_has_tbs(const struct kt_keyrings *k, const uint8_t *digest, size_t len);
/* A certificate is blacklisted by its tbs hash (any algorithm listed) or as
 * a revocation certificate in the blacklist keyring. */
bool kt_blacklist_has_cert(const struct kt_keyrings *k, const struct kt_x509 *c);

/* kt_blacklist_remove_hash ("bin:HEX", "tbs:HEX"), and the hashes in add
 * order with their accessors (kt_blacklist_hash_count, _at, _kind,
 * _algorithm, _digest, _source): ktrust/advanced.h. */

/* A revocation certificate is a trust anchor for denial (shim's
 * check_db_cert on dbx, vendor dbx and MokListX; EDK2's IsForbiddenByDbx;
 * the kernel's is_key_on_revocation_list): it denies every signature whose
 * chain reaches it, whether or not the signature carries it.  Does `anchor`
 * deny the chain certificate `c`: c is anchor itself (the same DER), or
 * anchor issued c (c's issuer name is anchor's subject, or c's AKID
 * keyIdentifier is anchor's SKID) and c's signature verifies with anchor's
 * key?  Dates, EKU and CA flags play no part (firmware checks none of them
 * here). */
bool kt_cert_denied_by(const struct kt_x509 *c, const struct kt_x509 *anchor);
/* The certificate of the blacklist keyring that issued c (kt_cert_denied_by
 * through its signature), or NULL.  The key belongs to k. */
const struct kt_key *kt_blacklist_issuer_of(const struct kt_keyrings *k, const struct kt_x509 *c);

/* Restore a stored hash (no duplicate error; for src/store). */
int kt_blacklist_restore_hash(struct kt_keyrings *k, const char *kind, enum kt_hash h,
                              const uint8_t *digest, const char *source);

#endif
