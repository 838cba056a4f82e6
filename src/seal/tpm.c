/* tpm.c - TPM 2.0 structures through the reference TSS's marshalling
 * (libtss2-mu): a sealed object's TPM2B_PUBLIC read, a PCR selection and a
 * command code written as TPM2_PolicyPCR hashes them. */
#include <errno.h>
#include <string.h>

#include "seal/seal.h"
#include "util/err.h"

int kt_seal_public_policy(const uint8_t *buf, size_t len, uint16_t *name_alg, uint8_t *policy,
                          size_t *policy_len, struct kt_error *err)
{
    const struct kt_seal_mu *mu = kt_seal_tss2();
    if (!mu)
        return kt_fail(err, -ENOPKG, KT_NO_OFFSET, "libtss2-mu.so.0 is not installed");
    TPM2B_PUBLIC pub;
    size_t off = 0;
    memset(&pub, 0, sizeof(pub));
    if (mu->Tss2_MU_TPM2B_PUBLIC_Unmarshal(buf, len, &off, &pub) != TSS2_RC_SUCCESS)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "jwk_pub: not a TPM2B_PUBLIC");
    if (off != len)
        return kt_fail(err, -EBADMSG, off, "jwk_pub: trailing data after the TPM2B_PUBLIC");
    size_t n = pub.publicArea.authPolicy.size;
    if (n > KT_SEAL_MAX_DIGEST)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "jwk_pub: authPolicy of %zu bytes", n);
    *name_alg = pub.publicArea.nameAlg;
    memcpy(policy, pub.publicArea.authPolicy.buffer, n);
    *policy_len = n;
    return 0;
}

int kt_seal_pcr_selection(uint16_t bank, uint32_t mask, uint8_t *out, size_t cap)
{
    const struct kt_seal_mu *mu = kt_seal_tss2();
    if (!mu)
        return -ENOPKG;
    TPML_PCR_SELECTION sel;
    memset(&sel, 0, sizeof(sel));
    sel.count = 1;
    sel.pcrSelections[0].hash = bank;
    sel.pcrSelections[0].sizeofSelect = 3;
    for (unsigned i = 0; i < 24; i++)
        if (mask & (1u << i))
            sel.pcrSelections[0].pcrSelect[i / 8] |= (uint8_t)(1u << (i % 8));
    size_t off = 0;
    if (mu->Tss2_MU_TPML_PCR_SELECTION_Marshal(&sel, out, cap, &off) != TSS2_RC_SUCCESS)
        return -EINVAL;
    return (int)off;
}

int kt_seal_cc(uint32_t cc, uint8_t out[4])
{
    const struct kt_seal_mu *mu = kt_seal_tss2();
    size_t off = 0;
    if (!mu || mu->Tss2_MU_TPM2_CC_Marshal(cc, out, 4, &off) != TSS2_RC_SUCCESS)
        return -ENOPKG;
    return 0;
}
