/* token.c - one LUKS2 token's JSON as a sealed secret: systemd-cryptenroll's
 * "systemd-tpm2" (tpm2-pcrs, tpm2-pcr-bank, tpm2-policy-hash, tpm2-pin,
 * tpm2-pubkey, tpm2_pcrlock) and clevis' "clevis" whose JWE protected
 * header holds clevis.tpm2 (pcr_ids, pcr_bank, jwk_pub: a TPM2B_PUBLIC
 * whose authPolicy is the policy digest). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "seal/seal.h"
#include "util/base64.h"
#include "util/err.h"
#include "util/fmt.h"
#include "util/jsonr.h"

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A hex string of 20..64 bytes into out. */
static int unhex(const char *s, uint8_t *out, size_t *len)
{
    size_t n = strlen(s);
    if (n % 2 || n < 40 || n > 2 * KT_SEAL_MAX_DIGEST)
        return -EBADMSG;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -EBADMSG;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    *len = n / 2;
    return 0;
}

/* base64url (no padding), or with url false base64, into a malloc'd buffer. */
static int b64(const char *s, bool url, uint8_t **out, size_t *len)
{
    size_t n = strlen(s);
    char *t = malloc(n + 4);
    uint8_t *o = malloc(n / 4 * 3 + 6);
    if (!t || !o) {
        free(t), free(o);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        t[i] = !url ? s[i] : s[i] == '-' ? '+' : s[i] == '_' ? '/' : s[i] == '+' || s[i] == '/' ? '!' : s[i];
    while (n % 4)
        t[n++] = '=';
    const uint8_t *bad;
    int rc = kt_base64_decode((const uint8_t *)t, (const uint8_t *)t + n, o, len, &bad);
    free(t);
    if (rc < 0) {
        free(o);
        return -EBADMSG;
    }
    *out = o;
    return 0;
}

static int bank_of(const char *name, uint16_t *alg)
{
    *alg = kt_evlog_alg_from_name(name);
    return *alg ? 0 : -EBADMSG;
}

static int first_keyslot(const struct kt_json *root)
{
    const struct kt_json *ks = kt_json_get(root, "keyslots");
    if (!ks || ks->type != KT_JSON_ARR || !ks->n)
        return -1;
    const struct kt_json *k = &ks->kids[0];
    if (k->type != KT_JSON_STR && k->type != KT_JSON_NUM)
        return -1;
    char *end;
    long v = strtol(k->str, &end, 10);
    return *end || v < 0 || v > 1024 ? -1 : (int)v;
}

/* A PCR number 0..23 of a JSON number or decimal string. */
static int pcr_number(const char *s, uint32_t *mask)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 0 || v >= KT_EVLOG_PCRS)
        return -EBADMSG;
    *mask |= 1u << v;
    return 0;
}

/* systemd's signed PCR policy: tpm2_pubkey (base64 of the PEM public key)
 * and tpm2_pubkey_pcrs (the PCRs its signatures cover). */
static int signed_token(const struct kt_json *root, struct kt_seal_token *t, struct kt_error *err)
{
    t->kind = KT_SEAL_KIND_SIGNED;
    const struct kt_json *pcrs = kt_json_get(root, "tpm2_pubkey_pcrs");
    for (size_t i = 0; pcrs && pcrs->type == KT_JSON_ARR && i < pcrs->n; i++)
        if (pcrs->kids[i].type != KT_JSON_NUM || pcr_number(pcrs->kids[i].str, &t->pubkey_pcrs) < 0)
            return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "systemd-tpm2 token: tpm2_pubkey_pcrs: not a PCR number");
    if (!pcrs || pcrs->type != KT_JSON_ARR)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "systemd-tpm2 token: tpm2_pubkey without tpm2_pubkey_pcrs");
    const char *pub = kt_json_str(root, "tpm2_pubkey");
    uint8_t *pem = NULL;
    size_t len = 0;
    int rc = pub ? b64(pub, false, &pem, &len) : -EBADMSG;
    if (rc == -ENOMEM)
        return rc;
    if (rc == 0 && kt_seal_key_parse(pem, len, t) < 0)
        rc = -EBADMSG;
    free(pem);
    if (rc < 0)
        kt_fmt(t->note, sizeof(t->note), "a signed PCR policy whose key (tpm2_pubkey) is not an "
               "RSA public key as systemd 252 loads it");
    return 0;
}

