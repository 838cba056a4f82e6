/* blacklist.c - the blacklist: "bin:" and "tbs:" hashes (a hash table keyed
 * by kind, algorithm and digest) and the blacklist keyring's revocation
 * certificates. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/keys_int.h"

static int bl_kind(const char *kind)
{
    if (kind && !strcmp(kind, "bin"))
        return 'b';
    if (kind && !strcmp(kind, "tbs"))
        return 't';
    return 0;
}

static struct bhash *bl_find(const struct kt_keyrings *k, int kind, enum kt_hash h,
                             const uint8_t *digest)
{
    size_t len = kt_hash_size(h);
    if (!len || !digest)
        return NULL;
    uint8_t tag[2] = {(uint8_t)kind, (uint8_t)h};
    return kt_ht_get(&k->bl_ht, tag, 2, digest, len);
}

/* Listed: one by one (bl_find) or in an index. */
static bool bl_has(const struct kt_keyrings *k, int kind, enum kt_hash h, const uint8_t *digest)
{
    return bl_find(k, kind, h, digest) || (digest && kt_blacklist_index_has(k, kind, h, digest));
}

static int bl_add(struct kt_keyrings *k, const char *kind, enum kt_hash h, const uint8_t *digest,
                  const char *source, bool dup_ok)
{
    int kc = bl_kind(kind);
    size_t len = kt_hash_size(h);
    if (!kc || !len || !digest)
        return -EINVAL;
    if (bl_find(k, kc, h, digest))
        return dup_ok ? 0 : -EEXIST;
    struct bhash *b = calloc(1, sizeof(*b));
    if (!b)
        return -ENOMEM;
    memcpy(b->pub.kind, kind, 3);
    b->pub.hash = h;
    memcpy(b->pub.digest, digest, len);
    b->pub.len = len;
    b->pub.source = source ? strdup(source) : NULL;
    b->tag[0] = (uint8_t)kc;
    b->tag[1] = (uint8_t)h;
    if (k->n_bl == k->cap_bl) {
        size_t nc = k->cap_bl ? k->cap_bl * 2 : 16;
        struct bhash **nb = realloc(k->bl, nc * sizeof(*nb));
        if (!nb)
            goto nomem;
        k->bl = nb;
        k->cap_bl = nc;
    }
    if (kt_ht_put(&k->bl_ht, b->tag, 2, b->pub.digest, len, b) < 0)
        goto nomem;
    k->bl[k->n_bl++] = b;
    if (kc == 't')
        k->n_tbs[h]++;
    return 0;
nomem:
    free((char *)b->pub.source);
    free(b);
    return -ENOMEM;
}

int kt_blacklist_add_hash(struct kt_keyrings *k, const char *kind, enum kt_hash h,
                          const uint8_t *digest, const char *source)
{
    return bl_add(k, kind, h, digest, source, false);
}

int kt_blacklist_restore_hash(struct kt_keyrings *k, const char *kind, enum kt_hash h,
                              const uint8_t *digest, const char *source)
{
    return bl_add(k, kind, h, digest, source, true);
}

