/* trust.h - a search set: the keyrings a verification may take a trusted
 * key from, in order, with the set they belong to (its blacklist, and
 * where else a key is held, for messages).
 *
 * The policy layer resolves a purpose into a search set
 * (kt_trust_set_for, policy/keyrings.h), as the kernel's system_keyring.c
 * picks the keyring for verify_pkcs7_signature; pkcs7, pe and modsig take
 * the set and never choose keyrings themselves.
 */
#ifndef KT_KEYS_TRUST_H
#define KT_KEYS_TRUST_H

#include "keys/blacklist.h"
#include "keys/keyring.h"

#define KT_TRUST_SET_MAX 64

struct kt_trust_set {
    const struct kt_keyrings *all;   /* blacklist and any-key lookups; NULL: no keys */
    const struct kt_keyring *rings[KT_TRUST_SET_MAX]; /* searched in this order */
    size_t n;
    const char *what;                /* what they vouch for ("modules"), for messages */
    /* a keyring searched alone when the set finds no key (-ENOKEY), as
     * verify_pkcs7_signature is called again with another keyring: NULL
     * none; retry_why names the rule that makes the second call */
    const struct kt_keyring *retry;
    const char *retry_why;
    /* non-NULL: after a good signature the module's whole-file SHA-256 is
     * looked up among the blacklist's bin: hashes, and a listed one is
     * rejected (a distribution's patch: this names it) */
    const char *hash_check_why;
};

/* The one trusted-key lookup: the first trusted key, in the set's keyrings
 * in order, that the ids name (the rule in keys/key.h).  NULL if none.  The
 * caller verifies the signature with the key found. */
const struct kt_key *kt_trust_set_find(const struct kt_trust_set *s,
                                       const struct kt_key_ids *ids);
/* Is r one of the set's keyrings? */
bool kt_trust_set_has(const struct kt_trust_set *s, const struct kt_keyring *r);

#endif
