/* index_int.h - a small chained multimap keyed by (part a, part b) byte strings:
 * the hash index behind keyring lookups (private to src/keys). */
#ifndef KT_KEYS_INDEX_INT_H
#define KT_KEYS_INDEX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kt_ht_ent {
    const uint8_t *a, *b;
    size_t alen, blen;
    uint64_t h;
    void *v;
    struct kt_ht_ent *next;
};

struct kt_ht {
    struct kt_ht_ent **b;
    size_t nb, n;
};

/* Add v under (a, b); the parts are not copied.  -ENOMEM. */
int kt_ht_put(struct kt_ht *t, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
              void *v);
/* First entry matching the key after cursor (NULL: from the start), in add order. */
struct kt_ht_ent *kt_ht_next(const struct kt_ht *t, struct kt_ht_ent *cursor, const uint8_t *a,
                             size_t alen, const uint8_t *b, size_t blen);
void *kt_ht_get(const struct kt_ht *t, const uint8_t *a, size_t alen, const uint8_t *b,
                size_t blen);
/* Remove the entry (a, b) -> v. */
void kt_ht_del(struct kt_ht *t, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
               void *v);
void kt_ht_free(struct kt_ht *t);

#endif
