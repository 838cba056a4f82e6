/* pcrsig.c - a UKI's .pcrsig checked as systemd's tpm2-pubkey unlock uses
 * it (systemd 252: systemd-measure sign writes it, the stub hands it to
 * the initrd, systemd-cryptsetup picks the entry whose pol is the session's
 * PolicyPCR digest and has the TPM check sig with PolicyAuthorize).
 *
 * .pcrsig: {BANK: [{"pcrs": [11], "pkfp": HEX, "pol": HEX, "sig": BASE64}]}
 * pkfp: SHA-256 of the key as i2d_PublicKey encodes it (RSA: the PKCS#1
 * RSAPublicKey, EC: the point), that is the SubjectPublicKeyInfo's BIT
 * STRING; sig: the bank's hash of pol, signed (PKCS#1 v1.5 for RSA). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/crypto.h"
#include "der/der.h"
#include "ktrust/eventlog.h"
#include "seal/seal.h"
#include "uki/uki.h"
#include "util/base64.h"
#include "util/fmt.h"
#include "util/jsonr.h"

struct key {
    struct kt_pubkey *pk;
    uint8_t pkfp[32];
};

/* .pcrpkey: a PEM public key (SubjectPublicKeyInfo). */
static int load_key(const struct kt_uki *u, struct key *k, char *why, size_t cap)
{
    static const char *const labels[] = {"PUBLIC KEY"};
    const uint8_t *p;
    size_t len, der_len;
    uint8_t *der = NULL;
    if (kt_uki_get(u, ".pcrpkey", &p, &len) < 0) {
        kt_fmt(why, cap, "no .pcrpkey section");
        return -ENOENT;
    }
    int rc = kt_pem_decode(p, len, labels, 1, &der, &der_len, NULL);
    kt_der d, spki, alg;
    kt_span bits, whole = {der, der_len};
    unsigned unused;
    if (rc == 0) {
        kt_der_init(&d, der, der_len, KT_DER_STRICT, NULL);
        rc = kt_der_get(&d, KT_TAG_SEQUENCE, &spki, "SubjectPublicKeyInfo");
    }
    if (rc == 0)
        rc = kt_der_get(&spki, KT_TAG_SEQUENCE, &alg, "algorithm");
    if (rc == 0)
        rc = kt_der_get_bitstring(&spki, &bits, &unused, "subjectPublicKey");
    if (rc == 0)
        rc = kt_digest(KT_HASH_SHA256, bits.p, bits.len, k->pkfp);
    if (rc == 0)
        rc = kt_pubkey_from_spki(whole, &k->pk, NULL);
    free(der);
    if (rc < 0)
        kt_fmt(why, cap, ".pcrpkey: not a PEM public key the TPM takes");
    return rc;
}

/* The PolicyPCR digest over PCR 11 = value, in bank alg. */
static int policy_pcr11(uint16_t alg, const uint8_t *value, size_t len, uint8_t *out)
{
    struct kt_seal_token t = {.kind = KT_SEAL_KIND_PCR, .bank = alg, .pcrs = 1u << 11,
                              .policy_alg = alg};
    struct kt_evlog_pcrs *p = calloc(1, sizeof(*p));
    size_t n = 0;
    if (!p)
        return -ENOMEM;
    p->n_banks = 1;
    p->bank[0].alg = alg;
    p->bank[0].size = (uint16_t)len;
    p->bank[0].supported = true;
    p->bank[0].used[11] = true;
    memcpy(p->bank[0].pcr[11], value, len);
    int rc = kt_seal_policy_digest(&t, p, out, &n);
    free(p);
    return rc == 1 && n == len ? 0 : rc < 0 ? rc : -ENOPKG;
}

static bool is_pcr11_only(const struct kt_json *e)
{
    const struct kt_json *pcrs = kt_json_get(e, "pcrs");
    return pcrs && pcrs->type == KT_JSON_ARR && pcrs->n == 1 && pcrs->kids[0].type == KT_JSON_NUM &&
           strcmp(pcrs->kids[0].str, "11") == 0;
}

static int hex_eq(const char *hex, const uint8_t *v, size_t n)
{
    char buf[2 * KT_HASH_MAX_SIZE + 1];
    return hex && strlen(hex) == 2 * n && strcmp(hex, kt_hex(v, n, buf)) == 0;
}

