/* seal.h - the seal layer's own declarations (the public ones are in
 * ktrust/seal.h): the TPM side of a token (tpm.c, through libtss2-mu) for
 * token.c and policy.c. */
#ifndef KT_SEAL_SEAL_H
#define KT_SEAL_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "ktrust/seal.h"

/* The nameAlg and authPolicy of a marshalled TPM2B_PUBLIC (clevis'
 * jwk_pub).  Returns 0 or -EBADMSG (err: field). */
int kt_seal_public_policy(const uint8_t *buf, size_t len, uint16_t *name_alg, uint8_t *policy,
                          size_t *policy_len, struct kt_error *err);

/* The TPML_PCR_SELECTION of one bank and a PCR mask, marshalled as
 * TPM2_PolicyPCR hashes it (sizeofSelect 3, as systemd and tpm2-tools
 * send it) into out (room for 16 bytes).  Returns its length or -EINVAL. */
int kt_seal_pcr_selection(uint16_t bank, uint32_t mask, uint8_t *out, size_t cap);

/* A command code (TPM_CC_*) marshalled big-endian into out[4]. */
void kt_seal_cc(uint32_t cc, uint8_t out[4]);

#define KT_TPM_CC_POLICY_PCR 0x0000017fu
#define KT_TPM_CC_POLICY_AUTH_VALUE 0x0000016bu

#endif
