/* restrict.h - what may be linked into a keyring (the kernel's restrict.c:
 * restrict_link_by_signature) and how keys become trusted.
 *
 * A key becomes trusted in exactly three ways (see CONTRACT.md):
 *   KT_ADD_EXPLICIT into builtin (or platform/machine: firmware/MOK sources),
 *   a verified signature by a key already trusted (restrict-by-signature),
 *   KT_ADD_VOUCHED: the caller verified a PE container that wraps it.
 */
#ifndef KT_POLICY_RESTRICT_H
#define KT_POLICY_RESTRICT_H

#include "keys/blacklist.h"
#include "keys/keyring.h"

/* How a key is being added. */
enum kt_add_how {
    KT_ADD_EXPLICIT = 0, /* an operator's add (builtin: "compiled in") */
    KT_ADD_VOUCHED,      /* wrapped in a PE that verified as trusted */
};

/* Create a user keyring. vouchers: names of keyrings for SIGNED_BY. -EEXIST, -EINVAL. */
int kt_keyring_create(struct kt_keyrings *k, const char *name, enum kt_restrict r,
                      const char *const *vouchers, size_t n_vouchers, struct kt_error *err);

/* Add one DER certificate (copied).  Obeys the restriction: -EPERM with a
 * detail when refused; -EKEYREJECTED when blacklisted; -EEXIST if already
 * there (the existing key is returned in *added). added may be NULL. */
int kt_keyring_add(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *der, size_t len,
                   const char *source, enum kt_add_how how, const struct kt_key **added,
                   struct kt_error *err);

/* "none", "trusted-only", "signed-by:builtin,secondary", "blacklist" into buf. */
const char *kt_keyring_restriction_str(const struct kt_keyring *r, char *buf, size_t cap);
/* Parse "none" | "trusted-only" | "signed-by:A[,B...]" (vouchers are
 * pointers into a malloc'd copy *store_buf the caller frees).  -EINVAL. */
int kt_restriction_parse(const char *s, enum kt_restrict *r, char **store_buf,
                         const char **vouchers, size_t cap, size_t *n_vouchers);

#endif
