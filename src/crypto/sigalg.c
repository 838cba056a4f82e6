/* AlgorithmIdentifier -> struct kt_sigalg / enum kt_hash. */
#include "crypto/crypto.h"
#include "der/oid.h"

#include <string.h>

static enum kt_hash hash_of_digest_oid(enum kt_oid o)
{
    switch (o) {
    case KT_OID_MD2: return KT_HASH_MD2;
    case KT_OID_MD4: return KT_HASH_MD4;
    case KT_OID_MD5: return KT_HASH_MD5;
    case KT_OID_SHA1: return KT_HASH_SHA1;
    case KT_OID_SHA224: return KT_HASH_SHA224;
    case KT_OID_SHA256: return KT_HASH_SHA256;
    case KT_OID_SHA384: return KT_HASH_SHA384;
    case KT_OID_SHA512: return KT_HASH_SHA512;
    case KT_OID_SHA3_256: return KT_HASH_SHA3_256;
    case KT_OID_SHA3_384: return KT_HASH_SHA3_384;
    case KT_OID_SHA3_512: return KT_HASH_SHA3_512;
    default: return KT_HASH_NONE;
    }
}

static int unknown_oid(kt_der *d, kt_span raw, size_t at, const char *what)
{
    char dotted[96];
    if (kt_oid_to_dotted(raw, dotted, sizeof(dotted)) < 0)
        strcpy(dotted, "?");
    return kt_fail(d->err, -ENOPKG, at, "%s: unsupported algorithm %s", what, dotted);
}

/* RSASSA-PSS-params: [0] hash, [1] mgf (mgf1 + hash), [2] salt, [3] trailer */
static int parse_pss(kt_der *params, struct kt_sigalg *alg, const char *what)
{
    kt_der seq, f;
    bool present;
    alg->hash = KT_HASH_SHA1;
    alg->pss_mgf1_hash = KT_HASH_SHA1;
    alg->pss_salt_len = 20;
    KT_TRY(kt_der_get(params, KT_TAG_SEQUENCE, &seq, what));
    KT_TRY(kt_der_get_optional(&seq, KT_CTX_CONS(0), &f, &present, what));
    if (present)
        KT_TRY(kt_hashalg_parse(&f, &alg->hash, what));
    KT_TRY(kt_der_get_optional(&seq, KT_CTX_CONS(1), &f, &present, what));
    if (present) {
        kt_der mgf;
        enum kt_oid o;
        KT_TRY(kt_der_get(&f, KT_TAG_SEQUENCE, &mgf, what));
        KT_TRY(kt_der_get_oid_id(&mgf, &o, NULL, what));
        if (o != KT_OID_MGF1)
            return kt_fail(params->err, -ENOPKG, kt_der_offset(&mgf), "%s: PSS mask generation function unsupported", what);
        KT_TRY(kt_hashalg_parse(&mgf, &alg->pss_mgf1_hash, what));
    }
    KT_TRY(kt_der_get_optional(&seq, KT_CTX_CONS(2), &f, &present, what));
    if (present) {
        uint64_t salt;
        KT_TRY(kt_der_get_uint64(&f, &salt, what));
        if (salt > 1024)
            return kt_fail(params->err, -EBADMSG, kt_der_offset(&f), "%s: PSS salt length too large", what);
        alg->pss_salt_len = (int)salt;
    }
    return 0;
}