/* One entry against the phases' policies: which phase it signs (-1: none). */
static int entry(const struct kt_json *e, const struct key *k, enum kt_hash h,
                 uint8_t pol[][KT_HASH_MAX_SIZE], size_t n, struct kt_uki_pcrsig *r)
{
    const char *sig = kt_json_str(e, "sig");
    if (!is_pcr11_only(e) || !sig)
        return -1;
    if (!hex_eq(kt_json_str(e, "pkfp"), k->pkfp, 32)) {
        r->other_key++;
        return -1;
    }
    for (int ph = 0; ph < KT_UKI_PHASES; ph++) {
        if (!hex_eq(kt_json_str(e, "pol"), pol[ph], n))
            continue;
        size_t slen = strlen(sig), blen = 0;
        uint8_t *b = malloc(slen / 4 * 3 + 3);
        struct kt_sigalg alg = {.pkey = kt_pubkey_algo(k->pk), .hash = h,
                                .enc = kt_pubkey_algo(k->pk) == KT_PKEY_ECDSA ? KT_SIG_ECDSA
                                                                               : KT_SIG_PKCS1};
        const uint8_t *bad;
        int rc = b ? kt_base64_decode((const uint8_t *)sig, (const uint8_t *)sig + slen, b, &blen,
                                      &bad)
                   : -ENOMEM;
        if (rc == 0)
            rc = kt_pubkey_verify(k->pk, &alg, pol[ph], n, b, blen);
        free(b);
        if (rc < 0 && r->status != KT_PCRSIG_INVALID) {
            r->status = KT_PCRSIG_INVALID;
            kt_fmt(r->why, sizeof(r->why), "the %s entry's signature does not verify with .pcrpkey",
                   kt_uki_phase_name((size_t)ph));
        }
        return rc == 0 ? ph : -1;
    }
    return -1;
}

static int check_entries(const struct kt_uki *u, const struct kt_json *arr, const struct key *k,
                         const char *bank, struct kt_uki_pcrsig *r)
{
    uint16_t alg = kt_evlog_alg_from_name(bank);
    enum kt_hash h = KT_HASH_NONE;
    uint8_t pol[KT_UKI_PHASES][KT_HASH_MAX_SIZE], v[KT_HASH_MAX_SIZE];
    size_t n = 0;
    for (size_t ph = 0; ph < KT_UKI_PHASES; ph++) {
        int rc = kt_uki_pcr11(u, bank, ph, v, &n);
        if (rc == 0)
            rc = policy_pcr11(alg, v, n, pol[ph]);
        if (rc < 0)
            return rc;
    }
    h = n == 20 ? KT_HASH_SHA1 : n == 32 ? KT_HASH_SHA256 : n == 48 ? KT_HASH_SHA384 : KT_HASH_SHA512;
    r->entries = arr->n;
    for (size_t i = 0; i < arr->n; i++) {
        int ph = entry(&arr->kids[i], k, h, pol, n, r);
        if (ph >= 0)
            r->signed_phase[ph] = true;
    }
    if (r->status != KT_PCRSIG_INVALID && !r->signed_phase[1]) {
        r->status = KT_PCRSIG_MISMATCH;
        kt_fmt(r->why, sizeof(r->why), "no %s entry signs this UKI's PCR 11 at enter-initrd%s",
               bank, r->other_key ? " with .pcrpkey" : "");
    }
    return 0;
}

int kt_uki_pcrsig_check(const struct kt_uki *u, const char *bank, struct kt_uki_pcrsig *r)
{
    const uint8_t *p;
    size_t len;
    struct kt_json *j = NULL;
    struct key k = {0};
    uint8_t v[KT_HASH_MAX_SIZE];
    memset(r, 0, sizeof(*r));
    if (kt_evlog_alg_from_name(bank) == 0 || kt_uki_pcr11(u, bank, 0, v, &len) < 0)
        return -EINVAL;
    if (kt_uki_get(u, ".pcrsig", &p, &len) < 0) {
        r->status = KT_PCRSIG_ABSENT;
        return 0;
    }
    r->status = KT_PCRSIG_INVALID;
    if (kt_json_parse((const char *)p, len, &j, NULL) < 0 || j->type != KT_JSON_OBJ) {
        kt_fmt(r->why, sizeof(r->why), ".pcrsig is not a JSON object");
    } else if (load_key(u, &k, r->why, sizeof(r->why)) == 0) {
        const struct kt_json *arr = kt_json_get(j, bank);
        r->have_pkfp = true;
        memcpy(r->pkfp, k.pkfp, 32);
        r->status = KT_PCRSIG_VALID;
        if (!arr || arr->type != KT_JSON_ARR) {
            r->status = KT_PCRSIG_MISMATCH;
            kt_fmt(r->why, sizeof(r->why), ".pcrsig has no %s entries", bank);
        } else if (check_entries(u, arr, &k, bank, r) < 0) {
            r->status = KT_PCRSIG_INVALID;
            kt_fmt(r->why, sizeof(r->why), "the PolicyPCR digest cannot be computed");
        }
    }
    kt_pubkey_free(k.pk);
    kt_json_free(j);
    return 0;
}

const char *kt_pcrsig_status_name(enum kt_pcrsig_status s)
{
    static const char *const names[] = {"valid", "absent", "mismatch", "invalid"};
    return (unsigned)s < 4 ? names[s] : "?";
}
