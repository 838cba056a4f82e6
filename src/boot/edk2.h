/* edk2.h - the EDK2 firmware generations whose verdicts on a signed variable
 * update differ, read in EDK2's git history (SecurityPkg/Library/
 * AuthVariableLib/AuthService.c, SecurityPkg.dec).  ktrust models EDK2
 * 2022.11, the firmware the boot tests run (Debian 12's OVMF); where a later
 * release accepts what it refuses, the verdict says so, so that a plan never
 * promises what some firmware refuses. */
#ifndef KT_BOOT_EDK2_H
#define KT_BOOT_EDK2_H

#include <stddef.h>

/* The firmware whose rules ktrust applies. */
#define KT_EDK2_MODELLED "EDK2 2022.11 (Debian 12's OVMF)"

enum kt_edk2_change {
    KT_EDK2_NONE = 0,
    /* a ContentInfo around the SignedData: VerifyTimeBasedPayload also looks
     * for SHA-256's OID at byte 32 (37d3eb026a, edk2-stable202302) */
    KT_EDK2_CONTENT_INFO,
    /* SHA-384 and SHA-512 signed updates (FindHashAlgorithmIndex, mHashInfo:
     * bbf1822295, edk2-stable202311) */
    KT_EDK2_SHA384_512,
    /* setup mode: a PK written without being signed by itself
     * (PcdRequireSelfSignedPk, default FALSE: 566cdfc675 and cc18c503e0,
     * edk2-stable202302; a platform may still set it) */
    KT_EDK2_PK_NOT_SELF_SIGNED,
};

/* The first EDK2 release that accepts what 2022.11 refuses under rule c
 * ("edk2-stable202302"), or NULL for KT_EDK2_NONE. */
const char *kt_edk2_accepted_from(enum kt_edk2_change c);

/* The words a verdict ends with: "refused by EDK2 2022.11 (Debian 12's
 * OVMF), accepted from edk2-stable202302" into buf ("" for KT_EDK2_NONE).
 * Returns buf. */
const char *kt_edk2_note(enum kt_edk2_change c, char *buf, size_t cap);

#endif
