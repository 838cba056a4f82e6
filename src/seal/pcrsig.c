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
#include <strings.h>

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

/* The PolicyPCR digest (SHA-256: systemd's policy session) over PCR 11 =
 * value, in bank alg: out[32]. */
static int policy_pcr11(uint16_t alg, const uint8_t *value, size_t len, uint8_t *out)
{
    struct kt_seal_token t = {.kind = KT_SEAL_KIND_PCR, .bank = alg, .pcrs = 1u << 11,
                              .policy_alg = KT_TPM_ALG_SHA256};
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
    return rc == 1 && n == 32 ? 0 : rc < 0 ? rc : -ENOPKG;
}

/* An entry's "pcrs" as a mask; -1 when it is not an array of PCR numbers. */
static long pcr_mask(const struct kt_json *pcrs)
{
    long mask = 0;
    if (!pcrs || pcrs->type != KT_JSON_ARR)
        return -1;
    for (size_t i = 0; i < pcrs->n; i++) {
        char *end;
        long v = pcrs->kids[i].type == KT_JSON_NUM ? strtol(pcrs->kids[i].str, &end, 10) : -1;
        if (v < 0 || v >= KT_EVLOG_PCRS || *end)
            return -1;
        mask |= 1L << v;
    }
    return mask;
}

static int hex_eq(const char *hex, const uint8_t *v, size_t n)
{
    char buf[2 * KT_HASH_MAX_SIZE + 1];
    return hex && strlen(hex) == 2 * n && strcasecmp(hex, kt_hex(v, n, buf)) == 0;
}

/* An entry's key that find_signature decodes (json_variant_unhex or
 * _unbase64) and fails the whole search on: present but not a string, or
 * (hex) a character that is neither a hex digit nor white space. */
static bool undecodable(const struct kt_json *e, const char *key, bool hex)
{
    const struct kt_json *v = kt_json_get(e, key);
    if (!v)
        return false;
    if (v->type != KT_JSON_STR)
        return true;
    return hex && v->str[strspn(v->str, "0123456789abcdefABCDEF \t\n\r")];
}

static int verify(const char *sig, const uint8_t *pol, size_t n, const struct kt_pubkey *pk,
                  enum kt_hash h)
{
    size_t slen = strlen(sig), blen = 0;
    uint8_t *b = malloc(slen / 4 * 3 + 3);
    struct kt_sigalg alg = {.pkey = kt_pubkey_algo(pk), .hash = h,
                            .enc = kt_pubkey_algo(pk) == KT_PKEY_ECDSA ? KT_SIG_ECDSA : KT_SIG_PKCS1};
    const uint8_t *bad;
    int rc = b ? kt_base64_decode((const uint8_t *)sig, (const uint8_t *)sig + slen, b, &blen, &bad)
               : -ENOMEM;
    if (rc == 0)
        rc = kt_pubkey_verify(pk, &alg, pol, n, b, blen);
    free(b);
    return rc;
}

enum kt_seal_sig kt_seal_pcrsig_find(const struct kt_json *arr, uint32_t mask,
                                     const uint8_t pkfp[32], const uint8_t *pol, size_t n,
                                     const struct kt_pubkey *pk, enum kt_hash h)
{
    if (!arr)
        return KT_SEAL_SIG_NO_ENTRY;
    if (arr->type != KT_JSON_ARR)
        return KT_SEAL_SIG_MALFORMED;
    for (size_t i = 0; i < arr->n; i++) { /* systemd 252's find_signature */
        const struct kt_json *e = &arr->kids[i];
        if (e->type != KT_JSON_OBJ)
            return KT_SEAL_SIG_MALFORMED;
        const struct kt_json *pcrs = kt_json_get(e, "pcrs");
        if (!pcrs)
            continue;
        long m = pcr_mask(pcrs);
        if (m < 0)
            return KT_SEAL_SIG_MALFORMED;
        const char *sig = kt_json_str(e, "sig");
        /* systemd stops at the first matching entry it cannot decode: the
         * unlock fails, whatever a later entry holds */
        if ((uint32_t)m != mask)
            continue;
        if (undecodable(e, "pkfp", true))
            return KT_SEAL_SIG_MALFORMED;
        if (!hex_eq(kt_json_str(e, "pkfp"), pkfp, 32))
            continue;
        if (undecodable(e, "pol", true))
            return KT_SEAL_SIG_MALFORMED;
        if (!hex_eq(kt_json_str(e, "pol"), pol, n))
            continue;
        if (undecodable(e, "sig", false))
            return KT_SEAL_SIG_MALFORMED;
        if (!sig)
            continue;
        return verify(sig, pol, n, pk, h) == 0 ? KT_SEAL_SIG_OK : KT_SEAL_SIG_BAD;
    }
    return KT_SEAL_SIG_NO_ENTRY;
}

