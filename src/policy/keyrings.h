/* keyrings.h - the default keyrings and purposes (the kernel's
 * system_keyring.c): which keyrings a purpose searches, in which order.
 *
 * kt_keyrings_new makes the five default keyrings, in this order: builtin
 * (trusted-only), secondary (signed by builtin, secondary or machine),
 * platform, machine, blacklist.  A purpose resolves to a search set
 * (keys/trust.h) that pkcs7, pe and modsig verify against.
 */
#ifndef KT_POLICY_KEYRINGS_H
#define KT_POLICY_KEYRINGS_H

#include "keys/purpose.h"
#include "keys/trust.h"

enum kt_default_ring {
    KT_RING_BUILTIN = 0,
    KT_RING_SECONDARY,
    KT_RING_PLATFORM,
    KT_RING_MACHINE,
    KT_RING_BLACKLIST,
};

/* A set holding the five default keyrings, empty.  -ENOMEM. */
int kt_keyrings_new(struct kt_keyrings **out);
/* One of the default keyrings of a set made by kt_keyrings_new, or NULL. */
const struct kt_keyring *kt_keyrings_default(const struct kt_keyrings *k,
                                             enum kt_default_ring which);

/* The search set of purpose p (the kernel's VERIFY_USE_* choices), in
 * order: builtin, secondary, machine, platform (those p may use), then
 * keyrings named for the run (kt_keyring_set_run_voucher).  k may be NULL
 * (an empty set). */
void kt_trust_set_for(const struct kt_keyrings *k, enum kt_verify_purpose p, struct kt_trust_set *out);
/* Does keyring r vouch for purpose p? */
bool kt_keyring_vouches_for(const struct kt_keyrings *k, const struct kt_keyring *r,
                            enum kt_verify_purpose p);
/* "modules", "UEFI images", "kexec images", "builtin-only checks". */
const char *kt_purpose_text(enum kt_verify_purpose p);

/* kt_trust_set_find over purpose p's search set.  NULL if none. */
const struct kt_key *kt_trust_find(const struct kt_keyrings *k, enum kt_verify_purpose p,
                                   const struct kt_key_ids *ids);
/* Shorthands of kt_trust_find with one id. */
const struct kt_key *kt_trust_find_by_issuer_serial(const struct kt_keyrings *k,
                                                   enum kt_verify_purpose p, kt_span issuer_raw,
                                                   kt_span serial);
const struct kt_key *kt_trust_find_by_skid(const struct kt_keyrings *k, enum kt_verify_purpose p,
                                          kt_span skid);

#endif
