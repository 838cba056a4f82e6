/* purpose.h - what a signature is checked for.  The content rules of a
 * purpose (a module signature carries data and no attributes, a PE carries
 * SpcIndirectDataContent, kexec takes the first entry only) live with the
 * formats; which keyrings a purpose searches is policy (policy/keyrings.h). */
#ifndef KT_KEYS_PURPOSE_H
#define KT_KEYS_PURPOSE_H

/* enum kt_purpose: ktrust/keyring.h.  A key vouches only for the purposes
 * of the keyring that holds it: user keyrings take part in none, unless a
 * run names them (kt_keyring_set_run_voucher). */
#include "ktrust/keyring.h"

#endif
