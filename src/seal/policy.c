/* policy.c - a sealed object's policy digest recomputed from PCR values,
 * as the TPM extends a policy session (TPM 2.0 Part 3, 23.7 and 23.18):
 *   PolicyPCR:       d = H(d || TPM_CC_PolicyPCR || TPML_PCR_SELECTION ||
 *                          H(the selected PCR values, lowest index first))
 *   PolicyAuthValue: d = H(d || TPM_CC_PolicyAuthValue)
 * from d = zeros.  systemd 252 (tpm2_make_policy_session) and clevis
 * (tpm2_createpolicy --policy-pcr) send PolicyPCR first, then systemd's
 * PolicyAuthValue for a PIN; a signed policy starts with PolicyAuthorize
 * by its key (tpm.c).  The verdicts built on it are verdict.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/crypto.h"
#include "seal/seal.h"

static enum kt_hash hash_of(uint16_t alg)
{
    switch (alg) {
    case KT_TPM_ALG_SHA1: return KT_HASH_SHA1;
    case KT_TPM_ALG_SHA256: return KT_HASH_SHA256;
    case KT_TPM_ALG_SHA384: return KT_HASH_SHA384;
    case KT_TPM_ALG_SHA512: return KT_HASH_SHA512;
    default: return KT_HASH_NONE;
    }
}

int kt_seal_bank_index(const struct kt_evlog_pcrs *p, uint16_t alg)
{
    for (size_t b = 0; p && b < p->n_banks; b++)
        if (p->bank[b].alg == alg && p->bank[b].supported)
            return (int)b;
    return -1;
}

enum kt_seal_why kt_seal_missing(const struct kt_seal_token *t, const struct kt_evlog_pcrs *p)
{
    if (t->kind == KT_SEAL_KIND_UNKNOWN)
        return KT_SEAL_WHY_KIND;
    if (t->kind == KT_SEAL_KIND_SIGNED && (!t->spki_len || t->policy_alg != KT_TPM_ALG_SHA256))
        return KT_SEAL_WHY_KEY;
    if (hash_of(t->policy_alg) == KT_HASH_NONE)
        return KT_SEAL_WHY_HASH;
    if (!t->pcrs)
        return KT_SEAL_WHY_NONE;
    int b = kt_seal_bank_index(p, t->bank);
    if (b < 0)
        return KT_SEAL_WHY_NO_BANK;
    for (unsigned i = 0; i < KT_EVLOG_PCRS; i++)
        if ((t->pcrs & (1u << i)) && !p->bank[b].used[i])
            return KT_SEAL_WHY_NO_PCR;
    return KT_SEAL_WHY_NONE;
}

/* d = H(d || data) in the policy's hash. */
static int extend(enum kt_hash h, uint8_t *d, size_t dlen, const uint8_t *data, size_t len)
{
    uint8_t buf[KT_SEAL_MAX_DIGEST + 4 + 16 + KT_SEAL_MAX_DIGEST];
    if (dlen + len > sizeof(buf))
        return -EINVAL;
    memcpy(buf, d, dlen);
    memcpy(buf + dlen, data, len);
    return kt_digest(h, buf, dlen + len, d);
}

static int policy_pcr(const struct kt_seal_token *t, const struct kt_evlog_pcrs *p, enum kt_hash h,
                      uint8_t *d, size_t dlen)
{
    int b = kt_seal_bank_index(p, t->bank);
    uint8_t vals[KT_EVLOG_PCRS * KT_EVLOG_MAX_DIGEST], part[4 + 16 + KT_SEAL_MAX_DIGEST];
    size_t n = 0, sz = p->bank[b].size;
    for (unsigned i = 0; i < KT_EVLOG_PCRS; i++)
        if (t->pcrs & (1u << i)) {
            memcpy(vals + n, p->bank[b].pcr[i], sz);
            n += sz;
        }
    int sel = kt_seal_cc(KT_TPM_CC_POLICY_PCR, part);
    if (sel < 0)
        return sel;
    sel = kt_seal_pcr_selection(t->bank, t->pcrs, part + 4, 16);
    if (sel < 0)
        return sel;
    int rc = kt_digest(h, vals, n, part + 4 + sel);
    if (rc < 0)
        return rc;
    return extend(h, d, dlen, part, 4 + (size_t)sel + dlen);
}

int kt_seal_policy_digest(const struct kt_seal_token *t, const struct kt_evlog_pcrs *pcrs,
                          uint8_t out[KT_SEAL_MAX_DIGEST], size_t *len)
{
    enum kt_seal_why why = kt_seal_missing(t, pcrs);
    if (why == KT_SEAL_WHY_HASH)
        return -ENOPKG;
    if (why != KT_SEAL_WHY_NONE)
        return 0;
    enum kt_hash h = hash_of(t->policy_alg);
    size_t dlen = kt_hash_size(h);
    *len = 0;
    bool sig = t->kind == KT_SEAL_KIND_SIGNED;
    if (!t->pcrs && !sig) /* no PCR policy at all: an empty authPolicy */
        return 1;
    memset(out, 0, dlen);
    int rc = sig ? kt_seal_authorize_digest(t, out) : 0;
    if (rc == 0 && t->pcrs)
        rc = policy_pcr(t, pcrs, h, out, dlen);
    if (rc == 0 && (t->kind == KT_SEAL_KIND_PIN_PCR || (sig && t->pin))) {
        uint8_t cc[4];
        rc = kt_seal_cc(KT_TPM_CC_POLICY_AUTH_VALUE, cc);
        if (rc == 0)
            rc = extend(h, out, dlen, cc, 4);
    }
    if (rc < 0)
        return rc;
    *len = dlen;
    return 1;
}

const char *kt_seal_tool_name(enum kt_seal_tool t)
{
    return t == KT_SEAL_CLEVIS ? "clevis" : "systemd-tpm2";
}

const char *kt_seal_kind_name(enum kt_seal_kind k)
{
    static const char *const n[] = {"pcr", "pin+pcr", "signed", "unknown"};
    return k <= KT_SEAL_KIND_UNKNOWN ? n[k] : "unknown";
}

const char *kt_seal_verdict_name(enum kt_seal_verdict v)
{
    return v == KT_SEAL_UNSEALS ? "unseals" : v == KT_SEAL_FAILS ? "does_not_unseal" : "cannot_tell";
}
