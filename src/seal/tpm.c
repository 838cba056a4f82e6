/* tpm.c - TPM 2.0 structures through the reference TSS's marshalling
 * (libtss2-mu): a sealed object's TPM2B_PUBLIC read, a PCR selection and a
 * command code written as TPM2_PolicyPCR hashes them; a signed policy's
 * key as systemd 252 loads it (its TPM name) and the PolicyAuthorize
 * digest it starts the policy with:
 *   d = H(H(0 || TPM_CC_PolicyAuthorize || keyName) || policyRef)
 * keyName = nameAlg || H(TPMT_PUBLIC) of the key as systemd's LoadExternal
 * takes it (RSA, SHA-256 name, decrypt|sign|userWithAuth, no scheme),
 * policyRef empty. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "der/der.h"
#include "seal/seal.h"
#include "util/base64.h"
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

static const uint8_t rsa_oid[] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01};

/* The SPKI's algorithm OID and BIT STRING. */
static int spki_parts(const uint8_t *der, size_t len, kt_span *oid, kt_span *bits)
{
    kt_der d, spki, alg;
    unsigned unused;
    kt_der_init(&d, der, len, KT_DER_STRICT, NULL);
    int rc = kt_der_get(&d, KT_TAG_SEQUENCE, &spki, "SubjectPublicKeyInfo");
    if (rc == 0)
        rc = kt_der_get(&spki, KT_TAG_SEQUENCE, &alg, "algorithm");
    if (rc == 0)
        rc = kt_der_get_oid(&alg, oid, "algorithm");
    if (rc == 0)
        rc = kt_der_get_bitstring(&spki, bits, &unused, "subjectPublicKey");
    return rc;
}

int kt_seal_key_parse(const uint8_t *pem, size_t len, struct kt_seal_token *t)
{
    static const char *const labels[] = {"PUBLIC KEY"};
    uint8_t *der = NULL;
    size_t der_len = 0;
    kt_span oid, bits;
    int rc = kt_pem_decode(pem, len, labels, 1, &der, &der_len, NULL);
    if (rc == 0)
        rc = spki_parts(der, der_len, &oid, &bits);
    if (rc == 0 && (oid.len != sizeof(rsa_oid) || memcmp(oid.p, rsa_oid, oid.len) ||
                    der_len > sizeof(t->spki)))
        rc = -EBADMSG;
    if (rc == 0)
        rc = kt_digest(KT_HASH_SHA256, bits.p, bits.len, t->pkfp);
    if (rc == 0) {
        memcpy(t->spki, der, der_len);
        t->spki_len = der_len;
    }
    free(der);
    return rc < 0 ? -EBADMSG : 0;
}

/* The RSA modulus (no leading zero) and the exponent as systemd 252 puts
 * it in TPMT_PUBLIC: BN_bn2bin's big-endian bytes written over a uint32_t
 * read on a little-endian host (65537 and 3 come out right). */
static int rsa_parts(const struct kt_seal_token *t, kt_span *n, uint32_t *e)
{
    kt_span oid, bits, es;
    kt_der d, seq;
    int rc = spki_parts(t->spki, t->spki_len, &oid, &bits);
    if (rc == 0) {
        kt_der_init(&d, bits.p, bits.len, KT_DER_STRICT, NULL);
        rc = kt_der_get(&d, KT_TAG_SEQUENCE, &seq, "RSAPublicKey");
    }
    if (rc == 0)
        rc = kt_der_get_integer(&seq, n, "modulus");
    if (rc == 0)
        rc = kt_der_get_integer(&seq, &es, "publicExponent");
    if (rc < 0)
        return -EBADMSG;
    while (n->len && !n->p[0])
        n->p++, n->len--;
    while (es.len && !es.p[0])
        es.p++, es.len--;
    if (!n->len || n->len > 512 || !es.len || es.len > 4)
        return -EBADMSG;
    *e = 0;
    for (size_t i = 0; i < es.len; i++)
        *e |= (uint32_t)es.p[i] << (8 * i);
    return 0;
}

/* keyName: TPM_ALG_SHA256 || SHA-256(the marshalled TPMT_PUBLIC). */
static int key_name(const struct kt_seal_token *t, uint8_t name[34])
{
    const struct kt_seal_mu *mu = kt_seal_tss2();
    if (!mu)
        return -ENOPKG;
    kt_span n;
    uint32_t e;
    if (!t->spki_len || rsa_parts(t, &n, &e) < 0)
        return -EBADMSG;
    TPMT_PUBLIC *pub = calloc(1, sizeof(*pub));
    uint8_t *buf = malloc(1024);
    size_t off = 0;
    int rc = pub && buf ? 0 : -ENOMEM;
    if (rc == 0) {
        pub->type = TPM2_ALG_RSA;
        pub->nameAlg = TPM2_ALG_SHA256;
        pub->objectAttributes = TPMA_OBJECT_DECRYPT | TPMA_OBJECT_SIGN_ENCRYPT |
                                TPMA_OBJECT_USERWITHAUTH;
        pub->parameters.rsaDetail.scheme.scheme = TPM2_ALG_NULL;
        pub->parameters.rsaDetail.symmetric.algorithm = TPM2_ALG_NULL;
        pub->parameters.rsaDetail.keyBits = (uint16_t)(n.len * 8);
        pub->parameters.rsaDetail.exponent = e;
        pub->unique.rsa.size = (uint16_t)n.len;
        memcpy(pub->unique.rsa.buffer, n.p, n.len);
        if (mu->Tss2_MU_TPMT_PUBLIC_Marshal(pub, buf, 1024, &off) != TSS2_RC_SUCCESS)
            rc = -EBADMSG;
    }
    name[0] = 0x00, name[1] = 0x0b;
    if (rc == 0)
        rc = kt_digest(KT_HASH_SHA256, buf, off, name + 2);
    free(pub);
    free(buf);
    return rc;
}

int kt_seal_authorize_digest(const struct kt_seal_token *t, uint8_t d[32])
{
    uint8_t buf[32 + 4 + 34];
    memset(buf, 0, 32);
    int rc = kt_seal_cc(KT_TPM_CC_POLICY_AUTHORIZE, buf + 32);
    if (rc == 0)
        rc = key_name(t, buf + 36);
    if (rc == 0)
        rc = kt_digest(KT_HASH_SHA256, buf, sizeof(buf), d);
    if (rc == 0) /* policyRef: the empty nonce */
        rc = kt_digest(KT_HASH_SHA256, d, 32, d);
    return rc;
}
