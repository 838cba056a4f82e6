/* verdict.c - one token's verdict today and after a change: its policy
 * digest (policy.c) recomputed from today's PCRs and from today's with the
 * PCRs the prediction changes replaced; equal to the token's: it unseals.
 * A signed policy (systemd's tpm2_pubkey) also needs the UKI's .pcrsig to
 * sign its PCR 11 with the token's key (signed.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "seal/seal.h"

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
    if (s == -ENODATA || s == -ENOPKG || s == -ERANGE) {
        *why = s == -ENODATA ? KT_SEAL_WHY_NO_PCR : s == -ERANGE ? KT_SEAL_WHY_LATE_PCR
                                                                 : KT_SEAL_WHY_HASH;
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
    *why = p || (sig && !t->pcrs) ? kt_seal_missing(t, p) : KT_SEAL_WHY_NO_BANK;
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
    int tb = kt_seal_bank_index(today, t->bank), nb = kt_seal_bank_index(now, t->bank),
        ab = kt_seal_bank_index(after, t->bank);
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

