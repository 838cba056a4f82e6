/* keyring.c - the in-memory keyring model: the five default keyrings, user
 * keyrings, restrictions, the blacklist and hash-table lookups.
 *
 * Each keyring keeps its keys in an array (listing order = add order) and
 * four multimaps over them: SKID, issuer+serial, description, SHA-256 of the
 * DER (and the SPKI for the blacklist's revocation certificates).  A lookup
 * hashes the id once and walks one short chain: constant time per lookup.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keyring/keyring.h"
#include "util/err.h"

/* ---- a small chained multimap keyed by (part a, part b) byte strings ---- */

struct ht_ent {
    const uint8_t *a, *b;
    size_t alen, blen;
    uint64_t h;
    void *v;
    struct ht_ent *next;
};

struct ht {
    struct ht_ent **b;
    size_t nb, n;
};

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

static bool ht_ent_is(const struct ht_ent *e, uint64_t h, const uint8_t *a, size_t alen,
                      const uint8_t *b, size_t blen)
{
    return e->h == h && e->alen == alen && e->blen == blen &&
           (alen == 0 || memcmp(e->a, a, alen) == 0) && (blen == 0 || memcmp(e->b, b, blen) == 0);
}

static int ht_grow(struct ht *t)
{
    size_t nb = t->nb ? t->nb * 2 : 64;
    struct ht_ent **nbk = calloc(nb, sizeof(*nbk));
    if (!nbk)
        return -ENOMEM;
    for (size_t i = 0; i < t->nb; i++) {
        struct ht_ent *e = t->b[i], *nx;
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

static int ht_put(struct ht *t, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
                  void *v)
{
    if (t->n + 1 > t->nb * 3 / 4 && ht_grow(t) < 0)
        return -ENOMEM;
    struct ht_ent *e = calloc(1, sizeof(*e));
    if (!e)
        return -ENOMEM;
    e->a = a, e->alen = alen, e->b = b, e->blen = blen, e->v = v;
    e->h = ht_hash(a, alen, b, blen);
    size_t j = e->h & (t->nb - 1);
    /* append at the chain's end so the first added key is found first */
    struct ht_ent **pp = &t->b[j];
    while (*pp)
        pp = &(*pp)->next;
    *pp = e;
    t->n++;
    return 0;
}

/* First entry matching the key at or after *cursor (NULL: from the start). */
static struct ht_ent *ht_next(const struct ht *t, struct ht_ent *cursor, const uint8_t *a,
                              size_t alen, const uint8_t *b, size_t blen)
{
    if (!t->nb)
        return NULL;
    uint64_t h = ht_hash(a, alen, b, blen);
    struct ht_ent *e = cursor ? cursor->next : t->b[h & (t->nb - 1)];
    for (; e; e = e->next)
        if (ht_ent_is(e, h, a, alen, b, blen))
            return e;
    return NULL;
}

static void *ht_get(const struct ht *t, const uint8_t *a, size_t alen, const uint8_t *b,
                    size_t blen)
{
    struct ht_ent *e = ht_next(t, NULL, a, alen, b, blen);
    return e ? e->v : NULL;
}

static void ht_del(struct ht *t, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
                   void *v)
{
    if (!t->nb)
        return;
    uint64_t h = ht_hash(a, alen, b, blen);
    for (struct ht_ent **pp = &t->b[h & (t->nb - 1)]; *pp; pp = &(*pp)->next) {
        if ((*pp)->v == v && ht_ent_is(*pp, h, a, alen, b, blen)) {
            struct ht_ent *e = *pp;
            *pp = e->next;
            free(e);
            t->n--;
            return;
        }
    }
}

static void ht_free(struct ht *t)
{
    for (size_t i = 0; i < t->nb; i++) {
        struct ht_ent *e = t->b[i], *nx;
        for (; e; e = nx) {
            nx = e->next;
            free(e);
        }
    }
    free(t->b);
    memset(t, 0, sizeof(*t));
}

/* ---- the model ------------------------------------------------------------ */

struct ikey {
    struct kt_key pub; /* first: a const struct kt_key * converts back */
    int64_t store_id;
    bool ephemeral;
};

struct kt_keyring {
    char *name;
    enum kt_restrict restr;
    char **vouchers;
    size_t n_vouchers;
    bool is_default, saved;
    bool run_voucher; /* named by a verifying command's --keyring for this run */
    struct ikey **keys;
    size_t n, cap;
    struct ht by_skid, by_isn, by_subj, by_desc, by_sha, by_spki;
};

struct bhash {
    struct kt_blacklist_hash pub;
    int64_t store_id;
    uint8_t tag[2]; /* kind letter, hash id: the first hash-table part */
};

struct kt_keyrings {
    struct kt_keyring **rings;
    size_t n, cap;
    struct kt_keyring *builtin, *secondary, *platform, *machine, *blacklist;
    struct bhash **bl;
    size_t n_bl, cap_bl;
    struct ht bl_ht;
    size_t n_tbs[KT_HASH__COUNT];
    int64_t *removed;
    size_t n_removed, cap_removed;
    int64_t *bl_removed;
    size_t n_bl_removed, cap_bl_removed;
};

static struct ikey *ik(const struct kt_key *k) { return (struct ikey *)(uintptr_t)k; }

static void keyring_free(struct kt_keyring *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        struct ikey *k = r->keys[i];
        kt_x509_free(k->pub.cert);
        free(k->pub.der);
        free(k->pub.source);
        free(k);
    }
    free(r->keys);
    for (size_t i = 0; i < r->n_vouchers; i++)
        free(r->vouchers[i]);
    free(r->vouchers);
    ht_free(&r->by_skid);
    ht_free(&r->by_isn);
    ht_free(&r->by_subj);
    ht_free(&r->by_desc);
    ht_free(&r->by_sha);
    ht_free(&r->by_spki);
    free(r->name);
    free(r);
}

static int ring_new(struct kt_keyrings *k, const char *name, enum kt_restrict restr,
                    const char *const *vouchers, size_t nv, bool is_default,
                    struct kt_keyring **out)
{
    struct kt_keyring *r = calloc(1, sizeof(*r));
    if (!r)
        return -ENOMEM;
    r->name = strdup(name);
    r->restr = restr;
    r->is_default = is_default;
    r->saved = is_default;
    if (nv) {
        r->vouchers = calloc(nv, sizeof(char *));
        if (!r->vouchers)
            goto nomem;
        for (size_t i = 0; i < nv; i++) {
            if (!(r->vouchers[i] = strdup(vouchers[i])))
                goto nomem;
            r->n_vouchers++;
        }
    }
    if (!r->name)
        goto nomem;
    if (k->n == k->cap) {
        size_t nc = k->cap ? k->cap * 2 : 8;
        struct kt_keyring **nr = realloc(k->rings, nc * sizeof(*nr));
        if (!nr)
            goto nomem;
        k->rings = nr;
        k->cap = nc;
    }
    k->rings[k->n++] = r;
    if (out)
        *out = r;
    return 0;
nomem:
    keyring_free(r);
    return -ENOMEM;
}

int kt_keyrings_new(struct kt_keyrings **out)
{
    /* machine is linked into secondary in the kernel, so its keys vouch too */
    static const char *const sb[] = {"builtin", "secondary", "machine"};
    struct kt_keyrings *k = calloc(1, sizeof(*k));
    if (!k)
        return -ENOMEM;
    if (ring_new(k, "builtin", KT_RESTRICT_TRUSTED_ONLY, NULL, 0, true, &k->builtin) < 0 ||
        ring_new(k, "secondary", KT_RESTRICT_SIGNED_BY, sb, 3, true, &k->secondary) < 0 ||
        ring_new(k, "platform", KT_RESTRICT_NONE, NULL, 0, true, &k->platform) < 0 ||
        ring_new(k, "machine", KT_RESTRICT_NONE, NULL, 0, true, &k->machine) < 0 ||
        ring_new(k, "blacklist", KT_RESTRICT_BLACKLIST, NULL, 0, true, &k->blacklist) < 0) {
        kt_keyrings_free(k);
        return -ENOMEM;
    }
    *out = k;
    return 0;
}

void kt_keyrings_free(struct kt_keyrings *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->n; i++)
        keyring_free(k->rings[i]);
    free(k->rings);
    for (size_t i = 0; i < k->n_bl; i++) {
        free((char *)k->bl[i]->pub.source);
        free(k->bl[i]);
    }
    free(k->bl);
    ht_free(&k->bl_ht);
    free(k->removed);
    free(k->bl_removed);
    free(k);
}

