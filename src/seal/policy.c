/* policy.c - a sealed object's policy digest recomputed from PCR values,
 * as the TPM extends a policy session (TPM 2.0 Part 3, 23.7 and 23.18):
 *   PolicyPCR:       d = H(d || TPM_CC_PolicyPCR || TPML_PCR_SELECTION ||
 *                          H(the selected PCR values, lowest index first))
 *   PolicyAuthValue: d = H(d || TPM_CC_PolicyAuthValue)
 * from d = zeros.  systemd 252 (tpm2_make_policy_session) and clevis
 * (tpm2_createpolicy --policy-pcr) send PolicyPCR first, then systemd's
 * PolicyAuthValue for a PIN; a signed policy starts with PolicyAuthorize
 * by its key (signed.c), and its signed PCRs are judged by the UKI's
 * .pcrsig.  Then the verdict on one token today and after a change. */
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

static int bank_index(const struct kt_evlog_pcrs *p, uint16_t alg)
{
    for (size_t b = 0; p && b < p->n_banks; b++)
        if (p->bank[b].alg == alg && p->bank[b].supported)
            return (int)b;
    return -1;
}

/* Why the digest cannot be computed from p, or NONE. */
static enum kt_seal_why missing(const struct kt_seal_token *t, const struct kt_evlog_pcrs *p)
{
    if (t->kind == KT_SEAL_KIND_UNKNOWN)
        return KT_SEAL_WHY_KIND;
    if (t->kind == KT_SEAL_KIND_SIGNED && (!t->spki_len || t->policy_alg != KT_TPM_ALG_SHA256))
        return KT_SEAL_WHY_KEY;
    if (hash_of(t->policy_alg) == KT_HASH_NONE)
        return KT_SEAL_WHY_HASH;
    if (!t->pcrs)
        return KT_SEAL_WHY_NONE;
    int b = bank_index(p, t->bank);
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
    int b = bank_index(p, t->bank);
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
    enum kt_seal_why why = missing(t, pcrs);
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

/* A signed policy whose digest matched: its signed PCRs, by the UKI. */
static enum kt_seal_verdict judge_signed(const struct kt_seal_token *t,
                                         const struct kt_seal_uki *uki,
                                         const struct kt_evlog_pcrs *p, enum kt_seal_why *why,
                                         int *rc, struct kt_seal_check *r)
{
    if (!uki) {
        *why = KT_SEAL_WHY_NO_UKI;
        return KT_SEAL_CANNOT_TELL;
    }
    int s = kt_seal_signed_part(t, uki, p, r);
    if (s == -ENODATA || s == -ENOPKG) {
        *why = s == -ENODATA ? KT_SEAL_WHY_NO_PCR : KT_SEAL_WHY_HASH;
        return KT_SEAL_CANNOT_TELL;
    }
    if (s < 0)
        *rc = s;
    return s < 0 ? KT_SEAL_CANNOT_TELL : s ? KT_SEAL_UNSEALS : KT_SEAL_FAILS;
}

static enum kt_seal_verdict judge(const struct kt_seal_token *t, const struct kt_seal_uki *uki,
                                  const struct kt_evlog_pcrs *p, enum kt_seal_why *why, int *rc,
                                  struct kt_seal_check *r)
{
    uint8_t d[KT_SEAL_MAX_DIGEST];
    size_t len = 0;
    bool sig = t->kind == KT_SEAL_KIND_SIGNED;
    *why = p || (sig && !t->pcrs) ? missing(t, p) : KT_SEAL_WHY_NO_BANK;
    if (*why != KT_SEAL_WHY_NONE)
        return KT_SEAL_CANNOT_TELL;
    *rc = kt_seal_policy_digest(t, p, d, &len);
    if (*rc == -EBADMSG && sig) { /* the key is not one systemd 252 loads */
        *rc = 0;
        *why = KT_SEAL_WHY_KEY;
    }
    if (*rc <= 0)
        return KT_SEAL_CANNOT_TELL;
    *rc = 0;
    if (!r->digest_len) {
        memcpy(r->digest, d, len);
        r->digest_len = len;
    }
    bool eq = len == t->policy_len && !memcmp(d, t->policy, len);
    if (sig && !eq && !t->pcrs) { /* nothing but the key: ktrust does not reproduce it */
        *why = KT_SEAL_WHY_KEY;
        return KT_SEAL_CANNOT_TELL;
    }
    if (!eq)
        return KT_SEAL_FAILS;
    return sig ? judge_signed(t, uki, p, why, rc, r) : KT_SEAL_UNSEALS;
}

/* today's values with the PCRs the prediction changes replaced. */
static void after_values(const struct kt_seal_token *t, const struct kt_evlog_pcrs *today,
                         const struct kt_evlog_pcrs *now, const struct kt_evlog_pcrs *after,
                         struct kt_evlog_pcrs *out, struct kt_seal_check *r)
{
    *out = *today;
    int tb = bank_index(today, t->bank), nb = bank_index(now, t->bank),
        ab = bank_index(after, t->bank);
    if (tb < 0 || nb < 0 || ab < 0 || now->bank[nb].size != today->bank[tb].size)
        return;
    size_t sz = today->bank[tb].size;
    for (unsigned i = 0; i < KT_EVLOG_PCRS; i++) {
        if (!memcmp(now->bank[nb].pcr[i], after->bank[ab].pcr[i], sz))
            continue;
        memcpy(out->bank[tb].pcr[i], after->bank[ab].pcr[i], sz);
        out->bank[tb].used[i] = true;
        if (t->pcrs & (1u << i))
            r->changed |= 1u << i;
    }
    r->value_len = sz;
    for (unsigned i = 0, k = 0; i < KT_EVLOG_PCRS; i++)
        if (t->pcrs & (1u << i))
            memcpy(r->after_values[k++], out->bank[tb].pcr[i], sz);
}

int kt_seal_check(const struct kt_seal_token *t, const struct kt_evlog_pcrs *today,
                  const struct kt_evlog_pcrs *pred_now, const struct kt_evlog_pcrs *pred_after,
                  struct kt_seal_check *r)
{
    return kt_seal_check_uki(t, NULL, today, pred_now, pred_after, r);
}

int kt_seal_check_uki(const struct kt_seal_token *t, const struct kt_seal_uki *uki,
                      const struct kt_evlog_pcrs *today, const struct kt_evlog_pcrs *pred_now,
                      const struct kt_evlog_pcrs *pred_after, struct kt_seal_check *r)
{
    memset(r, 0, sizeof(*r));
    int rc = 0;
    r->today = judge(t, uki, today, &r->why_today, &rc, r);
    r->after = r->today;
    r->why_after = r->why_today;
    if (rc < 0 || !pred_now || !pred_after)
        return rc;
    r->have_after = true;
    if (!today) {
        r->after = KT_SEAL_CANNOT_TELL;
        r->why_after = KT_SEAL_WHY_NO_BANK;
        return 0;
    }
    struct kt_evlog_pcrs *a = malloc(sizeof(*a));
    if (!a)
        return -ENOMEM;
    after_values(t, today, pred_now, pred_after, a, r);
    r->after = judge(t, uki, a, &r->why_after, &rc, r);
    free(a);
    return rc;
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
