/* test_seal.c - the policy digest of sealed tokens: the real enrolments in
 * fuzz/seeds/fuzz_seal_token (systemd-cryptenroll 252 on swtpm: PCR 7, PCR 7
 * + PIN, PCRs 4+7; clevis 19: PCR 7 in the sha1 bank) against the PCR values
 * they were sealed to; TPM2_PolicyPCR's selection as the TPM hashes it; the
 * verdict after a change and the PCRs it names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_test.h"
#include "ktrust/seal.h"
#include "seal/seal.h"
#include "util/file.h"

static int token(const char *name, struct kt_seal_token *t)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/fuzz/seeds/fuzz_seal_token/%s", getenv("KT_SRC") ? getenv("KT_SRC") : ".", name);
    struct kt_seal_token *v;
    size_t n;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_seal_tokens_read(path, &v, &n, &e);
    if (rc == 0 && n == 1)
        *t = v[0];
    free(v);
    return rc == 0 && n == 1 ? 0 : -1;
}

static void hex(const char *s, uint8_t *out)
{
    for (size_t i = 0; s[2 * i]; i++) {
        unsigned v;
        sscanf(s + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

/* PCR 7 = extend of "a" from zero (the swtpm of the seeds), PCR 4 zero. */
static void sealed_state(struct kt_evlog_pcrs *p)
{
    memset(p, 0, sizeof(*p));
    p->n_banks = 2;
    p->bank[0].alg = KT_TPM_ALG_SHA256, p->bank[0].size = 32, p->bank[0].supported = true;
    p->bank[1].alg = KT_TPM_ALG_SHA1, p->bank[1].size = 20, p->bank[1].supported = true;
    hex("8c374a53782642f7514d087d26a3e733f1b806009a03e04a43b288ef2fa9f9c0", p->bank[0].pcr[7]);
    hex("b311ff7e540d671f5b54ed190d402a1d064fbecb", p->bank[1].pcr[7]);
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 8; i++)
            p->bank[b].used[i] = true;
}

int main(void)
{
    static struct kt_evlog_pcrs p, after;
    sealed_state(&p);
    static const struct { const char *file; enum kt_seal_tool tool; enum kt_seal_kind kind; uint32_t pcrs; } t[] = {
        {"token0.json", KT_SEAL_SYSTEMD, KT_SEAL_KIND_PCR, 1u << 7},
        {"token1.json", KT_SEAL_CLEVIS, KT_SEAL_KIND_PCR, 1u << 7},
        {"token2.json", KT_SEAL_SYSTEMD, KT_SEAL_KIND_PIN_PCR, 1u << 7},
        {"token3.json", KT_SEAL_SYSTEMD, KT_SEAL_KIND_PCR, 1u << 4 | 1u << 7},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct kt_seal_token k;
        CHECK(token(t[i].file, &k) == 0, "%s read", t[i].file);
        CHECK(k.tool == t[i].tool && k.kind == t[i].kind && k.pcrs == t[i].pcrs, "%s: tool, kind, PCRs", t[i].file);
        uint8_t d[KT_SEAL_MAX_DIGEST];
        size_t len = 0;
        CHECK_EQ_INT(kt_seal_policy_digest(&k, &p, d, &len), 1, t[i].file);
        CHECK(len == k.policy_len && !memcmp(d, k.policy, len), "%s: the recomputed digest is the token's", t[i].file);
        struct kt_seal_check r;
        after = p;
        after.bank[0].pcr[4][0] ^= 1; /* a change of PCR 4 in sha256 only */
        CHECK_EQ_INT(kt_seal_check(&k, &p, &p, &after, &r), 0, "check");
        CHECK(r.today == KT_SEAL_UNSEALS, "%s: unseals today", t[i].file);
        bool hit = k.bank == KT_TPM_ALG_SHA256 && (k.pcrs & 1u << 4);
        CHECK(r.after == (hit ? KT_SEAL_FAILS : KT_SEAL_UNSEALS), "%s: after the PCR 4 change", t[i].file);
        CHECK_EQ_INT(r.changed, hit ? 1u << 4 : 0, "changed PCRs");
        CHECK(!hit || !memcmp(r.after_values[0], after.bank[0].pcr[4], 32), "re-seal values: PCR 4 first");
    }
    /* the PIN is PolicyAuthValue after PolicyPCR: without it the digest differs */
    struct kt_seal_token k;
    token("token2.json", &k);
    k.kind = KT_SEAL_KIND_PCR;
    uint8_t d[KT_SEAL_MAX_DIGEST];
    size_t len;
    kt_seal_policy_digest(&k, &p, d, &len);
    CHECK(memcmp(d, k.policy, 32) != 0, "PIN+PCR differs from PCR alone");
    /* TPML_PCR_SELECTION {count 1, sha256, 3, 80 00 00} for PCR 7 */
    uint8_t sel[16];
    static const uint8_t want[] = {0, 0, 0, 1, 0, 0x0b, 3, 0x80, 0, 0};
    CHECK_EQ_INT(kt_seal_pcr_selection(KT_TPM_ALG_SHA256, 1u << 7, sel, sizeof(sel)), 10, "selection size");
    CHECK(!memcmp(sel, want, sizeof(want)), "selection bytes");
    /* a PCR missing from the values: cannot tell, never guessed */
    token("token0.json", &k);
    p.bank[0].used[7] = false;
    struct kt_seal_check r;
    kt_seal_check(&k, &p, NULL, NULL, &r);
    CHECK(r.today == KT_SEAL_CANNOT_TELL && r.why_today == KT_SEAL_WHY_NO_PCR, "PCR 7 not read");
    KT_TEST_END();
}