struct kt_keyring *kt_keyrings_get(struct kt_keyrings *k, const char *name)
{
    if (!k || !name)
        return NULL;
    if (name[0] == '.') /* the kernel's ".builtin_trusted_keys" style */
        name++;
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->rings[i]->name, name) == 0)
            return k->rings[i];
    if (!strcmp(name, "builtin_trusted_keys"))
        return k->builtin;
    if (!strcmp(name, "secondary_trusted_keys"))
        return k->secondary;
    return NULL;
}

size_t kt_keyrings_count(const struct kt_keyrings *k) { return k ? k->n : 0; }
struct kt_keyring *kt_keyrings_at(struct kt_keyrings *k, size_t i)
{
    return k && i < k->n ? k->rings[i] : NULL;
}

static bool valid_ring_name(const char *s)
{
    if (!s || !*s || strlen(s) > 64)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
            return false;
    return true;
}

int kt_keyring_create(struct kt_keyrings *k, const char *name, enum kt_restrict r,
                      const char *const *vouchers, size_t n_vouchers, struct kt_error *err)
{
    if (!valid_ring_name(name))
        return kt_fail(err, -EINVAL, KT_NO_OFFSET,
                       "keyring name '%s': use letters, digits, '_', '-', '.' (at most 64)",
                       name ? name : "");
    if (kt_keyrings_get(k, name))
        return kt_fail(err, -EEXIST, KT_NO_OFFSET, "keyring '%s' already exists", name);
    if (r == KT_RESTRICT_BLACKLIST)
        return kt_fail(err, -EINVAL, KT_NO_OFFSET, "keyring '%s': only 'blacklist' is a blacklist",
                       name);
    if (r == KT_RESTRICT_SIGNED_BY) {
        if (n_vouchers == 0)
            return kt_fail(err, -EINVAL, KT_NO_OFFSET,
                           "keyring '%s': signed-by needs at least one keyring", name);
        for (size_t i = 0; i < n_vouchers; i++) {
            struct kt_keyring *v = kt_keyrings_get(k, vouchers[i]);
            if (!v && strcmp(vouchers[i], name) != 0)
                return kt_fail(err, -EINVAL, KT_NO_OFFSET, "keyring '%s': no keyring '%s' to sign by",
                               name, vouchers[i]);
            if (v == k->blacklist)
                return kt_fail(err, -EINVAL, KT_NO_OFFSET,
                               "keyring '%s': the blacklist cannot vouch for keys", name);
        }
    } else {
        n_vouchers = 0;
    }
    int rc = ring_new(k, name, r, vouchers, n_vouchers, false, NULL);
    if (rc < 0)
        return kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    return 0;
}

