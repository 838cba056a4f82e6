/* signed.c - systemd 252's signed PCR policy (systemd-cryptenroll
 * --tpm2-public-key, tpm2_pubkey in the token), as its policy session
 * builds it (tpm2_make_policy_session): PolicyAuthorize by the key (tpm.c),
 * then PolicyPCR over the literal PCRs (tpm2-pcrs), then PolicyAuthValue
 * for a PIN (policy.c).
 * At unlock the session first has PolicyPCR over tpm2_pubkey_pcrs at the
 * PCRs' current values (the "approved" policy), the TPM checks the
 * signature .pcrsig holds for it (VerifySignature: RSASSA, SHA-256) and
 * PolicyAuthorize replaces it by the digest above.  So the token unseals
 * when .pcrsig signs the approved digest of the PCR 11 the UKI gives at
 * enter-initrd (systemd-cryptsetup runs in the initrd). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktrust/sdboot.h"
#include "seal/seal.h"
#include "util/file.h"
#include "util/fmt.h"

struct kt_seal_uki {
    struct kt_file f;
    struct kt_uki *u;
    char *path;
    struct kt_sdboot_next_uki *choice; /* why this UKI (kt_sdboot_pick_uki), NULL: opened by path */
    struct { /* PCR 11 at enter-initrd per bank, computed once */
        uint16_t alg;
        size_t len;
        uint8_t v[KT_EVLOG_MAX_DIGEST];
    } pcr11[4];
    size_t n_pcr11;
};

/* The UKI's PCR 11 at enter-initrd in bank alg (cached: the sections are
 * hashed once per bank, not once per token and state). */
static int uki_pcr11(const struct kt_seal_uki *cu, uint16_t alg, uint8_t *out, size_t *len)
{
    struct kt_seal_uki *u = (struct kt_seal_uki *)cu;
    for (size_t i = 0; i < u->n_pcr11; i++)
        if (u->pcr11[i].alg == alg) {
            memcpy(out, u->pcr11[i].v, u->pcr11[i].len);
            *len = u->pcr11[i].len;
            return 0;
        }
    const char *bank = kt_evlog_alg_name(alg);
    int rc = bank ? kt_uki_pcr11(u->u, bank, 1, out, len) : -EINVAL;
    if (rc == 0 && u->n_pcr11 < 4) {
        u->pcr11[u->n_pcr11].alg = alg;
        u->pcr11[u->n_pcr11].len = *len;
        memcpy(u->pcr11[u->n_pcr11++].v, out, *len);
    }
    return rc;
}

int kt_seal_uki_open(const char *path, struct kt_seal_uki **out, struct kt_error *err)
{
    struct kt_seal_uki *u = calloc(1, sizeof(*u));
    *out = NULL;
    if (!u || !(u->path = strdup(path))) {
        free(u);
        return -ENOMEM;
    }
    int rc = kt_file_open(path, &u->f, err);
    if (rc == 0)
        rc = kt_uki_open_buf(u->f.data, u->f.len, &u->u, err);
    if (rc < 0) {
        kt_seal_uki_free(u);
        return rc;
    }
    *out = u;
    return 0;
}

void kt_seal_uki_free(struct kt_seal_uki *u)
{
    if (!u)
        return;
    kt_uki_free(u->u);
    if (u->f.data)
        kt_file_close(&u->f);
    free(u->path);
    free(u->choice);
    free(u);
}

int kt_seal_uki_open_for(const char *uki, const char *esp, const struct kt_efivars *vars,
                         const struct kt_seal_token *t, size_t n, struct kt_seal_uki **out,
                         struct kt_error *err)
{
    size_t i = 0;
    *out = NULL;
    while (i < n && t[i].kind != KT_SEAL_KIND_SIGNED)
        i++;
    if (i == n)
        return 0;
    struct kt_sdboot_next_uki *nx = calloc(1, sizeof(*nx));
    if (!nx)
        return -ENOMEM;
    /* the UKI given; systemd-boot's next entry; without it, the one UKI of
     * EFI/Linux */
    int rc = kt_sdboot_pick_uki(esp, vars, uki, true, nx, NULL);
    if (rc == 1)
        rc = kt_seal_uki_open(nx->path, out, uki ? err : NULL);
    if (*out) {
        (*out)->choice = nx;
        nx = NULL;
    }
    free(nx);
    if (uki)
        return rc < 0 ? rc : 0;
    return rc == -ENOMEM ? rc : 0;
}

