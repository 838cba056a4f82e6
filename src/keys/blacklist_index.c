/* blacklist_index.c - blacklist hashes indexed where they lie (#32): a dbx
 * of a million SHA-256 entries is a sorted array of 4-byte offsets into the
 * caller's buffer, never a million copied objects.  Looked up by binary
 * search; listed (kt_blacklist_hash_at) through one scratch entry. */
#include <stdlib.h>
#include <string.h>

#include "keys/keys_int.h"

/* qsort_r's order: the digests the offsets name (glibc's argument order;
 * no thread-local state: a TLS variable makes libktrust need ld.so) */
static int cmp_off(const void *a, const void *b, void *ctx)
{
    const struct bl_index *x = ctx;
    return memcmp(x->base + *(const uint32_t *)a, x->base + *(const uint32_t *)b, x->len);
}

int kt_blacklist_add_index(struct kt_keyrings *k, const char *kind, enum kt_hash h,
                           const uint8_t *base, uint32_t *offs, size_t n, const char *source)
{
    size_t len = kt_hash_size(h);
    int kc = kind && !strcmp(kind, "bin") ? 'b' : kind && !strcmp(kind, "tbs") ? 't' : 0;
    if (!k || !kc || !len || !base) {
        free(offs);
        return -EINVAL;
    }
    if (n == 0) {
        free(offs);
        return 0;
    }
    struct bl_index *ni = realloc(k->idx, (k->n_idx + 1) * sizeof(*ni));
    char *src = strdup(source ? source : "");
    if (!k->scratch)
        k->scratch = calloc(1, sizeof(*k->scratch));
    if (!ni || !src || !k->scratch) {
        if (ni)
            k->idx = ni;
        free(src);
        free(offs);
        return -ENOMEM;
    }
    k->idx = ni;
    struct bl_index *x = &k->idx[k->n_idx];
    *x = (struct bl_index){base, offs, n, (uint8_t)kc, h, len, src};
    qsort_r(offs, n, sizeof(*offs), cmp_off, x);
    size_t j = 0; /* a hash listed twice is one entry, as kt_blacklist_add_hash makes it */
    for (size_t i = 0; i < n; i++)
        if (j == 0 || memcmp(base + offs[j - 1], base + offs[i], len) != 0)
            offs[j++] = offs[i];
    x->n = j;
    k->n_idx++;
    if (kc == 't')
        k->n_tbs[h] += j;
    return 0;
}

bool kt_blacklist_index_has(const struct kt_keyrings *k, int kind, enum kt_hash h,
                            const uint8_t *digest)
{
    for (size_t i = 0; i < k->n_idx; i++) {
        const struct bl_index *x = &k->idx[i];
        if (x->kind != kind || x->hash != h)
            continue;
        size_t lo = 0, hi = x->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int c = memcmp(x->base + x->offs[mid], digest, x->len);
            if (c == 0)
                return true;
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    return false;
}

size_t kt_blacklist_index_count(const struct kt_keyrings *k)
{
    size_t n = 0;
    for (size_t i = 0; i < k->n_idx; i++)
        n += k->idx[i].n;
    return n;
}

const struct kt_blacklist_hash *kt_blacklist_index_at(const struct kt_keyrings *k, size_t i)
{
    for (size_t j = 0; j < k->n_idx; j++) {
        const struct bl_index *x = &k->idx[j];
        if (i >= x->n) {
            i -= x->n;
            continue;
        }
        struct kt_blacklist_hash *s = k->scratch;
        memset(s, 0, sizeof(*s));
        memcpy(s->kind, x->kind == 'b' ? "bin" : "tbs", 4);
        s->hash = x->hash;
        memcpy(s->digest, x->base + x->offs[i], x->len);
        s->len = x->len;
        s->source = x->source;
        return s;
    }
    return NULL;
}

void kt_blacklist_index_free(struct kt_keyrings *k)
{
    for (size_t i = 0; i < k->n_idx; i++) {
        free(k->idx[i].offs);
        free(k->idx[i].source);
    }
    free(k->idx);
    free(k->scratch);
}