const char *kt_keyring_name(const struct kt_keyring *r) { return r ? r->name : NULL; }
enum kt_restrict kt_keyring_restriction(const struct kt_keyring *r) { return r->restr; }
size_t kt_keyring_count(const struct kt_keyring *r) { return r ? r->n : 0; }
const struct kt_key *kt_keyring_key(const struct kt_keyring *r, size_t i)
{
    return r && i < r->n ? &r->keys[i]->pub : NULL;
}
bool kt_keyring_is_default(const struct kt_keyring *r) { return r->is_default; }
const char *const *kt_keyring_vouchers(const struct kt_keyring *r, size_t *n)
{
    *n = r->n_vouchers;
    return (const char *const *)r->vouchers;
}
bool kt_keyring_is_saved(const struct kt_keyring *r) { return r->saved; }
void kt_keyring_set_saved(struct kt_keyring *r, bool saved) { r->saved = saved; }

const char *kt_keyring_restriction_str(const struct kt_keyring *r, char *buf, size_t cap)
{
    switch (r->restr) {
    case KT_RESTRICT_NONE: snprintf(buf, cap, "none"); break;
    case KT_RESTRICT_TRUSTED_ONLY: snprintf(buf, cap, "trusted-only"); break;
    case KT_RESTRICT_BLACKLIST: snprintf(buf, cap, "blacklist"); break;
    case KT_RESTRICT_SIGNED_BY: {
        size_t o = (size_t)snprintf(buf, cap, "signed-by:");
        for (size_t i = 0; i < r->n_vouchers && o < cap; i++)
            o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? "," : "", r->vouchers[i]);
        break;
    }
    }
    return buf;
}

int kt_restriction_parse(const char *s, enum kt_restrict *r, char **store_buf,
                         const char **vouchers, size_t cap, size_t *n_vouchers)
{
    *store_buf = NULL;
    *n_vouchers = 0;
    if (!strcmp(s, "none")) {
        *r = KT_RESTRICT_NONE;
        return 0;
    }
    if (!strcmp(s, "trusted-only")) {
        *r = KT_RESTRICT_TRUSTED_ONLY;
        return 0;
    }
    if (strncmp(s, "signed-by:", 10) != 0 || !s[10])
        return -EINVAL;
    char *copy = strdup(s + 10);
    if (!copy)
        return -ENOMEM;
    char *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (*n_vouchers == cap) {
            free(copy);
            return -EINVAL;
        }
        vouchers[(*n_vouchers)++] = t;
    }
    if (*n_vouchers == 0) {
        free(copy);
        return -EINVAL;
    }
    *r = KT_RESTRICT_SIGNED_BY;
    *store_buf = copy;
    return 0;
}

/* ---- per-ring lookups ------------------------------------------------------ */

const struct kt_key *kt_keyring_find_by_skid(const struct kt_keyring *r, kt_span skid)
{
    if (!r || !skid.len)
        return NULL;
    struct ikey *k = ht_get(&r->by_skid, skid.p, skid.len, NULL, 0);
    return k ? &k->pub : NULL;
}

const struct kt_key *kt_keyring_find_by_issuer_serial(const struct kt_keyring *r,
                                                     kt_span issuer_raw, kt_span serial)
{
    if (!r || !issuer_raw.len || !serial.len)
        return NULL;
    serial = kt_integer_magnitude(serial);
    struct ikey *k = ht_get(&r->by_isn, issuer_raw.p, issuer_raw.len, serial.p, serial.len);
    return k ? &k->pub : NULL;
}

const struct kt_key *kt_keyring_find_by_description(const struct kt_keyring *r, const char *d)
{
    if (!r || !d)
        return NULL;
    struct ikey *k = ht_get(&r->by_desc, (const uint8_t *)d, strlen(d), NULL, 0);
    return k ? &k->pub : NULL;
}

