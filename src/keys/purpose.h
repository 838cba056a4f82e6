/* purpose.h - what a signature is checked for.  The content rules of a
 * purpose (a module signature carries data and no attributes, a PE carries
 * SpcIndirectDataContent, kexec takes the first entry only) live with the
 * formats; which keyrings a purpose searches is policy (policy/keyrings.h). */
#ifndef KT_KEYS_PURPOSE_H
#define KT_KEYS_PURPOSE_H

#include "ktrust/keyring.h"

/* A key vouches only for the purposes of the keyring that holds it: user
 * keyrings take part in none, unless a run names them
 * (kt_keyring_set_run_voucher).  The public face of a purpose is enum
 * kt_verify_purpose (ktrust/verify.h). */
/* Which keyrings may vouch for a signature (mainline verify_pkcs7_signature). */
enum kt_purpose {
    KT_PURPOSE_MODULE = 0, /* builtin + secondary + machine: modules, detached PKCS#7 */
    KT_PURPOSE_UEFI,       /* those + platform: PE images as firmware/shim load them */
    KT_PURPOSE_KEXEC,      /* the kernel's kexec rule: secondary (with builtin and
                            * machine), then platform; the PE's first entry only */
    KT_PURPOSE_BUILTIN,    /* builtin only */
};

#endif
