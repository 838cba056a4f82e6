/* keyring.c - keyrings: named containers of keys, their hash indexes, the
 * lookups by ids (the kernel's find_asymmetric_key) and removal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/keys_int.h"
#include "keys/trust.h"
#include "util/err.h"

static void keyring_free(struct kt_keyring *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        kt_key_free(&r->keys[i]->pub);
    free(r->keys);
    for (size_t i = 0; i < r->n_vouchers; i++)
        free(r->vouchers[i]);
    free(r->vouchers);
    kt_ht_free(&r->by_skid);
    kt_ht_free(&r->by_isn);
    kt_ht_free(&r->by_subj);
    kt_ht_free(&r->by_desc);
    kt_ht_free(&r->by_sha);
    kt_ht_free(&r->by_spki);
    free(r->name);
    free(r);
}

int kt_keyrings_add_ring(struct kt_keyrings *k, const char *name, enum kt_restrict restr,
                         const char *const *vouchers, size_t nv, bool is_default,
                         struct kt_keyring **out)
{
    struct kt_keyring *r = calloc(1, sizeof(*r));
    if (!r)
        return -ENOMEM;
    r->name = strdup(name);
    r->restr = restr;
    r->is_default = is_default;
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
    if (restr == KT_RESTRICT_BLACKLIST && !k->blacklist)
        k->blacklist = r;
    if (out)
        *out = r;
    return 0;
nomem:
    keyring_free(r);
    return -ENOMEM;
}

int kt_keyrings_new_empty(struct kt_keyrings **out)
{
    struct kt_keyrings *k = calloc(1, sizeof(*k));
    if (!k)
        return -ENOMEM;
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
    kt_ht_free(&k->bl_ht);
    kt_blacklist_index_free(k);
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
        return kt_keyrings_get(k, "builtin");
    if (!strcmp(name, "secondary_trusted_keys"))
        return kt_keyrings_get(k, "secondary");
    return NULL;
}

size_t kt_keyrings_count(const struct kt_keyrings *k) { return k ? k->n : 0; }
struct kt_keyring *kt_keyrings_at(struct kt_keyrings *k, size_t i)
{
    return k && i < k->n ? k->rings[i] : NULL;
}

const struct kt_keyring *kt_keyrings_at_const(const struct kt_keyrings *k, size_t i)
{
    return k && i < k->n ? k->rings[i] : NULL;
}
const struct kt_keyring *kt_keyrings_blacklist(const struct kt_keyrings *k)
{
    return k ? k->blacklist : NULL;
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

int kt_keyring_set_run_voucher(struct kt_keyring *r, bool on)
{
    if (!r || r->restr == KT_RESTRICT_BLACKLIST)
        return -EINVAL;
    r->run_voucher = on;
    return 0;
}

bool kt_keyring_is_run_voucher(const struct kt_keyring *r) { return r->run_voucher; }

/* ---- per-ring lookups ------------------------------------------------------ */

const struct kt_key *kt_keyring_find_by_skid(const struct kt_keyring *r, kt_span skid)
{
    if (!r || !skid.len)
        return NULL;
    struct ikey *k = kt_ht_get(&r->by_skid, skid.p, skid.len, NULL, 0);
    return k ? &k->pub : NULL;
}

const struct kt_key *kt_keyring_find_by_issuer_serial(const struct kt_keyring *r,
                                                     kt_span issuer_raw, kt_span serial)
{
    if (!r || !issuer_raw.len || !serial.len)
        return NULL;
    serial = kt_integer_magnitude(serial);
    struct ikey *k = kt_ht_get(&r->by_isn, issuer_raw.p, issuer_raw.len, serial.p, serial.len);
    return k ? &k->pub : NULL;
}

const struct kt_key *kt_keyring_find_by_description(const struct kt_keyring *r, const char *d)
{
    if (!r || !d)
        return NULL;
    struct ikey *k = kt_ht_get(&r->by_desc, (const uint8_t *)d, strlen(d), NULL, 0);
    return k ? &k->pub : NULL;
}