const struct kt_key *kt_keyring_find_by_sha256(const struct kt_keyring *r, const uint8_t sha[32])
{
    if (!r)
        return NULL;
    struct ikey *k = ht_get(&r->by_sha, sha, 32, NULL, 0);
    return k ? &k->pub : NULL;
}

/* ---- the blacklist --------------------------------------------------------- */

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
    return ht_get(&k->bl_ht, tag, 2, digest, len);
}

static int bl_add(struct kt_keyrings *k, const char *kind, enum kt_hash h, const uint8_t *digest,
                  const char *source, int64_t store_id, bool dup_ok)
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
    b->store_id = store_id;
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
    if (ht_put(&k->bl_ht, b->tag, 2, b->pub.digest, len, b) < 0)
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
    return bl_add(k, kind, h, digest, source, 0, false);
}

int kt_blacklist_restore_hash(struct kt_keyrings *k, const char *kind, enum kt_hash h,
                              const uint8_t *digest, const char *source, int64_t store_id)
{
    return bl_add(k, kind, h, digest, source, store_id, true);
}

static int push_id(int64_t **arr, size_t *n, size_t *cap, int64_t id)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        int64_t *na = realloc(*arr, nc * sizeof(*na));
        if (!na)
            return -ENOMEM;
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = id;
    return 0;
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
    if (b->store_id && push_id(&k->bl_removed, &k->n_bl_removed, &k->cap_bl_removed,
                               b->store_id) < 0)
        return -ENOMEM;
    ht_del(&k->bl_ht, b->tag, 2, b->pub.digest, b->pub.len, b);
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

size_t kt_blacklist_removed_ids(const struct kt_keyrings *k, const int64_t **ids)
{
    *ids = k->bl_removed;
    return k->n_bl_removed;
}
void kt_blacklist_clear_removed(struct kt_keyrings *k) { k->n_bl_removed = 0; }

size_t kt_blacklist_hash_count(const struct kt_keyrings *k) { return k->n_bl; }
const struct kt_blacklist_hash *kt_blacklist_hash_at(const struct kt_keyrings *k, size_t i)
{
    return i < k->n_bl ? &k->bl[i]->pub : NULL;
}
int64_t kt_blacklist_hash_store_id(const struct kt_keyrings *k, size_t i)
{
    return i < k->n_bl ? k->bl[i]->store_id : 0;
}
void kt_blacklist_hash_set_store_id(struct kt_keyrings *k, size_t i, int64_t id)
{
    if (i < k->n_bl)
        k->bl[i]->store_id = id;
}

bool kt_blacklist_has_bin(const struct kt_keyrings *k, enum kt_hash h, const uint8_t *digest)
{
    return k && bl_find(k, 'b', h, digest) != NULL;
}

bool kt_blacklist_has_tbs(const struct kt_keyrings *k, const uint8_t *digest, size_t len)
{
    enum kt_hash h = len == 32 ? KT_HASH_SHA256 : len == 48 ? KT_HASH_SHA384
                   : len == 64 ? KT_HASH_SHA512 : KT_HASH_NONE;
    return k && h != KT_HASH_NONE && bl_find(k, 't', h, digest) != NULL;
}

bool kt_blacklist_has_cert(const struct kt_keyrings *k, const struct kt_x509 *c)
{
    if (!k || !c)
        return false;
    if (bl_find(k, 't', KT_HASH_SHA256, c->tbs_sha256))
        return true;
    static const enum kt_hash more[] = {KT_HASH_SHA384, KT_HASH_SHA512};
    for (size_t i = 0; i < 2; i++) {
        uint8_t d[KT_HASH_MAX_SIZE];
        if (k->n_tbs[more[i]] && kt_digest(more[i], c->tbs.p, c->tbs.len, d) == 0 &&
            bl_find(k, 't', more[i], d))
            return true;
    }
    /* a revocation certificate: the same certificate, or the same public key */
    const struct kt_keyring *b = k->blacklist;
    if (b->n == 0)
        return false;
    if (ht_get(&b->by_sha, c->sha256, 32, NULL, 0))
        return true;
    return c->spki.len && ht_get(&b->by_spki, c->spki.p, c->spki.len, NULL, 0) != NULL;
}

/* ---- adding keys ----------------------------------------------------------- */

static int ring_index(struct kt_keyring *r, struct ikey *key)
{
    const struct kt_x509 *c = key->pub.cert;
    kt_span ser = kt_integer_magnitude(c->serial);
    int rc = 0;
    if (c->skid.len)
        rc |= ht_put(&r->by_skid, c->skid.p, c->skid.len, NULL, 0, key);
    if (c->issuer_raw.len && ser.len)
        rc |= ht_put(&r->by_isn, c->issuer_raw.p, c->issuer_raw.len, ser.p, ser.len, key);
    if (c->subject_raw.len)
        rc |= ht_put(&r->by_subj, c->subject_raw.p, c->subject_raw.len, NULL, 0, key);
    if (c->description)
        rc |= ht_put(&r->by_desc, (const uint8_t *)c->description, strlen(c->description), NULL,
                     0, key);
    rc |= ht_put(&r->by_sha, c->sha256, 32, NULL, 0, key);
    if (r->restr == KT_RESTRICT_BLACKLIST && c->spki.len)
        rc |= ht_put(&r->by_spki, c->spki.p, c->spki.len, NULL, 0, key);
    return rc ? -ENOMEM : 0;
}