static int systemd_token(const struct kt_json *root, struct kt_seal_token *t, struct kt_error *err)
{
    t->tool = KT_SEAL_SYSTEMD;
    t->kind = KT_SEAL_KIND_PCR;
    t->bank = KT_TPM_ALG_SHA256; /* tokens before tpm2-pcr-bank existed used sha256 */
    const struct kt_json *pcrs = kt_json_get(root, "tpm2-pcrs");
    if (!pcrs || pcrs->type != KT_JSON_ARR)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "systemd-tpm2 token: no tpm2-pcrs array");
    for (size_t i = 0; i < pcrs->n; i++)
        if (pcrs->kids[i].type != KT_JSON_NUM || pcr_number(pcrs->kids[i].str, &t->pcrs) < 0)
            return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "systemd-tpm2 token: tpm2-pcrs: not a PCR number");
    const char *bank = kt_json_str(root, "tpm2-pcr-bank");
    if (bank && bank_of(bank, &t->bank) < 0)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "systemd-tpm2 token: tpm2-pcr-bank '%.32s' unknown", bank);
    const char *hash = kt_json_str(root, "tpm2-policy-hash");
    if (!hash || unhex(hash, t->policy, &t->policy_len) < 0)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "systemd-tpm2 token: tpm2-policy-hash is not a hex digest");
    t->policy_alg = t->policy_len == 32 ? KT_TPM_ALG_SHA256 : 0;
    const struct kt_json *pin = kt_json_get(root, "tpm2-pin");
    if (pin && pin->type == KT_JSON_BOOL && !strcmp(pin->str, "true")) {
        t->kind = KT_SEAL_KIND_PIN_PCR;
        t->pin = true;
    }
    const struct kt_json *pcrlock = kt_json_get(root, "tpm2_pcrlock");
    if (kt_json_get(root, "tpm2_pubkey")) {
        int rc = signed_token(root, t, err);
        if (rc < 0)
            return rc;
    } else if (pcrlock && pcrlock->type == KT_JSON_BOOL && !strcmp(pcrlock->str, "true")) {
        t->kind = KT_SEAL_KIND_UNKNOWN;
        kt_fmt(t->note, sizeof(t->note), "a systemd-pcrlock policy (PolicyAuthorizeNV): its PCR "
               "values live in a TPM NV index, not in the header");
    }
    if (!t->policy_alg) {
        t->kind = KT_SEAL_KIND_UNKNOWN;
        kt_fmt(t->note, sizeof(t->note), "a policy digest of %zu bytes (not SHA-256)", t->policy_len);
    }
    return 1;
}

static int clevis_pcr_ids(const struct kt_json *ids, uint32_t *mask)
{
    if (ids->type == KT_JSON_NUM)
        return pcr_number(ids->str, mask);
    if (ids->type == KT_JSON_ARR) {
        for (size_t i = 0; i < ids->n; i++)
            if ((ids->kids[i].type != KT_JSON_NUM && ids->kids[i].type != KT_JSON_STR) ||
                pcr_number(ids->kids[i].str, mask) < 0)
                return -EBADMSG;
        return 0;
    }
    if (ids->type != KT_JSON_STR)
        return -EBADMSG;
    char buf[128];
    if (strlen(ids->str) >= sizeof(buf))
        return -EBADMSG;
    strcpy(buf, ids->str);
    char *save = NULL;
    for (char *p = strtok_r(buf, ", ", &save); p; p = strtok_r(NULL, ", ", &save))
        if (pcr_number(p, mask) < 0)
            return -EBADMSG;
    return 0;
}

