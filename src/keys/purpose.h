/* purpose.h - what a signature is checked for.  The content rules of a
 * purpose (a module signature carries data and no attributes, a PE carries
 * SpcIndirectDataContent, kexec takes the first entry only) live with the
 * formats; which keyrings a purpose searches is policy (policy/keyrings.h).
 *
 * The one purpose enum is the public enum kt_verify_purpose
 * (ktrust/verify.h).  A key vouches only for the purposes of the keyring
 * that holds it: user keyrings take part in none, unless a run names them
 * (kt_keyring_set_run_voucher).  Below the verdict engine (src/verify/,
 * which resolves KT_VERIFY_PURPOSE_DEFAULT to the type's own purpose),
 * DEFAULT is taken as MODULE: builtin, secondary and machine. */
#ifndef KT_KEYS_PURPOSE_H
#define KT_KEYS_PURPOSE_H

#include "ktrust/keyring.h"
#include "ktrust/verify.h"

#endif