static void ring_unindex(struct kt_keyring *r, struct ikey *key)
{
    const struct kt_x509 *c = key->pub.cert;
    kt_span ser = kt_integer_magnitude(c->serial);
    if (c->skid.len)
        ht_del(&r->by_skid, c->skid.p, c->skid.len, NULL, 0, key);
    if (c->issuer_raw.len && ser.len)
        ht_del(&r->by_isn, c->issuer_raw.p, c->issuer_raw.len, ser.p, ser.len, key);
    if (c->subject_raw.len)
        ht_del(&r->by_subj, c->subject_raw.p, c->subject_raw.len, NULL, 0, key);
    if (c->description)
        ht_del(&r->by_desc, (const uint8_t *)c->description, strlen(c->description), NULL, 0,
               key);
    ht_del(&r->by_sha, c->sha256, 32, NULL, 0, key);
    if (c->spki.len)
        ht_del(&r->by_spki, c->spki.p, c->spki.len, NULL, 0, key);
}

/* Parse a DER copy into a new key (not yet linked). */
static int key_make(const uint8_t *der, size_t len, const char *source, struct ikey **out,
                    struct kt_error *err)
{
    if (!der || !len)
        return kt_fail(err, -EBADMSG, 0, "certificate: empty input");
    struct ikey *k = calloc(1, sizeof(*k));
    if (!k)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    k->pub.der = malloc(len);
    k->pub.source = strdup(source ? source : "");
    if (!k->pub.der || !k->pub.source) {
        free(k->pub.der);
        free(k->pub.source);
        free(k);
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    }
    memcpy(k->pub.der, der, len);
    k->pub.der_len = len;
    int rc = kt_x509_parse(k->pub.der, len, &k->pub.cert, err);
    if (rc < 0) {
        free(k->pub.der);
        free(k->pub.source);
        free(k);
        return rc;
    }
    k->pub.added = (int64_t)time(NULL);
    *out = k;
    return 0;
}

static void key_free(struct ikey *k)
{
    kt_x509_free(k->pub.cert);
    free(k->pub.der);
    free(k->pub.source);
    free(k);
}

static int ring_link(struct kt_keyring *r, struct ikey *key)
{
    if (r->n == r->cap) {
        size_t nc = r->cap ? r->cap * 2 : 16;
        struct ikey **nk = realloc(r->keys, nc * sizeof(*nk));
        if (!nk)
            return -ENOMEM;
        r->keys = nk;
        r->cap = nc;
    }
    if (ring_index(r, key) < 0) {
        ring_unindex(r, key);
        return -ENOMEM;
    }
    r->keys[r->n++] = key;
    key->pub.ring = r;
    return 0;
}

/* ---- the one lookup by key ids (the kernel's find_asymmetric_key) -------- */

struct kt_key_ids kt_key_ids_of_cert(const struct kt_x509 *c)
{
    struct kt_key_ids ids = {0};
    if (c->issuer_raw.len && c->serial.len)
        ids.issuer = c->issuer_raw, ids.serial = c->serial;
    ids.skid = c->skid;
    return ids;
}

struct kt_key_ids kt_key_ids_of_signer(const struct kt_x509 *c, bool with_issuer_name)
{
    struct kt_key_ids ids = {0};
    if (c->akid_issuer.len && c->akid_serial.len)
        ids.issuer = c->akid_issuer, ids.serial = c->akid_serial;
    ids.skid = c->akid_keyid;
    if (with_issuer_name)
        ids.subject = c->issuer_raw;
    return ids;
}

bool kt_key_ids_empty(const struct kt_key_ids *ids)
{
    return !(ids->issuer.len && ids->serial.len) && !ids->skid.len && !ids->subject.len;
}

/* The first key of `ring` the ids name (trusted ones only if need_trusted). */
static const struct kt_key *ring_find(const struct kt_keyring *ring, const struct kt_key_ids *ids,
                                      bool need_trusted)
{
    const struct ht *t;
    const uint8_t *a, *b = NULL;
    size_t alen, blen = 0;
    kt_span ser = kt_integer_magnitude(ids->serial);
    if (ids->issuer.len && ser.len) {
        t = &ring->by_isn, a = ids->issuer.p, alen = ids->issuer.len, b = ser.p, blen = ser.len;
    } else if (ids->skid.len) {
        t = &ring->by_skid, a = ids->skid.p, alen = ids->skid.len;
    } else if (ids->subject.len) {
        t = &ring->by_subj, a = ids->subject.p, alen = ids->subject.len;
    } else {
        return NULL;
    }
    bool check_skid = ids->issuer.len && ser.len && ids->skid.len;
    for (struct ht_ent *e = NULL; (e = ht_next(t, e, a, alen, b, blen));) {
        const struct ikey *k = e->v;
        if (need_trusted && !k->pub.trusted)
            continue;
        if (check_skid && !kt_span_eq(ids->skid, k->pub.cert->skid))
            continue; /* id0 matches, but the key lacks id1 or differs */
        return &k->pub;
    }
    return NULL;
}