const struct kt_key *kt_keyring_find_by_sha256(const struct kt_keyring *r, const uint8_t sha[32])
{
    if (!r)
        return NULL;
    struct ikey *k = kt_ht_get(&r->by_sha, sha, 32, NULL, 0);
    return k ? &k->pub : NULL;
}

/* ---- adding keys ----------------------------------------------------------- */

static int ring_index(struct kt_keyring *r, struct ikey *key)
{
    const struct kt_x509 *c = key->pub.cert;
    kt_span ser = kt_integer_magnitude(c->serial);
    int rc = 0;
    if (c->skid.len)
        rc |= kt_ht_put(&r->by_skid, c->skid.p, c->skid.len, NULL, 0, key);
    if (c->issuer_raw.len && ser.len)
        rc |= kt_ht_put(&r->by_isn, c->issuer_raw.p, c->issuer_raw.len, ser.p, ser.len, key);
    if (c->subject_raw.len)
        rc |= kt_ht_put(&r->by_subj, c->subject_raw.p, c->subject_raw.len, NULL, 0, key);
    if (c->description)
        rc |= kt_ht_put(&r->by_desc, (const uint8_t *)c->description, strlen(c->description),
                        NULL, 0, key);
    rc |= kt_ht_put(&r->by_sha, c->sha256, 32, NULL, 0, key);
    if (r->restr == KT_RESTRICT_BLACKLIST && c->spki.len)
        rc |= kt_ht_put(&r->by_spki, c->spki.p, c->spki.len, NULL, 0, key);
    return rc ? -ENOMEM : 0;
}

