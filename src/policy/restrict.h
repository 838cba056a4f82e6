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



/* enum kt_add_how, kt_keyring_create, kt_keyring_add: ktrust/keyring.h. */

/* "none", "trusted-only", "signed-by:builtin,secondary", "blacklist" into buf. */
const char *kt_keyring_restriction_str(const struct kt_keyring *r, char *buf, size_t cap);
/* kt_restriction_parse ("none", "trusted-only", "signed-by:A[,B]"):
 * ktrust/advanced.h. */

#endif