/* The key in `ring` that `c` names as its signer (AKID, else issuer name),
 * if it verifies c's signature. */
static const struct kt_key *find_signer_in(const struct kt_keyring *ring, const struct kt_x509 *c,
                                           bool need_trusted)
{
    struct kt_key_ids ids = kt_key_ids_of_signer(c, true);
    const struct kt_key *s = ring_find(ring, &ids, need_trusted);
    if (!s || !s->cert->pub || kt_x509_check_signature(c, s->cert->pub) != 0)
        return NULL;
    return s;
}

int kt_keyring_set_run_voucher(struct kt_keyring *r, bool on)
{
    if (!r || r->restr == KT_RESTRICT_BLACKLIST)
        return -EINVAL;
    r->run_voucher = on;
    return 0;
}

const char *kt_purpose_text(enum kt_purpose p)
{
    switch (p) {
    case KT_PURPOSE_MODULE: return "modules";
    case KT_PURPOSE_UEFI: return "UEFI images";
    case KT_PURPOSE_KEXEC: return "kexec images";
    case KT_PURPOSE_BUILTIN: return "builtin-only checks";
    }
    return "?";
}

/* Default keyrings a purpose may use (the kernel's VERIFY_USE_* choices). */
static bool purpose_uses(const struct kt_keyrings *k, enum kt_purpose p,
                         const struct kt_keyring *r)
{
    if (r == k->builtin)
        return true;
    if (r == k->secondary || r == k->machine)
        return p != KT_PURPOSE_BUILTIN;
    if (r == k->platform)
        return p == KT_PURPOSE_UEFI || p == KT_PURPOSE_KEXEC;
    return false;
}

bool kt_keyring_vouches_for(const struct kt_keyrings *k, const struct kt_keyring *r,
                            enum kt_purpose p)
{
    return r && r != k->blacklist && (purpose_uses(k, p, r) || r->run_voucher);
}

/* Rings a purpose may use, in search order: builtin, secondary, machine,
 * platform, then keyrings named for the run. */
static size_t purpose_rings(const struct kt_keyrings *k, enum kt_purpose p,
                            const struct kt_keyring **out, size_t cap)
{
    size_t n = 0;
    const struct kt_keyring *order[] = {k->builtin, k->secondary, k->machine, k->platform};
    for (size_t i = 0; i < 4; i++)
        if (kt_keyring_vouches_for(k, order[i], p))
            out[n++] = order[i];
    for (size_t i = 0; i < k->n && n < cap; i++)
        if (!k->rings[i]->is_default && k->rings[i]->run_voucher)
            out[n++] = k->rings[i];
    return n;
}

#define MAX_SEARCH 64

static void akid_text(const struct kt_x509 *c, char *buf, size_t cap)
{
    char hex[2 * 64 + 1];
    if (c->akid_keyid.len && c->akid_keyid.len <= 64)
        snprintf(buf, cap, "AKID keyid %s", kt_hex(c->akid_keyid.p, c->akid_keyid.len, hex));
    else if (c->akid_serial.len && c->akid_serial.len <= 64)
        snprintf(buf, cap, "AKID serial %s", kt_hex(c->akid_serial.p, c->akid_serial.len, hex));
    else
        snprintf(buf, cap, "no AKID; issuer %s", c->issuer ? c->issuer : "?");
}

int kt_keyring_add(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *der, size_t len,
                   const char *source, enum kt_add_how how, const struct kt_key **added,
                   struct kt_error *err)
{
    if (added)
        *added = NULL;
    if (!k || !r)
        return kt_fail(err, -EINVAL, KT_NO_OFFSET, "no such keyring");
    struct ikey *key;
    int rc = key_make(der, len, source, &key, err);
    if (rc < 0)
        return rc;
    const struct kt_x509 *c = key->pub.cert;
    char desc[200]; /* for messages: the key is freed before they are made */
    snprintf(desc, sizeof(desc), "%s", c->description ? c->description : "(no description)");

    if (r->restr != KT_RESTRICT_BLACKLIST && kt_blacklist_has_cert(k, c)) {
        key_free(key);
        return kt_fail(err, -EKEYREJECTED, KT_NO_OFFSET, "%s: '%s' is blacklisted", r->name, desc);
    }
    struct ikey *dup = ht_get(&r->by_sha, c->sha256, 32, NULL, 0);
    if (dup) {
        key_free(key);
        if (added)
            *added = &dup->pub;
        return kt_fail(err, -EEXIST, KT_NO_OFFSET, "%s: '%s' is already in the keyring", r->name,
                       desc);
    }
    if (r->restr == KT_RESTRICT_BLACKLIST) {
        key->pub.trusted = false; /* a revocation certificate */
        goto link;
    }