static int check_entries(const struct kt_uki *u, const struct kt_json *arr, const struct key *k,
                         const char *bank, struct kt_uki_pcrsig *r)
{
    uint16_t alg = kt_evlog_alg_from_name(bank);
    uint8_t pol[KT_UKI_PHASES][KT_SEAL_MAX_DIGEST], v[KT_HASH_MAX_SIZE];
    size_t n = 0;
    for (size_t ph = 0; ph < KT_UKI_PHASES; ph++) {
        int rc = kt_uki_pcr11(u, bank, ph, v, &n);
        if (rc == 0)
            rc = policy_pcr11(alg, v, n, pol[ph]);
        if (rc < 0)
            return rc;
    }
    /* systemd-measure signs pol with the bank's hash */
    enum kt_hash h = n == 20 ? KT_HASH_SHA1 : n == 32 ? KT_HASH_SHA256
                   : n == 48 ? KT_HASH_SHA384 : KT_HASH_SHA512;
    r->entries = arr->n;
    for (size_t i = 0; i < arr->n; i++)
        r->other_key += arr->kids[i].type == KT_JSON_OBJ &&
                        !hex_eq(kt_json_str(&arr->kids[i], "pkfp"), k->pkfp, 32);
    for (size_t ph = 0; ph < KT_UKI_PHASES; ph++) {
        enum kt_seal_sig st = kt_seal_pcrsig_find(arr, 1u << 11, k->pkfp, pol[ph], 32, k->pk, h);
        r->signed_phase[ph] = st == KT_SEAL_SIG_OK;
        if ((st == KT_SEAL_SIG_BAD || st == KT_SEAL_SIG_MALFORMED) && r->status != KT_PCRSIG_INVALID) {
            r->status = KT_PCRSIG_INVALID;
            kt_fmt(r->why, sizeof(r->why), st == KT_SEAL_SIG_BAD
                   ? "the %s entry's signature does not verify with .pcrpkey"
                   : "the %s entry is not the JSON systemd reads", kt_uki_phase_name(ph));
        }
    }
    if (r->status != KT_PCRSIG_INVALID && !r->signed_phase[1]) {
        r->status = KT_PCRSIG_MISMATCH;
        kt_fmt(r->why, sizeof(r->why), "no %s entry signs this UKI's PCR 11 at enter-initrd%s",
               bank, r->other_key ? " with .pcrpkey" : "");
    }
    return 0;
}

/* The token's key: an SPKI in DER. */
static int key_of_spki(const uint8_t *spki, size_t len, struct kt_pubkey **pk)
{
    kt_span whole = {spki, len};
    return kt_pubkey_from_spki(whole, pk, NULL);
}

enum kt_seal_sig kt_seal_pcrsig_token(const struct kt_uki *u, const struct kt_seal_token *t,
                                      const uint8_t pol[32])
{
    const uint8_t *p;
    size_t len;
    if (kt_uki_get(u, ".pcrsig", &p, &len) < 0)
        return KT_SEAL_SIG_NONE;
    struct kt_json *j = NULL;
    struct kt_pubkey *pk = NULL;
    enum kt_seal_sig st = KT_SEAL_SIG_MALFORMED;
    if (kt_json_parse((const char *)p, len, &j, NULL) == 0 && j->type == KT_JSON_OBJ &&
        key_of_spki(t->spki, t->spki_len, &pk) == 0) /* unlock: SHA-256, RSASSA */
        st = kt_seal_pcrsig_find(kt_json_get(j, kt_evlog_alg_name(t->bank)), t->pubkey_pcrs,
                                 t->pkfp, pol, 32, pk, KT_HASH_SHA256);
    kt_pubkey_free(pk);
    kt_json_free(j);
    return st;
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

/* Does .pcrsig hold an array for bank? */
static bool holds_bank(const struct kt_uki *u, const char *bank)
{
    const uint8_t *p;
    size_t len;
    struct kt_json *j = NULL;
    bool yes = kt_uki_get(u, ".pcrsig", &p, &len) == 0 &&
               kt_json_parse((const char *)p, len, &j, NULL) == 0 && j->type == KT_JSON_OBJ &&
               kt_json_get(j, bank);
    kt_json_free(j);
    return yes;
}

int kt_uki_pcrsig_check_banks(const struct kt_uki *u, const char *const *want, size_t n_want,
                              struct kt_uki_pcrsig_banks *out)
{
    static const char *const banks[KT_UKI_PCRSIG_BANKS] = {"sha1", "sha256", "sha384", "sha512"};
    memset(out, 0, sizeof(*out));
    for (size_t b = 0; b < KT_UKI_PCRSIG_BANKS; b++) {
        bool wanted = false;
        for (size_t i = 0; i < n_want; i++)
            wanted |= want[i] && !strcmp(want[i], banks[b]);
        bool present = holds_bank(u, banks[b]);
        if (!present && !wanted)
            continue;
        int rc = kt_uki_pcrsig_check(u, banks[b], &out->r[out->n]);
        if (rc == -ENOMEM)
            return rc;
        if (rc < 0)
            continue; /* -EINVAL: this UKI's PCR 11 cannot be computed in that bank */
        out->bank[out->n] = banks[b];
        out->present[out->n++] = present;
    }
    return 0;
}

const char *kt_pcrsig_status_name(enum kt_pcrsig_status s)
{
    static const char *const names[] = {"valid", "absent", "mismatch", "invalid"};
    return (unsigned)s < 4 ? names[s] : "?";
}