/* clevis.tpm2 of the decoded protected header. */
static int clevis_tpm2(const struct kt_json *tpm2, struct kt_seal_token *t, struct kt_error *err)
{
    t->kind = KT_SEAL_KIND_PCR;
    t->bank = KT_TPM_ALG_SHA1; /* clevis' default pcr_bank */
    const char *bank = kt_json_str(tpm2, "pcr_bank");
    if (bank && bank_of(bank, &t->bank) < 0)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "clevis token: pcr_bank '%.32s' unknown", bank);
    const struct kt_json *ids = kt_json_get(tpm2, "pcr_ids");
    if (ids && clevis_pcr_ids(ids, &t->pcrs) < 0)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "clevis token: pcr_ids is not a list of PCR numbers");
    const char *pub = kt_json_str(tpm2, "jwk_pub");
    if (!pub)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "clevis token: tpm2 pin without jwk_pub");
    uint8_t *raw;
    size_t len;
    int rc = b64(pub, true, &raw, &len);
    if (rc < 0)
        return rc == -ENOMEM ? rc : kt_fail(err, rc, KT_NO_OFFSET, "clevis token: jwk_pub is not base64url");
    rc = kt_seal_public_policy(raw, len, &t->policy_alg, t->policy, &t->policy_len, err);
    free(raw);
    if (rc < 0)
        return rc;
    if (kt_json_get(tpm2, "policy_pubkey") || kt_json_get(tpm2, "policy_ref")) {
        t->kind = KT_SEAL_KIND_SIGNED;
        kt_fmt(t->note, sizeof(t->note), "an authorized (signed) policy: it unseals with any PCR "
               "values its key signed");
    } else if (t->policy_alg != KT_TPM_ALG_SHA256 || (t->policy_len != 32 && t->pcrs)) {
        t->kind = KT_SEAL_KIND_UNKNOWN;
        kt_fmt(t->note, sizeof(t->note), "a policy in another hash than SHA-256");
    }
    return 1;
}

static int clevis_token(const struct kt_json *root, struct kt_seal_token *t, struct kt_error *err)
{
    t->tool = KT_SEAL_CLEVIS;
    const struct kt_json *jwe = kt_json_get(root, "jwe");
    const char *prot = jwe ? kt_json_str(jwe, "protected") : NULL;
    if (!prot)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "clevis token: no jwe.protected header");
    uint8_t *hdr;
    size_t len;
    int rc = b64(prot, true, &hdr, &len);
    if (rc < 0)
        return rc == -ENOMEM ? rc : kt_fail(err, rc, KT_NO_OFFSET, "clevis token: jwe.protected is not base64url");
    struct kt_json *h = NULL;
    struct kt_error he = KT_ERROR_INIT;
    rc = kt_json_parse((const char *)hdr, len, &h, &he);
    free(hdr);
    if (rc < 0) {
        kt_json_free(h);
        return rc == -ENOMEM ? rc : kt_fail(err, rc, KT_NO_OFFSET, "clevis token: jwe.protected: %s", he.what);
    }
    const struct kt_json *cl = kt_json_get(h, "clevis");
    const char *pin = cl ? kt_json_str(cl, "pin") : NULL;
    const struct kt_json *tpm2 = cl ? kt_json_get(cl, "tpm2") : NULL;
    if (!pin)
        rc = kt_fail(err, -EBADMSG, KT_NO_OFFSET, "clevis token: no clevis.pin in the JWE header");
    else if (!strcmp(pin, "tpm2") && tpm2 && tpm2->type == KT_JSON_OBJ)
        rc = clevis_tpm2(tpm2, t, err);
    else if (!strcmp(pin, "tpm2"))
        rc = kt_fail(err, -EBADMSG, KT_NO_OFFSET, "clevis token: tpm2 pin without clevis.tpm2");
    else if (!strcmp(pin, "sss")) {
        t->kind = KT_SEAL_KIND_UNKNOWN;
        kt_fmt(t->note, sizeof(t->note), "a Shamir (sss) policy of several pins: not recomputed");
        rc = 1;
    } else {
        rc = 0; /* tang and the like: not sealed to the TPM */
    }
    kt_json_free(h);
    return rc;
}

int kt_seal_token_parse(const char *json, size_t len, struct kt_seal_token *t,
                        struct kt_error *err)
{
    memset(t, 0, sizeof(*t));
    t->token = -1;
    struct kt_json *root = NULL;
    int rc = kt_json_parse(json, len, &root, err);
    if (rc < 0) {
        kt_json_free(root);
        return rc;
    }
    const char *type = root->type == KT_JSON_OBJ ? kt_json_str(root, "type") : NULL;
    if (!type)
        rc = kt_fail(err, -EBADMSG, KT_NO_OFFSET, "token: not a LUKS2 token object (no \"type\")");
    else if (!strcmp(type, "systemd-tpm2"))
        rc = systemd_token(root, t, err);
    else if (!strcmp(type, "clevis"))
        rc = clevis_token(root, t, err);
    else
        rc = 0;
    if (rc > 0)
        t->keyslot = first_keyslot(root);
    kt_json_free(root);
    return rc;
}