    if (how == KT_ADD_VOUCHED && r->is_default) {
        /* the caller verified its PE container and chose r by who vouched
         * for it (kt_pe_load_keys); a user keyring's own restriction
         * applies to vouched keys exactly as to any other add */
        key->pub.trusted = true;
        goto link;
    }
    if (r == k->builtin || r == k->platform || r == k->machine) {
        key->pub.trusted = true; /* compiled in / firmware / MOK: a trusted source */
        goto link;
    }

    /* the signer is the key the AKID names, else (no AKID) the key whose
     * subject is the issuer name: restrict_link_by_signature's lookup */
    const struct kt_key *signer = NULL;
    if (r->restr == KT_RESTRICT_SIGNED_BY) {
        for (size_t i = 0; i < r->n_vouchers && !signer; i++) {
            const struct kt_keyring *v = kt_keyrings_get(k, r->vouchers[i]);
            if (v)
                signer = find_signer_in(v, c, false);
        }
        if (!signer) {
            char a[160], rs[200];
            akid_text(c, a, sizeof(a));
            key_free(key);
            return kt_fail(err, -EPERM, KT_NO_OFFSET,
                           "%s: refused '%s': no key in %s signed it (%s)", r->name, desc,
                           kt_keyring_restriction_str(r, rs, sizeof(rs)) + 10, a);
        }
        key->pub.trusted = signer->trusted;
        goto link;
    }

    /* none / trusted-only: trusted when a trusted key signed it */
    {
        const struct kt_keyring *rings[MAX_SEARCH];
        size_t n = purpose_rings(k, KT_PURPOSE_MODULE, rings, MAX_SEARCH);
        for (size_t i = 0; i < n && !signer; i++)
            signer = find_signer_in(rings[i], c, true);
    }
    key->pub.trusted = signer != NULL;
    if (r->restr == KT_RESTRICT_TRUSTED_ONLY && !key->pub.trusted) {
        key_free(key);
        return kt_fail(err, -EPERM, KT_NO_OFFSET,
                       "%s: refused '%s': trusted-only and no trusted key signed it", r->name,
                       desc);
    }

link:
    rc = ring_link(r, key);
    if (rc < 0) {
        key_free(key);
        return kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    }
    if (added)
        *added = &key->pub;
    return 0;
}

int kt_keyring_restore(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *der,
                       size_t len, const char *source, int64_t added, bool trusted,
                       int64_t store_id, struct kt_error *err)
{
    struct ikey *key;
    int rc = key_make(der, len, source, &key, err);
    if (rc < 0)
        return rc;
    if (ht_get(&r->by_sha, key->pub.cert->sha256, 32, NULL, 0)) {
        key_free(key);
        return kt_fail(err, -EEXIST, KT_NO_OFFSET, "%s: duplicate key", r->name);
    }
    key->pub.trusted = r->restr == KT_RESTRICT_BLACKLIST ? false : trusted;
    key->pub.added = added;
    key->store_id = store_id;
    rc = ring_link(r, key);
    if (rc < 0) {
        key_free(key);
        return kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    }
    (void)k;
    return 0;
}

int64_t kt_key_store_id(const struct kt_key *key) { return ik(key)->store_id; }
void kt_key_set_store_id(const struct kt_key *key, int64_t id) { ik(key)->store_id = id; }
void kt_key_set_ephemeral(const struct kt_key *key, bool e) { ik(key)->ephemeral = e; }
bool kt_key_is_ephemeral(const struct kt_key *key) { return ik(key)->ephemeral; }

size_t kt_keyrings_removed_ids(const struct kt_keyrings *k, const int64_t **ids)
{
    *ids = k->removed;
    return k->n_removed;
}
void kt_keyrings_clear_removed(struct kt_keyrings *k) { k->n_removed = 0; }

/* ---- ids and removal ------------------------------------------------------- */

/* Does the hex string `want` (lowercase) equal (exact) or end (partial) the
 * hex of bytes p/n? */
static bool hex_id_match(const uint8_t *p, size_t n, const char *want, size_t wl, bool partial)
{
    if (!n || !wl || wl > 2 * n)
        return false;
    if (!partial && wl != 2 * n)
        return false;
    static const char hx[] = "0123456789abcdef";
    size_t skip = 2 * n - wl; /* hex digits not compared */
    for (size_t i = 0; i < wl; i++) {
        size_t d = skip + i;
        uint8_t b = p[d / 2];
        char ch = hx[d % 2 ? b & 15 : b >> 4];
        if (ch != want[i])
            return false;
    }
    return true;
}