static void ring_unindex(struct kt_keyring *r, struct ikey *key)
{
    const struct kt_x509 *c = key->pub.cert;
    kt_span ser = kt_integer_magnitude(c->serial);
    if (c->skid.len)
        kt_ht_del(&r->by_skid, c->skid.p, c->skid.len, NULL, 0, key);
    if (c->issuer_raw.len && ser.len)
        kt_ht_del(&r->by_isn, c->issuer_raw.p, c->issuer_raw.len, ser.p, ser.len, key);
    if (c->subject_raw.len)
        kt_ht_del(&r->by_subj, c->subject_raw.p, c->subject_raw.len, NULL, 0, key);
    if (c->description)
        kt_ht_del(&r->by_desc, (const uint8_t *)c->description, strlen(c->description), NULL,
                  0, key);
    kt_ht_del(&r->by_sha, c->sha256, 32, NULL, 0, key);
    if (c->spki.len)
        kt_ht_del(&r->by_spki, c->spki.p, c->spki.len, NULL, 0, key);
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

int kt_keyring_link(struct kt_keyring *r, struct kt_key *key)
{
    return r && key ? ring_link(r, kt_ikey(key)) : -EINVAL;
}

const struct kt_key *kt_keyring_find(const struct kt_keyring *ring, const struct kt_key_ids *ids,
                                     bool need_trusted)
{
    if (!ring || !ids)
        return NULL;
    const struct kt_ht *t;
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
    for (struct kt_ht_ent *e = NULL; (e = kt_ht_next(t, e, a, alen, b, blen));) {
        const struct ikey *k = e->v;
        if (need_trusted && !k->pub.trusted)
            continue;
        if (check_skid && !kt_span_eq(ids->skid, k->pub.cert->skid))
            continue; /* id0 matches, but the key lacks id1 or differs */
        return &k->pub;
    }
    return NULL;
}


int kt_keyring_restore(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *der,
                       size_t len, const char *source, int64_t added, bool trusted,
                       const struct kt_key **out, struct kt_error *err)
{
    struct kt_key *pk;
    int rc = kt_key_new(der, len, source, &pk, err);
    if (rc < 0)
        return rc;
    struct ikey *key = kt_ikey(pk);
    if (kt_ht_get(&r->by_sha, key->pub.cert->sha256, 32, NULL, 0)) {
        kt_key_free(pk);
        return kt_fail(err, -EEXIST, KT_NO_OFFSET, "%s: duplicate key", r->name);
    }
    key->pub.trusted = r->restr == KT_RESTRICT_BLACKLIST ? false : trusted;
    key->pub.added = added;
    rc = ring_link(r, key);
    if (rc < 0) {
        kt_key_free(pk);
        return kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    }
    if (out)
        *out = pk;
    (void)k;
    return 0;
}

void kt_key_set_ephemeral(const struct kt_key *key, bool e) { kt_ikey(key)->ephemeral = e; }
void kt_keyring_set_member_trusted(struct kt_keyring *r, bool on) { r->member_trusted = on; }
bool kt_keyring_member_trusted(const struct kt_keyring *r) { return r && r->member_trusted; }
bool kt_key_is_ephemeral(const struct kt_key *key) { return kt_ikey(key)->ephemeral; }


/* Drop the keys of r that match (match(key, arg)); returns how many. */
static int remove_matching(struct kt_keyring *r, bool (*match)(const struct kt_key *, const void *),
                           const void *arg)
{
    int removed = 0;
    size_t j = 0;
    for (size_t i = 0; i < r->n; i++) {
        struct ikey *key = r->keys[i];
        if (!match(&key->pub, arg)) {
            r->keys[j++] = key;
            continue;
        }
        ring_unindex(r, key);
        kt_key_free(&key->pub);
        removed++;
    }
    r->n = j;
    return removed;
}

static bool id_matches(const struct kt_key *key, const void *id)
{
    return kt_key_matches_id(key, id);
}

int kt_keyring_remove(struct kt_keyrings *k, struct kt_keyring *r, const char *id)
{
    if (!k || !r || !id || !*id)
        return -EINVAL;
    return remove_matching(r, id_matches, id);
}

static bool source_matches(const struct kt_key *key, const void *prefix)
{
    return key->source && !strncmp(key->source, prefix, strlen(prefix));
}

int kt_keyring_remove_by_source(struct kt_keyring *r, const char *prefix)
{
    return remove_matching(r, source_matches, prefix);
}

const struct kt_key *kt_keyrings_find_any(const struct kt_keyrings *k,
                                          const struct kt_key_ids *ids)
{
    if (!k || !ids || kt_key_ids_empty(ids))
        return NULL;
    for (size_t i = 0; i < k->n; i++) {
        if (k->rings[i] == k->blacklist)
            continue;
        const struct kt_key *key = kt_keyring_find(k->rings[i], ids, false);
        if (key)
            return key;
    }
    return NULL;
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
            struct kt_ht_ent *e = NULL;
            if (issuer_raw.len && serial.len) {
                kt_span ser = kt_integer_magnitude(serial);
                while ((e = kt_ht_next(&r->by_isn, e, issuer_raw.p, issuer_raw.len, ser.p,
                                       ser.len)))
                    if (pass || ((struct ikey *)e->v)->pub.trusted)
                        return &((struct ikey *)e->v)->pub;
            } else if (skid.len) {
                while ((e = kt_ht_next(&r->by_skid, e, skid.p, skid.len, NULL, 0)))
                    if (pass || ((struct ikey *)e->v)->pub.trusted)
                        return &((struct ikey *)e->v)->pub;
            }
        }
    }
    return NULL;
}

/* ---- search sets ------------------------------------------------------------ */

const struct kt_key *kt_trust_set_find(const struct kt_trust_set *s,
                                       const struct kt_key_ids *ids)
{
    if (!s || !ids || kt_key_ids_empty(ids))
        return NULL;
    for (size_t i = 0; i < s->n; i++) {
        const struct kt_key *key = kt_keyring_find(s->rings[i], ids, true);
        if (key)
            return key;
    }
    return NULL;
}

bool kt_trust_set_has(const struct kt_trust_set *s, const struct kt_keyring *r)
{
    for (size_t i = 0; s && i < s->n; i++)
        if (s->rings[i] == r)
            return true;
    return false;
}