const char *kt_seal_uki_path(const struct kt_seal_uki *u)
{
    return u ? u->path : NULL;
}

int kt_seal_uki_find(const char *esp, char *path, size_t cap)
{
    return kt_sdboot_only_uki(esp, path, cap);
}

const struct kt_sdboot_next_uki *kt_seal_uki_choice(const struct kt_seal_uki *u)
{
    return u ? u->choice : NULL;
}

const struct kt_uki *kt_seal_uki_image(const struct kt_seal_uki *u)
{
    return u ? u->u : NULL;
}

/* PCRs whose value at the initrd's unlock the values given (today's, or
 * today's with a prediction) are not: IMA's PCR 10 (the initrd's files and
 * every later one) and 15-23 (extended, or reset, by the running system).
 * ktrust predicts none of them at enter-initrd. */
#define LATE_PCRS (1u << 10 | 0xff8000u)

/* The values the key must have signed: p's, with PCR 11 the UKI's at
 * enter-initrd, in a one-bank copy.  -ENODATA: a PCR not given, -ERANGE: a
 * PCR of LATE_PCRS. */
static int signed_values(const struct kt_seal_token *t, const struct kt_seal_uki *uki,
                         const struct kt_evlog_pcrs *p, struct kt_evlog_pcrs *q,
                         struct kt_seal_check *r)
{
    if (t->pubkey_pcrs & LATE_PCRS)
        return -ERANGE;
    int rc = uki_pcr11(uki, t->bank, r->pcr11, &r->pcr11_len);
    if (rc < 0)
        return rc == -EINVAL ? -ENOPKG : rc;
    q->n_banks = 1;
    q->bank[0].alg = t->bank;
    q->bank[0].size = (uint16_t)r->pcr11_len;
    q->bank[0].supported = true;
    for (size_t b = 0; p && b < p->n_banks; b++)
        if (p->bank[b].alg == t->bank && p->bank[b].size == r->pcr11_len)
            q->bank[0] = p->bank[b];
    for (unsigned i = 0; i < KT_EVLOG_PCRS; i++)
        if ((t->pubkey_pcrs & (1u << i)) && i != 11 && !q->bank[0].used[i])
            return -ENODATA;
    memcpy(q->bank[0].pcr[11], r->pcr11, r->pcr11_len);
    q->bank[0].used[11] = true;
    return 0;
}

int kt_seal_signed_part(const struct kt_seal_token *t, const struct kt_seal_uki *uki,
                        const struct kt_evlog_pcrs *p, struct kt_seal_check *r)
{
    struct kt_evlog_pcrs *q = calloc(1, sizeof(*q));
    if (!q)
        return -ENOMEM;
    int rc = signed_values(t, uki, p, q, r);
    struct kt_seal_token a = {.kind = KT_SEAL_KIND_PCR, .bank = t->bank, .pcrs = t->pubkey_pcrs,
                              .policy_alg = KT_TPM_ALG_SHA256};
    size_t n = 0;
    if (rc == 0 && (rc = kt_seal_policy_digest(&a, q, r->approved, &n)) != 1)
        rc = rc < 0 ? rc : -ENODATA;
    free(q);
    if (rc < 0)
        return rc;
    r->have_sig = true;
    kt_fmt(r->uki, sizeof(r->uki), "%s", uki->path);
    if (uki->choice) {
        r->have_choice = true;
        kt_fmt(r->uki_image, sizeof(r->uki_image), "%s", uki->choice->image);
        kt_fmt(r->uki_entry, sizeof(r->uki_entry), "%s", uki->choice->entry);
        r->uki_rule = (int)uki->choice->rule;
    }
    r->sig = kt_seal_pcrsig_token(uki->u, t, r->approved);
    return r->sig == KT_SEAL_SIG_OK;
}

const char *kt_seal_sig_name(enum kt_seal_sig s)
{
    static const char *const n[] = {"ok", "no_pcrsig", "no_entry", "bad_signature", "malformed"};
    return (unsigned)s < 5 ? n[s] : "?";
}
