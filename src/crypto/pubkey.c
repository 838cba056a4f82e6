/* Public-key import and signature verification through OpenSSL EVP.
 * struct kt_pubkey is an EVP_PKEY under another name. */
#include "crypto/crypto.h"
#include "der/oid.h"

#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

const EVP_MD *kt_evp_md(enum kt_hash h);
void kt_crypto_init(void);
enum kt_pkey_algo kt_mldsa_of_pkey(const EVP_PKEY *pk); /* mldsa.c */

#define PK(k) ((EVP_PKEY *)(k))

/* An rsaEncryption key read straight from its RSAPublicKey with
 * d2i_PublicKey (OpenSSL's RSAPublicKey decoder, the one d2i_PUBKEY ends in),
 * or NULL: another algorithm, unused bits, bytes after the key, anything
 * d2i_PUBKEY should judge itself.  d2i_PUBKEY builds an OSSL_DECODER chain
 * on every call (about 0.3 ms with OpenSSL 3.0), and the key it gives takes
 * the encoder path in kt_pubkey_id (another 0.3 ms): a PE check with one
 * --trust certificate paid both twice, more than its digest of 8 MB costs
 * beyond `openssl dgst` (#38). */
static EVP_PKEY *rsa_fast(kt_span spki)
{
    kt_der d, seq, alg;
    kt_span bits;
    unsigned unused;
    enum kt_oid o;
    kt_der_init(&d, spki.p, spki.len, KT_DER_STRICT, NULL);
    if (kt_der_get(&d, KT_TAG_SEQUENCE, &seq, NULL) < 0 || !kt_der_empty(&d) ||
        kt_der_get(&seq, KT_TAG_SEQUENCE, &alg, NULL) < 0 ||
        kt_der_get_oid_id(&alg, &o, NULL, NULL) < 0 || o != KT_OID_RSA_ENCRYPTION ||
        (!kt_der_empty(&alg) && (kt_der_get_null(&alg, NULL) < 0 || !kt_der_empty(&alg))) ||
        kt_der_get_bitstring(&seq, &bits, &unused, NULL) < 0 || unused != 0 ||
        !kt_der_empty(&seq) || bits.len > 0x7fffffff)
        return NULL; /* parameters other than NULL, too: d2i_PUBKEY judges them */
    const unsigned char *p = bits.p;
    EVP_PKEY *pk = d2i_PublicKey(EVP_PKEY_RSA, NULL, &p, (long)bits.len);
    if (pk && p != bits.p + bits.len) {
        EVP_PKEY_free(pk);
        pk = NULL;
    }
    return pk;
}

int kt_pubkey_from_spki(kt_span spki, struct kt_pubkey **out, struct kt_error *err)
{
    const unsigned char *p = spki.p;
    kt_crypto_init();
    if (spki.len > 0x7fffffff)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "subjectPublicKeyInfo: too large");
    EVP_PKEY *pk = rsa_fast(spki);
    if (!pk)
        pk = d2i_PUBKEY(NULL, &p, (long)spki.len);
    if (!pk)
        return kt_fail(err, -ENOPKG, KT_NO_OFFSET,
                       "subjectPublicKeyInfo: key type unsupported or key malformed");
    int id = EVP_PKEY_get_base_id(pk);
    if (id != EVP_PKEY_RSA && id != EVP_PKEY_RSA_PSS && id != EVP_PKEY_EC &&
        id != EVP_PKEY_ED25519 && kt_mldsa_of_pkey(pk) == KT_PKEY_UNKNOWN) {
        EVP_PKEY_free(pk);
        return kt_fail(err, -ENOPKG, KT_NO_OFFSET, "subjectPublicKeyInfo: unsupported key type");
    }
    *out = (struct kt_pubkey *)pk;
    return 0;
}

void kt_pubkey_free(struct kt_pubkey *k)
{
    EVP_PKEY_free(PK(k));
}

struct kt_pubkey *kt_pubkey_ref(struct kt_pubkey *k)
{
    if (k)
        EVP_PKEY_up_ref(PK(k));
    return k;
}

enum kt_pkey_algo kt_pubkey_algo(const struct kt_pubkey *k)
{
    switch (EVP_PKEY_get_base_id(PK(k))) {
    case EVP_PKEY_RSA:
    case EVP_PKEY_RSA_PSS: return KT_PKEY_RSA;
    case EVP_PKEY_EC: return KT_PKEY_ECDSA;
    case EVP_PKEY_ED25519: return KT_PKEY_ED25519;
    default: return kt_mldsa_of_pkey(PK(k));
    }
}

unsigned kt_pubkey_bits(const struct kt_pubkey *k)
{
    return (unsigned)EVP_PKEY_get_bits(PK(k));
}