int kt_blacklist_remove_hash(struct kt_keyrings *k, const char *id)
{
    int kc = 0;
    if (!k || !id)
        return -EINVAL;
    if (!strncmp(id, "bin:", 4))
        kc = 'b';
    else if (!strncmp(id, "tbs:", 4))
        kc = 't';
    else
        return -EINVAL;
    const char *hex = id + 4;
    size_t hl = strlen(hex);
    uint8_t d[KT_HASH_MAX_SIZE];
    if (hl % 2 || hl / 2 > sizeof(d) || hl == 0)
        return -EINVAL;
    for (size_t i = 0; i < hl / 2; i++) {
        unsigned v;
        if (!isxdigit((unsigned char)hex[2 * i]) || !isxdigit((unsigned char)hex[2 * i + 1]) ||
            sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -EINVAL;
        d[i] = (uint8_t)v;
    }
    enum kt_hash h = hl / 2 == 32 ? KT_HASH_SHA256 : hl / 2 == 48 ? KT_HASH_SHA384
                   : hl / 2 == 64 ? KT_HASH_SHA512 : KT_HASH_NONE;
    if (h == KT_HASH_NONE)
        return -EINVAL;
    struct bhash *b = bl_find(k, kc, h, d);
    if (!b)
        return 0;
    kt_ht_del(&k->bl_ht, b->tag, 2, b->pub.digest, b->pub.len, b);
    if (kc == 't')
        k->n_tbs[h]--;
    size_t j = 0;
    for (size_t i = 0; i < k->n_bl; i++)
        if (k->bl[i] != b)
            k->bl[j++] = k->bl[i];
    k->n_bl = j;
    free((char *)b->pub.source);
    free(b);
    return 1;
}

size_t kt_blacklist_hash_count(const struct kt_keyrings *k)
{
    return k ? k->n_bl + kt_blacklist_index_count(k) : 0;
}

const struct kt_blacklist_hash *kt_blacklist_hash_at(const struct kt_keyrings *k, size_t i)
{
    if (!k)
        return NULL;
    return i < k->n_bl ? &k->bl[i]->pub : kt_blacklist_index_at(k, i - k->n_bl);
}

static size_t add_alg(enum kt_hash *out, size_t n, enum kt_hash h)
{
    for (size_t i = 0; i < n; i++)
        if (out[i] == h)
            return n;
    if (n < KT_HASH__COUNT)
        out[n++] = h;
    return n;
}

size_t kt_blacklist_bin_algs(const struct kt_keyrings *k, enum kt_hash *out)
{
    size_t n = 0;
    for (size_t i = 0; k && i < k->n_bl; i++)
        if (k->bl[i]->tag[0] == 'b')
            n = add_alg(out, n, k->bl[i]->pub.hash);
    for (size_t i = 0; k && i < k->n_idx; i++)
        if (k->idx[i].kind == 'b')
            n = add_alg(out, n, k->idx[i].hash);
    return n;
}

bool kt_blacklist_has_bin(const struct kt_keyrings *k, enum kt_hash h, const uint8_t *digest)
{
    return k && bl_has(k, 'b', h, digest);
}

bool kt_blacklist_has_tbs(const struct kt_keyrings *k, const uint8_t *digest, size_t len)
{
    enum kt_hash h = len == 32 ? KT_HASH_SHA256 : len == 48 ? KT_HASH_SHA384
                   : len == 64 ? KT_HASH_SHA512 : KT_HASH_NONE;
    return k && h != KT_HASH_NONE && bl_has(k, 't', h, digest);
}

bool kt_blacklist_has_cert(const struct kt_keyrings *k, const struct kt_x509 *c)
{
    if (!k || !c)
        return false;
    if (bl_has(k, 't', KT_HASH_SHA256, c->tbs_sha256))
        return true;
    static const enum kt_hash more[] = {KT_HASH_SHA384, KT_HASH_SHA512};
    for (size_t i = 0; i < 2; i++) {
        uint8_t d[KT_HASH_MAX_SIZE];
        if (k->n_tbs[more[i]] && kt_digest(more[i], c->tbs.p, c->tbs.len, d) == 0 &&
            bl_has(k, 't', more[i], d))
            return true;
    }
    /* a revocation certificate: the same certificate, or the same public key */
    const struct kt_keyring *b = k->blacklist;
    if (!b || b->n == 0)
        return false;
    if (kt_ht_get(&b->by_sha, c->sha256, 32, NULL, 0))
        return true;
    return c->spki.len && kt_ht_get(&b->by_spki, c->spki.p, c->spki.len, NULL, 0) != NULL;
}

const char *kt_blacklist_hash_kind(const struct kt_blacklist_hash *b) { return b->kind; }
const char *kt_blacklist_hash_algorithm(const struct kt_blacklist_hash *b)
{
    return kt_hash_name(b->hash);
}
const char *kt_blacklist_hash_source(const struct kt_blacklist_hash *b) { return b->source; }

const uint8_t *kt_blacklist_hash_digest(const struct kt_blacklist_hash *b, size_t *len)
{
    *len = b->len;
    return b->digest;
}

bool kt_cert_denied_by(const struct kt_x509 *c, const struct kt_x509 *anchor)
{
    if (!c || !anchor)
        return false;
    if (c->der.len == anchor->der.len && !memcmp(c->der.p, anchor->der.p, c->der.len))
        return true;
    bool named = kt_span_eq(c->issuer_raw, anchor->subject_raw) ||
                 (c->akid_keyid.len && anchor->skid.len && kt_span_eq(c->akid_keyid, anchor->skid));
    return named && anchor->pub && kt_x509_check_signature(c, anchor->pub) == 0;
}

const struct kt_key *kt_blacklist_issuer_of(const struct kt_keyrings *k, const struct kt_x509 *c)
{
    const struct kt_keyring *b = k ? k->blacklist : NULL;
    if (!b || !c)
        return NULL;
    for (size_t i = 0; i < b->n; i++) {
        const struct kt_x509 *a = b->keys[i]->pub.cert;
        if (a && a != c && kt_cert_denied_by(c, a))
            return &b->keys[i]->pub;
    }
    return NULL;
}
