/* rows_int.h - the store's own bookkeeping (private to src/store): which
 * keyrings, keys and blacklist hashes in memory have rows in the file, and
 * their row ids.  kt_store_save diffs the keyrings against it. */
#ifndef KT_STORE_ROWS_INT_H
#define KT_STORE_ROWS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "keys/blacklist.h"
#include "keys/keyring.h"

struct kt_store_key_row {
    const struct kt_keyring *ring;
    uint8_t sha256[32];
    int64_t id;
    bool seen; /* still in memory (set while saving) */
};

struct kt_store_hash_row {
    char kind[4];
    enum kt_hash hash;
    uint8_t digest[KT_HASH_MAX_SIZE];
    size_t len;
    int64_t id; /* 0: the row is not known */
    bool seen;
};

struct kt_store_rows {
    const struct kt_keyring **rings; /* user keyrings with a row */
    size_t n_rings, cap_rings;
    struct kt_store_key_row *keys;
    size_t n_keys, cap_keys, keys_sorted; /* [0, keys_sorted) sorted */
    struct kt_store_hash_row *hashes;
    size_t n_hashes, cap_hashes, hashes_sorted;
};

void kt_store_rows_free(struct kt_store_rows *t);
int kt_store_rows_add_ring(struct kt_store_rows *t, const struct kt_keyring *r);
bool kt_store_rows_has_ring(const struct kt_store_rows *t, const struct kt_keyring *r);
int kt_store_rows_add_key(struct kt_store_rows *t, const struct kt_keyring *r,
                          const uint8_t sha256[32], int64_t id);
int kt_store_rows_add_hash(struct kt_store_rows *t, const struct kt_blacklist_hash *b,
                           int64_t id);
/* Sort the rows and clear every `seen`, before a save's walk. */
void kt_store_rows_begin(struct kt_store_rows *t);
/* The row of a key / a hash among the rows sorted by kt_store_rows_begin. */
struct kt_store_key_row *kt_store_rows_find_key(struct kt_store_rows *t,
                                                const struct kt_key *key);
struct kt_store_hash_row *kt_store_rows_find_hash(struct kt_store_rows *t,
                                                  const struct kt_blacklist_hash *b);
/* Forget the rows kt_store_rows_begin sorted that were not seen (their
 * rows were deleted). */
void kt_store_rows_drop_unseen(struct kt_store_rows *t);

#endif