const char *kt_pkey_algo_name(enum kt_pkey_algo a)
{
    switch (a) {
    case KT_PKEY_RSA: return "rsa";
    case KT_PKEY_ECDSA: return "ecdsa";
    case KT_PKEY_ED25519: return "ed25519";
    case KT_PKEY_MLDSA44: return "mldsa44";
    case KT_PKEY_MLDSA65: return "mldsa65";
    case KT_PKEY_MLDSA87: return "mldsa87";
    default: return "unknown";
    }
}

static int check_match(const struct kt_pubkey *k, const struct kt_sigalg *alg)
{
    if (alg->unsupported)
        return -ENOPKG;
    enum kt_pkey_algo a = kt_pubkey_algo(k);
    switch (alg->enc) {
    case KT_SIG_PKCS1:
    case KT_SIG_PSS: return a == KT_PKEY_RSA ? 0 : -ENOPKG;
    case KT_SIG_ECDSA: return a == KT_PKEY_ECDSA ? 0 : -ENOPKG;
    case KT_SIG_ED25519: return a == KT_PKEY_ED25519 ? 0 : -ENOPKG;
    case KT_SIG_MLDSA: return a == alg->pkey && kt_pkey_algo_available(a) ? 0 : -ENOPKG;
    }
    return -ENOPKG;
}

int kt_pubkey_verify_digest(const struct kt_pubkey *k, const struct kt_sigalg *alg,
                            const uint8_t *digest, size_t digest_len, const uint8_t *sig,
                            size_t sig_len)
{
    KT_TRY(check_match(k, alg));
    if (kt_sigalg_takes_data(alg))
        return -ENOPKG;
    const EVP_MD *md = kt_evp_md(alg->hash);
    if (!md || digest_len != kt_hash_size(alg->hash))
        return -ENOPKG;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(PK(k), NULL);
    if (!ctx)
        return -ENOMEM;
    int rc = -ENOPKG;
    if (EVP_PKEY_verify_init(ctx) <= 0)
        goto out;
    if (alg->enc == KT_SIG_PKCS1 || alg->enc == KT_SIG_PSS) {
        int pad = alg->enc == KT_SIG_PSS ? RSA_PKCS1_PSS_PADDING : RSA_PKCS1_PADDING;
        if (EVP_PKEY_CTX_set_rsa_padding(ctx, pad) <= 0)
            goto out;
        if (alg->enc == KT_SIG_PSS) {
            const EVP_MD *mgf = kt_evp_md(alg->pss_mgf1_hash ? alg->pss_mgf1_hash : alg->hash);
            if (!mgf || EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, mgf) <= 0 ||
                EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, alg->pss_salt_len) <= 0)
                goto out;
        }
    }
    if (EVP_PKEY_CTX_set_signature_md(ctx, md) <= 0)
        goto out;
    int v = EVP_PKEY_verify(ctx, sig, sig_len, digest, digest_len);
    rc = v == 1 ? 0 : -EKEYREJECTED;
out:
    EVP_PKEY_CTX_free(ctx);
    return rc;
}

int kt_pubkey_verify(const struct kt_pubkey *k, const struct kt_sigalg *alg, const uint8_t *msg,
                     size_t msg_len, const uint8_t *sig, size_t sig_len)
{
    KT_TRY(check_match(k, alg));
    if (kt_sigalg_takes_data(alg)) { /* the message itself; ML-DSA: pure, empty context */
        EVP_MD_CTX *mctx = EVP_MD_CTX_new();
        if (!mctx)
            return -ENOMEM;
        int rc = -ENOPKG;
        if (EVP_DigestVerifyInit_ex(mctx, NULL, NULL, NULL, NULL, PK(k), NULL) == 1)
            rc = EVP_DigestVerify(mctx, sig, sig_len, msg, msg_len) == 1 ? 0 : -EKEYREJECTED;
        EVP_MD_CTX_free(mctx);
        return rc;
    }
    uint8_t dg[KT_HASH_MAX_SIZE];
    int rc = kt_digest(alg->hash, msg, msg_len, dg);
    if (rc < 0)
        return rc;
    return kt_pubkey_verify_digest(k, alg, dg, kt_hash_size(alg->hash), sig, sig_len);
}

int kt_pubkey_id(const struct kt_pubkey *k, uint8_t out[32])
{
    unsigned char *der = NULL;
    int n = i2d_PUBKEY(PK(k), &der);
    if (n <= 0)
        return -ENOMEM;
    int rc = kt_digest(KT_HASH_SHA256, der, (size_t)n, out);
    OPENSSL_free(der);
    return rc;
}