int kt_sigalg_parse(kt_der *d, struct kt_sigalg *alg, const char *what)
{
    kt_der seq;
    enum kt_oid o;
    kt_span raw;
    memset(alg, 0, sizeof(*alg));
    KT_TRY(kt_der_get(d, KT_TAG_SEQUENCE, &seq, what));
    size_t at = kt_der_offset(&seq);
    KT_TRY(kt_der_get_oid_id(&seq, &o, &raw, what));
    alg->oid = o;
    alg->enc = KT_SIG_PKCS1;
    alg->pkey = KT_PKEY_RSA;
    switch (o) {
    case KT_OID_MD2_WITH_RSA: alg->hash = KT_HASH_MD2; alg->unsupported = true; break;
    case KT_OID_MD4_WITH_RSA: alg->hash = KT_HASH_MD4; alg->unsupported = true; break;
    case KT_OID_MD5_WITH_RSA: alg->hash = KT_HASH_MD5; alg->unsupported = true; break;
    case KT_OID_SHA1_WITH_RSA:
    case KT_OID_OIW_SHA1_WITH_RSA: alg->hash = KT_HASH_SHA1; break;
    case KT_OID_SHA224_WITH_RSA: alg->hash = KT_HASH_SHA224; break;
    case KT_OID_SHA256_WITH_RSA: alg->hash = KT_HASH_SHA256; break;
    case KT_OID_SHA384_WITH_RSA: alg->hash = KT_HASH_SHA384; break;
    case KT_OID_SHA512_WITH_RSA: alg->hash = KT_HASH_SHA512; break;
    case KT_OID_RSA_WITH_SHA3_256: alg->hash = KT_HASH_SHA3_256; break;
    case KT_OID_RSA_WITH_SHA3_384: alg->hash = KT_HASH_SHA3_384; break;
    case KT_OID_RSA_WITH_SHA3_512: alg->hash = KT_HASH_SHA3_512; break;
    /* PKCS#7 SignerInfo digestEncryptionAlgorithm often says just rsaEncryption */
    case KT_OID_RSA_ENCRYPTION: alg->hash = KT_HASH_NONE; break;
    case KT_OID_RSASSA_PSS:
        alg->enc = KT_SIG_PSS;
        KT_TRY(parse_pss(&seq, alg, what));
        return 0;
    case KT_OID_ECDSA_WITH_SHA1: alg->enc = KT_SIG_ECDSA; alg->pkey = KT_PKEY_ECDSA; alg->hash = KT_HASH_SHA1; break;
    case KT_OID_ECDSA_WITH_SHA224: alg->enc = KT_SIG_ECDSA; alg->pkey = KT_PKEY_ECDSA; alg->hash = KT_HASH_SHA224; break;
    case KT_OID_ECDSA_WITH_SHA256: alg->enc = KT_SIG_ECDSA; alg->pkey = KT_PKEY_ECDSA; alg->hash = KT_HASH_SHA256; break;
    case KT_OID_ECDSA_WITH_SHA384: alg->enc = KT_SIG_ECDSA; alg->pkey = KT_PKEY_ECDSA; alg->hash = KT_HASH_SHA384; break;
    case KT_OID_ECDSA_WITH_SHA512: alg->enc = KT_SIG_ECDSA; alg->pkey = KT_PKEY_ECDSA; alg->hash = KT_HASH_SHA512; break;
    case KT_OID_ECDSA_WITH_SHA3_256: alg->enc = KT_SIG_ECDSA; alg->pkey = KT_PKEY_ECDSA; alg->hash = KT_HASH_SHA3_256; break;
    case KT_OID_ECDSA_WITH_SHA3_384: alg->enc = KT_SIG_ECDSA; alg->pkey = KT_PKEY_ECDSA; alg->hash = KT_HASH_SHA3_384; break;
    case KT_OID_ECDSA_WITH_SHA3_512: alg->enc = KT_SIG_ECDSA; alg->pkey = KT_PKEY_ECDSA; alg->hash = KT_HASH_SHA3_512; break;
    case KT_OID_EC_PUBLIC_KEY: alg->enc = KT_SIG_ECDSA; alg->pkey = KT_PKEY_ECDSA; alg->hash = KT_HASH_NONE; break;
    case KT_OID_ED25519: alg->enc = KT_SIG_ED25519; alg->pkey = KT_PKEY_ED25519; alg->hash = KT_HASH_NONE; break;
    /* ML-DSA names key and signature alike (RFC 9881): pure, no hash */
    case KT_OID_ML_DSA_44: alg->enc = KT_SIG_MLDSA; alg->pkey = KT_PKEY_MLDSA44; alg->hash = KT_HASH_NONE; break;
    case KT_OID_ML_DSA_65: alg->enc = KT_SIG_MLDSA; alg->pkey = KT_PKEY_MLDSA65; alg->hash = KT_HASH_NONE; break;
    case KT_OID_ML_DSA_87: alg->enc = KT_SIG_MLDSA; alg->pkey = KT_PKEY_MLDSA87; alg->hash = KT_HASH_NONE; break;
    default: {
        enum kt_hash h = hash_of_digest_oid(o);
        if (h == KT_HASH_NONE)
            return unknown_oid(d, raw, at, what);
        alg->pkey = KT_PKEY_UNKNOWN;
        alg->hash = h;
        alg->unsupported = h == KT_HASH_MD2 || h == KT_HASH_MD4;
    }
    }
    /* parameters: absent or NULL (anything else is tolerated but ignored) */
    return 0;
}

int kt_hashalg_parse(kt_der *d, enum kt_hash *h, const char *what)
{
    kt_der seq;
    enum kt_oid o;
    kt_span raw;
    KT_TRY(kt_der_get(d, KT_TAG_SEQUENCE, &seq, what));
    size_t at = kt_der_offset(&seq);
    KT_TRY(kt_der_get_oid_id(&seq, &o, &raw, what));
    *h = hash_of_digest_oid(o);
    if (*h == KT_HASH_NONE)
        return unknown_oid(d, raw, at, what);
    return 0;
}

bool kt_sigalg_takes_data(const struct kt_sigalg *alg)
{
    return alg->enc == KT_SIG_ED25519 || alg->enc == KT_SIG_MLDSA;
}

const char *kt_sigalg_name(const struct kt_sigalg *alg)
{
    const char *n = kt_oid_name((enum kt_oid)alg->oid);
    return n ? n : "unknown";
}
