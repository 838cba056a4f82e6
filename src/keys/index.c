/* index.c - the keyrings' hash index: a chained multimap.  A lookup hashes
 * the id once and walks one short chain: constant time per lookup. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "keys/index_int.h"

static uint64_t ht_hash(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < alen; i++)
        h = (h ^ a[i]) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
    for (size_t i = 0; i < blen; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

static bool ht_ent_is(const struct kt_ht_ent *e, uint64_t h, const uint8_t *a, size_t alen,
                      const uint8_t *b, size_t blen)
{
    return e->h == h && e->alen == alen && e->blen == blen &&
           (alen == 0 || memcmp(e->a, a, alen) == 0) && (blen == 0 || memcmp(e->b, b, blen) == 0);
}

static int ht_grow(struct kt_ht *t)
{
    size_t nb = t->nb ? t->nb * 2 : 64;
    struct kt_ht_ent **nbk = calloc(nb, sizeof(*nbk));
    if (!nbk)
        return -ENOMEM;
    for (size_t i = 0; i < t->nb; i++) {
        struct kt_ht_ent *e = t->b[i], *nx;
        for (; e; e = nx) {
            nx = e->next;
            size_t j = e->h & (nb - 1);
            e->next = nbk[j];
            nbk[j] = e;
        }
    }
    free(t->b);
    t->b = nbk;
    t->nb = nb;
    return 0;
}

int kt_ht_put(struct kt_ht *t, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
                  void *v)
{
    if (t->n + 1 > t->nb * 3 / 4 && ht_grow(t) < 0)
        return -ENOMEM;
    struct kt_ht_ent *e = calloc(1, sizeof(*e));
    if (!e)
        return -ENOMEM;
    e->a = a, e->alen = alen, e->b = b, e->blen = blen, e->v = v;
    e->h = ht_hash(a, alen, b, blen);
    size_t j = e->h & (t->nb - 1);
    /* append at the chain's end so the first added key is found first */
    struct kt_ht_ent **pp = &t->b[j];
    while (*pp)
        pp = &(*pp)->next;
    *pp = e;
    t->n++;
    return 0;
}

/* First entry matching the key at or after *cursor (NULL: from the start). */
struct kt_ht_ent *kt_ht_next(const struct kt_ht *t, struct kt_ht_ent *cursor, const uint8_t *a,
                              size_t alen, const uint8_t *b, size_t blen)
{
    if (!t->nb)
        return NULL;
    uint64_t h = ht_hash(a, alen, b, blen);
    struct kt_ht_ent *e = cursor ? cursor->next : t->b[h & (t->nb - 1)];
    for (; e; e = e->next)
        if (ht_ent_is(e, h, a, alen, b, blen))
            return e;
    return NULL;
}

void *kt_ht_get(const struct kt_ht *t, const uint8_t *a, size_t alen, const uint8_t *b,
                    size_t blen)
{
    struct kt_ht_ent *e = kt_ht_next(t, NULL, a, alen, b, blen);
    return e ? e->v : NULL;
}

void kt_ht_del(struct kt_ht *t, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
                   void *v)
{
    if (!t->nb)
        return;
    uint64_t h = ht_hash(a, alen, b, blen);
    for (struct kt_ht_ent **pp = &t->b[h & (t->nb - 1)]; *pp; pp = &(*pp)->next) {
        if ((*pp)->v == v && ht_ent_is(*pp, h, a, alen, b, blen)) {
            struct kt_ht_ent *e = *pp;
            *pp = e->next;
            free(e);
            t->n--;
            return;
        }
    }
}

void kt_ht_free(struct kt_ht *t)
{
    for (size_t i = 0; i < t->nb; i++) {
        struct kt_ht_ent *e = t->b[i], *nx;
        for (; e; e = nx) {
            nx = e->next;
            free(e);
        }
    }
    free(t->b);
    memset(t, 0, sizeof(*t));
}
