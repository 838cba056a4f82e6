/* restrict.c - keyring restrictions (the kernel's restrict.c): what may be
 * linked into a keyring, and whether a key added is trusted. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/keyrings.h"
#include "policy/restrict.h"
#include "util/err.h"
#include "util/fmt.h"

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
            if (v && v == kt_keyrings_blacklist(k))
                return kt_fail(err, -EINVAL, KT_NO_OFFSET,
                               "keyring '%s': the blacklist cannot vouch for keys", name);
        }
    } else {
        n_vouchers = 0;
    }
    int rc = kt_keyrings_add_ring(k, name, r, vouchers, n_vouchers, false, NULL);
    if (rc < 0)
        return kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    return 0;
}

const char *kt_keyring_restriction_str(const struct kt_keyring *r, char *buf, size_t cap)
{
    size_t nv;
    const char *const *v = kt_keyring_vouchers(r, &nv);
    switch (kt_keyring_restriction(r)) {
    case KT_RESTRICT_NONE: snprintf(buf, cap, "none"); break;
    case KT_RESTRICT_TRUSTED_ONLY: snprintf(buf, cap, "trusted-only"); break;
    case KT_RESTRICT_BLACKLIST: snprintf(buf, cap, "blacklist"); break;
    case KT_RESTRICT_SIGNED_BY: {
        size_t o = (size_t)snprintf(buf, cap, "signed-by:");
        for (size_t i = 0; i < nv && o < cap; i++)
            o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? "," : "", v[i]);
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

/* The key in `ring` that `c` names as its signer (AKID, else issuer name),
 * if it verifies c's signature. */
static const struct kt_key *find_signer_in(const struct kt_keyring *ring, const struct kt_x509 *c,
                                           bool need_trusted)
{
    struct kt_key_ids ids = kt_key_ids_of_signer(c, true);
    const struct kt_key *s = kt_keyring_find(ring, &ids, need_trusted);
    if (!s || !s->cert->pub || kt_x509_check_signature(c, s->cert->pub) != 0)
        return NULL;
    return s;
}

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
    struct kt_key *key;
    int rc = kt_key_new(der, len, source, &key, err);
    if (rc < 0)
        return rc;
    const struct kt_x509 *c = key->cert;
    const char *name = kt_keyring_name(r);
    enum kt_restrict restr = kt_keyring_restriction(r);
    char desc[200]; /* for messages: the key is freed before they are made */
    snprintf(desc, sizeof(desc), "%s", c->description ? c->description : "(no description)");

    if (restr != KT_RESTRICT_BLACKLIST && kt_blacklist_has_cert(k, c)) {
        kt_key_free(key);
        return kt_fail(err, -EKEYREJECTED, KT_NO_OFFSET, "%s: '%s' is blacklisted", name, desc);
    }
    const struct kt_key *dup = kt_keyring_find_by_sha256(r, c->sha256);
    if (dup) {
        kt_key_free(key);
        if (added)
            *added = dup;
        return kt_fail(err, -EEXIST, KT_NO_OFFSET, "%s: '%s' is already in the keyring", name,
                       desc);
    }
    if (restr == KT_RESTRICT_BLACKLIST) {
        key->trusted = false; /* a revocation certificate */
        goto link;
    }

    if (how == KT_ADD_VOUCHED && kt_keyring_is_default(r)) {
        /* the caller verified its PE container and chose r by who vouched
         * for it (kt_pe_load_keys); a user keyring's own restriction
         * applies to vouched keys exactly as to any other add */
        key->trusted = true;
        goto link;
    }
    if (r == kt_keyrings_default(k, KT_RING_BUILTIN) ||
        r == kt_keyrings_default(k, KT_RING_PLATFORM) ||
        r == kt_keyrings_default(k, KT_RING_MACHINE) || kt_keyring_member_trusted(r)) {
        /* compiled in / firmware / MOK: a trusted source; IMA's _ima: the
         * kernel uses whatever it holds */
        key->trusted = true;
        goto link;
    }

    /* the signer is the key the AKID names, else (no AKID) the key whose
     * subject is the issuer name: restrict_link_by_signature's lookup */
    const struct kt_key *signer = NULL;
    if (restr == KT_RESTRICT_SIGNED_BY) {
        size_t nv;
        const char *const *vouchers = kt_keyring_vouchers(r, &nv);
        for (size_t i = 0; i < nv && !signer; i++) {
            const struct kt_keyring *v = kt_keyrings_get(k, vouchers[i]);
            if (v)
                signer = find_signer_in(v, c, false);
        }
        const char *pq = kt_mldsa_title(c->sig_alg.pkey);
        if (!signer && pq && !kt_pkey_algo_available(c->sig_alg.pkey)) {
            /* restrict_link_by_signature cannot check it: ENOPKG, no refusal */
            kt_key_free(key);
            return kt_fail(err, -ENOPKG, KT_NO_OFFSET,
                           "%s: cannot check '%s': %s needs OpenSSL 3.5 or later", name, desc, pq);
        }
        if (!signer) {
            char a[160], rs[200];
            akid_text(c, a, sizeof(a));
            kt_key_free(key);
            return kt_fail(err, -EPERM, KT_NO_OFFSET,
                           "%s: refused '%s': no key in %s signed it (%s)", name, desc,
                           kt_keyring_restriction_str(r, rs, sizeof(rs)) + 10, a);
        }
        key->trusted = signer->trusted;
        goto link;
    }

    /* none / trusted-only: trusted when a trusted key signed it */
    {
        struct kt_trust_set set;
        kt_trust_set_for(k, KT_VERIFY_PURPOSE_MODULE, &set);
        for (size_t i = 0; i < set.n && !signer; i++)
            signer = find_signer_in(set.rings[i], c, true);
    }
    key->trusted = signer != NULL;
    if (restr == KT_RESTRICT_TRUSTED_ONLY && !key->trusted) {
        kt_key_free(key);
        return kt_fail(err, -EPERM, KT_NO_OFFSET,
                       "%s: refused '%s': trusted-only and no trusted key signed it", name,
                       desc);
    }

link:
    rc = kt_keyring_link(r, key);
    if (rc < 0) {
        kt_key_free(key);
        return kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    }
    if (added)
        *added = key;
    return 0;
}

