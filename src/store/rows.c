/* rows.c - the store's bookkeeping of rows (rows_int.h): sorted arrays,
 * looked up by binary search while a save walks the keyrings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store/rows_int.h"

static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    void *na = realloc(*arr, nc * size);
    if (!na)
        return -ENOMEM;
    *arr = na;
    *cap = nc;
    return 0;
}

void kt_store_rows_free(struct kt_store_rows *t)
{
    free(t->rings);
    free(t->keys);
    free(t->hashes);
    memset(t, 0, sizeof(*t));
}

int kt_store_rows_add_ring(struct kt_store_rows *t, const struct kt_keyring *r)
{
    if (grow((void **)&t->rings, &t->cap_rings, t->n_rings, sizeof(*t->rings)) < 0)
        return -ENOMEM;
    t->rings[t->n_rings++] = r;
    return 0;
}

bool kt_store_rows_has_ring(const struct kt_store_rows *t, const struct kt_keyring *r)
{
    for (size_t i = 0; i < t->n_rings; i++)
        if (t->rings[i] == r)
            return true;
    return false;
}

int kt_store_rows_add_key(struct kt_store_rows *t, const struct kt_keyring *r,
                          const uint8_t sha256[32], int64_t id)
{
    if (grow((void **)&t->keys, &t->cap_keys, t->n_keys, sizeof(*t->keys)) < 0)
        return -ENOMEM;
    struct kt_store_key_row *row = &t->keys[t->n_keys++];
    memset(row, 0, sizeof(*row));
    row->ring = r;
    memcpy(row->sha256, sha256, 32);
    row->id = id;
    row->seen = true;
    return 0;
}

int kt_store_rows_add_hash(struct kt_store_rows *t, const struct kt_blacklist_hash *b,
                           int64_t id)
{
    if (grow((void **)&t->hashes, &t->cap_hashes, t->n_hashes, sizeof(*t->hashes)) < 0)
        return -ENOMEM;
    struct kt_store_hash_row *row = &t->hashes[t->n_hashes++];
    memset(row, 0, sizeof(*row));
    memcpy(row->kind, b->kind, sizeof(row->kind));
    row->hash = b->hash;
    row->len = b->len <= sizeof(row->digest) ? b->len : sizeof(row->digest);
    memcpy(row->digest, b->digest, row->len);
    row->id = id;
    row->seen = true;
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    const struct kt_store_key_row *x = a, *y = b;
    if (x->ring != y->ring)
        return (uintptr_t)x->ring < (uintptr_t)y->ring ? -1 : 1;
    return memcmp(x->sha256, y->sha256, 32);
}

static int cmp_hash(const void *a, const void *b)
{
    const struct kt_store_hash_row *x = a, *y = b;
    int c = strcmp(x->kind, y->kind);
    if (c)
        return c;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->digest, y->digest, x->len);
}

void kt_store_rows_begin(struct kt_store_rows *t)
{
    if (t->n_keys)
        qsort(t->keys, t->n_keys, sizeof(*t->keys), cmp_key);
    if (t->n_hashes)
        qsort(t->hashes, t->n_hashes, sizeof(*t->hashes), cmp_hash);
    t->keys_sorted = t->n_keys;
    t->hashes_sorted = t->n_hashes;
    for (size_t i = 0; i < t->n_keys; i++)
        t->keys[i].seen = false;
    for (size_t i = 0; i < t->n_hashes; i++)
        t->hashes[i].seen = false;
}

struct kt_store_key_row *kt_store_rows_find_key(struct kt_store_rows *t,
                                                const struct kt_key *key)
{
    struct kt_store_key_row want = {.ring = key->ring};
    memcpy(want.sha256, key->cert->sha256, 32);
    return t->keys_sorted ? bsearch(&want, t->keys, t->keys_sorted, sizeof(want), cmp_key)
                          : NULL;
}

struct kt_store_hash_row *kt_store_rows_find_hash(struct kt_store_rows *t,
                                                  const struct kt_blacklist_hash *b)
{
    struct kt_store_hash_row want = {.hash = b->hash, .len = b->len};
    memcpy(want.kind, b->kind, sizeof(want.kind));
    if (want.len > sizeof(want.digest))
        return NULL;
    memcpy(want.digest, b->digest, want.len);
    return t->hashes_sorted
               ? bsearch(&want, t->hashes, t->hashes_sorted, sizeof(want), cmp_hash)
               : NULL;
}

void kt_store_rows_drop_unseen(struct kt_store_rows *t)
{
    size_t j = 0;
    for (size_t i = 0; i < t->n_keys; i++)
        if (t->keys[i].seen)
            t->keys[j++] = t->keys[i];
    t->n_keys = j;
    j = 0;
    for (size_t i = 0; i < t->n_hashes; i++)
        if (t->hashes[i].seen)
            t->hashes[j++] = t->hashes[i];
    t->n_hashes = j;
    t->keys_sorted = t->hashes_sorted = 0;
}
