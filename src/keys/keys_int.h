/* keys_int.h - the keyring model's structures, shared by the files of
 * src/keys only (never included outside it). */
#ifndef KT_KEYS_KEYS_INT_H
#define KT_KEYS_KEYS_INT_H

#include "keys/blacklist.h"
#include "keys/index_int.h"
#include "keys/keyring.h"

struct ikey {
    struct kt_key pub; /* first: a const struct kt_key * converts back */
    bool ephemeral;
};

/* Each keyring keeps its keys in an array (listing order = add order) and
 * multimaps over them: SKID, issuer+serial, subject, description, SHA-256
 * of the DER (and the SPKI for the blacklist's revocation certificates). */
struct kt_keyring {
    char *name;
    enum kt_restrict restr;
    char **vouchers;
    size_t n_vouchers;
    bool is_default;
    bool run_voucher; /* named by a verifying command's --keyring for this run */
    bool member_trusted; /* the kernel uses any key it holds (IMA's _ima): a key
                          * linked to it is trusted */
    struct ikey **keys;
    size_t n, cap;
    struct kt_ht by_skid, by_isn, by_subj, by_desc, by_sha, by_spki;
};

struct bhash {
    struct kt_blacklist_hash pub;
    uint8_t tag[2]; /* kind letter, hash id: the first hash-table part */
};

/* Hashes indexed where they lie (blacklist_index.c): offs sorted by the
 * digest at base + offs[i]. */
struct bl_index {
    const uint8_t *base;
    uint32_t *offs;
    size_t n;
    uint8_t kind; /* 'b' or 't' */
    enum kt_hash hash;
    size_t len;
    char *source;
};

struct kt_keyrings {
    struct kt_keyring **rings;
    size_t n, cap;
    struct kt_keyring *blacklist;
    struct bhash **bl;
    size_t n_bl, cap_bl;
    struct kt_ht bl_ht;
    size_t n_tbs[KT_HASH__COUNT];
    struct bl_index *idx;               /* after bl in listing order */
    size_t n_idx;
    struct kt_blacklist_hash *scratch;  /* kt_blacklist_hash_at of an indexed hash */
};

/* blacklist_index.c: lookups, count, listing, freeing of the indexes. */
bool kt_blacklist_index_has(const struct kt_keyrings *k, int kind, enum kt_hash h,
                            const uint8_t *digest);
size_t kt_blacklist_index_count(const struct kt_keyrings *k);
const struct kt_blacklist_hash *kt_blacklist_index_at(const struct kt_keyrings *k, size_t i);
void kt_blacklist_index_free(struct kt_keyrings *k);

static inline struct ikey *kt_ikey(const struct kt_key *k) { return (struct ikey *)(uintptr_t)k; }

#endif