bool kt_key_matches_id(const struct kt_key *key, const char *id)
{
    if (!key || !id || !*id)
        return false;
    const struct kt_x509 *c = key->cert;
    if (c->description && !strcmp(c->description, id))
        return true;
    bool partial = true;
    if (!strncmp(id, "id:", 3)) {
        id += 3;
    } else if (!strncmp(id, "ex:", 3)) {
        id += 3;
        partial = false;
    }
    char want[2 * 1024 + 1];
    size_t wl = 0;
    for (const char *s = id; *s; s++) {
        if (*s == ':' && wl > 0)
            continue; /* allow "ab:cd:ef" */
        if (!isxdigit((unsigned char)*s) || wl + 1 >= sizeof(want))
            return false;
        want[wl++] = (char)tolower((unsigned char)*s);
    }
    want[wl] = 0;
    if (!wl)
        return false;
    kt_span ser = c->serial, mag = kt_integer_magnitude(c->serial);
    if (hex_id_match(c->skid.p, c->skid.len, want, wl, partial) ||
        hex_id_match(ser.p, ser.len, want, wl, partial) ||
        hex_id_match(mag.p, mag.len, want, wl, partial) ||
        hex_id_match(c->sha256, 32, want, wl, partial))
        return true;
    /* the kernel's id 0: serial then raw issuer */
    if (c->issuer_raw.len && ser.len && wl <= 2 * (ser.len + c->issuer_raw.len)) {
        if (!partial && wl != 2 * (ser.len + c->issuer_raw.len))
            return false;
        size_t tail_issuer = wl <= 2 * c->issuer_raw.len ? wl : 2 * c->issuer_raw.len;
        size_t head = wl - tail_issuer; /* digits from the serial's end */
        if (!hex_id_match(c->issuer_raw.p, c->issuer_raw.len, want + head, tail_issuer, true))
            return false;
        return head == 0 || hex_id_match(ser.p, ser.len, want, head, true);
    }
    return false;
}

int kt_keyring_remove(struct kt_keyrings *k, struct kt_keyring *r, const char *id)
{
    if (!k || !r || !id || !*id)
        return -EINVAL;
    int removed = 0;
    size_t j = 0;
    for (size_t i = 0; i < r->n; i++) {
        struct ikey *key = r->keys[i];
        if (!kt_key_matches_id(&key->pub, id)) {
            r->keys[j++] = key;
            continue;
        }
        if (key->store_id) {
            if (k->n_removed == k->cap_removed) {
                size_t nc = k->cap_removed ? k->cap_removed * 2 : 16;
                int64_t *nr = realloc(k->removed, nc * sizeof(*nr));
                if (!nr) {
                    for (; i < r->n; i++)
                        r->keys[j++] = r->keys[i];
                    r->n = j;
                    return -ENOMEM;
                }
                k->removed = nr;
                k->cap_removed = nc;
            }
            k->removed[k->n_removed++] = key->store_id;
        }
        ring_unindex(r, key);
        key_free(key);
        removed++;
    }
    r->n = j;
    return removed;
}

/* ---- trust lookups --------------------------------------------------------- */

const struct kt_key *kt_trust_find(const struct kt_keyrings *k, enum kt_purpose p,
                                   const struct kt_key_ids *ids)
{
    if (!k || !ids || kt_key_ids_empty(ids))
        return NULL;
    const struct kt_keyring *rings[MAX_SEARCH];
    size_t n = purpose_rings(k, p, rings, MAX_SEARCH);
    for (size_t i = 0; i < n; i++) {
        const struct kt_key *key = ring_find(rings[i], ids, true);
        if (key)
            return key;
    }
    return NULL;
}

const struct kt_key *kt_keyrings_find_any(const struct kt_keyrings *k,
                                          const struct kt_key_ids *ids)
{
    if (!k || !ids || kt_key_ids_empty(ids))
        return NULL;
    for (size_t i = 0; i < k->n; i++) {
        if (k->rings[i] == k->blacklist)
            continue;
        const struct kt_key *key = ring_find(k->rings[i], ids, false);
        if (key)
            return key;
    }
    return NULL;
}

const struct kt_key *kt_trust_find_by_issuer_serial(const struct kt_keyrings *k,
                                                   enum kt_purpose p, kt_span issuer_raw,
                                                   kt_span serial)
{
    struct kt_key_ids ids = {.issuer = issuer_raw, .serial = serial};
    return issuer_raw.len && serial.len ? kt_trust_find(k, p, &ids) : NULL;
}

const struct kt_key *kt_trust_find_by_skid(const struct kt_keyrings *k, enum kt_purpose p,
                                          kt_span skid)
{
    struct kt_key_ids ids = {.skid = skid};
    return kt_trust_find(k, p, &ids);
}

const struct kt_key *kt_keyrings_find_cert(const struct kt_keyrings *k, kt_span issuer_raw,
                                           kt_span serial, kt_span skid)
{
    if (!k)
        return NULL;
    /* trusted keys first, so a verifier finds the key that can vouch */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < k->n; i++) {
            const struct kt_keyring *r = k->rings[i];
            if (r == k->blacklist)
                continue;
            struct ht_ent *e = NULL;
            if (issuer_raw.len && serial.len) {
                kt_span ser = kt_integer_magnitude(serial);
                while ((e = ht_next(&r->by_isn, e, issuer_raw.p, issuer_raw.len, ser.p, ser.len)))
                    if (pass || ((struct ikey *)e->v)->pub.trusted)
                        return &((struct ikey *)e->v)->pub;
            } else if (skid.len) {
                while ((e = ht_next(&r->by_skid, e, skid.p, skid.len, NULL, 0)))
                    if (pass || ((struct ikey *)e->v)->pub.trusted)
                        return &((struct ikey *)e->v)->pub;
            }
        }
    }
    return NULL;
}
