/* pe_int.h - shared between the files of src/pe/ (not public). */
#ifndef KT_PE_PE_INT_H
#define KT_PE_PE_INT_H

#include "pe/pe_verify.h"

/* Verify the timestamp (if any) on sig's signer; fills sig->timestamp. */
void kt_pe_check_timestamp(struct kt_pe_signature *sig, const uint8_t *base,
                           const struct kt_trust_set *trust);

#endif
