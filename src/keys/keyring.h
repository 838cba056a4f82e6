/* keyring.h - keyrings: containers of keys with hash-table lookups.
 *
 * A kt_keyrings is the whole set a run works with: named keyrings in the
 * order they were added (policy/keyrings.h makes the five default ones:
 * builtin, secondary, platform, machine, blacklist), and the blacklist's
 * hashes (keys/blacklist.h).  This layer stores what a keyring is (name,
 * restriction, vouchers); what a restriction allows and which keyrings a
 * purpose searches is policy (src/policy).  Lookups (by ids, SKID,
 * issuer+serial, description, SHA-256) are hash-table backed.
 */
#ifndef KT_KEYS_KEYRING_H
#define KT_KEYS_KEYRING_H

#include <stdbool.h>
#include <stdint.h>

#include "keys/key.h"
#include "ktrust/keyring.h"

void kt_keyrings_free(struct kt_keyrings *k);

/* The public part (enum kt_restrict, kt_keyrings_get,
 * _count, _at, kt_keyring_name, _count, _key, kt_keyring_remove):
 * ktrust/keyring.h. */

/* An empty set (no keyrings); kt_keyrings_new (policy) makes the defaults. */
int kt_keyrings_new_empty(struct kt_keyrings **out);
/* Add a keyring named name (not checked; copied) with its restriction and
 * voucher names.  The first KT_RESTRICT_BLACKLIST keyring is the set's
 * blacklist.  *out (may be NULL) is the new keyring.  -ENOMEM. */
int kt_keyrings_add_ring(struct kt_keyrings *k, const char *name, enum kt_restrict r,
                         const char *const *vouchers, size_t n_vouchers, bool is_default,
                         struct kt_keyring **out);
const struct kt_keyring *kt_keyrings_at_const(const struct kt_keyrings *k, size_t i);
/* The blacklist keyring (revocation certificates), or NULL. */
const struct kt_keyring *kt_keyrings_blacklist(const struct kt_keyrings *k);

enum kt_restrict kt_keyring_restriction(const struct kt_keyring *r);
bool kt_keyring_is_default(const struct kt_keyring *r);
/* Voucher names of a SIGNED_BY keyring (n may be 0). */
const char *const *kt_keyring_vouchers(const struct kt_keyring *r, size_t *n);
/* Let keyring r vouch for every purpose in this run (a verifying command's
 * --keyring NAME).  Not saved.  -EINVAL for the blacklist. */
int kt_keyring_set_run_voucher(struct kt_keyring *r, bool on);
bool kt_keyring_is_run_voucher(const struct kt_keyring *r);

/* Link key into r (r owns it from then on; key->ring = r).  No checks: the
 * caller (policy's kt_keyring_add) applied the restriction.  -ENOMEM (the
 * key stays the caller's). */
int kt_keyring_link(struct kt_keyring *r, struct kt_key *key);
/* Drop the keys of r whose source starts with prefix ("db:"); returns how
 * many (the boot engine's MokIgnoreDB: shim stops using db's keys). */
int kt_keyring_remove_by_source(struct kt_keyring *r, const char *prefix);

/* Key lookups inside one keyring (any key, trusted or not); NULL if none. */
const struct kt_key *kt_keyring_find_by_skid(const struct kt_keyring *r, kt_span skid);
const struct kt_key *kt_keyring_find_by_issuer_serial(const struct kt_keyring *r,
                                                     kt_span issuer_raw, kt_span serial);
const struct kt_key *kt_keyring_find_by_description(const struct kt_keyring *r, const char *d);
const struct kt_key *kt_keyring_find_by_sha256(const struct kt_keyring *r, const uint8_t sha[32]);
/* The first key of r the ids name (the rule in keys/key.h), trusted ones
 * only if need_trusted.  NULL if none. */
const struct kt_key *kt_keyring_find(const struct kt_keyring *r, const struct kt_key_ids *ids,
                                     bool need_trusted);

/* Over every keyring but the blacklist, trusted or not: where a key is held
 * that a purpose did not let vouch (for messages). */
const struct kt_key *kt_keyrings_find_any(const struct kt_keyrings *k,
                                          const struct kt_key_ids *ids);
/* Any key (trusted or not, any keyring but the blacklist; trusted keys
 * first) by issuer+serial or SKID: for signers without certificates. */
const struct kt_key *kt_keyrings_find_cert(const struct kt_keyrings *k, kt_span issuer_raw,
                                           kt_span serial, kt_span skid);

/* ---- for src/store ------------------------------------------------------ */

/* Put a stored key back without checking restriction or blacklist: trusted
 * and added come from the store; *out (may be NULL) is the key.  -EEXIST if
 * already in r.  (The store keeps its own key -> row mapping.) */
int kt_keyring_restore(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *der,
                       size_t len, const char *source, int64_t added, bool trusted,
                       const struct kt_key **out, struct kt_error *err);
/* Keys added for this run only (--trust, --kernel) are never saved. */
void kt_key_set_ephemeral(const struct kt_key *key, bool ephemeral);
bool kt_key_is_ephemeral(const struct kt_key *key);

/* A keyring whose every key the kernel uses, whoever signed it (IMA's `_ima`
 * without CONFIG_INTEGRITY_TRUSTED_KEYRING): a key linked to it from then
 * on is trusted.  For the run's keyrings only (not saved). */
void kt_keyring_set_member_trusted(struct kt_keyring *r, bool on);
bool kt_keyring_member_trusted(const struct kt_keyring *r);

#endif
