/* crypto.h - the only door to OpenSSL libcrypto.
 *
 * Digests and public-key signature verification.  Nothing else in libktrust
 * includes an OpenSSL header.  EVP_MD objects are fetched once per process.
 */
#ifndef KT_CRYPTO_CRYPTO_H
#define KT_CRYPTO_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "der/der.h"
#include "ktrust/advanced.h"

enum kt_hash {
    KT_HASH_NONE = 0,
    KT_HASH_MD2,
    KT_HASH_MD4,
    KT_HASH_MD5,
    KT_HASH_SHA1,
    KT_HASH_SHA224,
    KT_HASH_SHA256,
    KT_HASH_SHA384,
    KT_HASH_SHA512,
    KT_HASH_SM3, /* SM3-256: the TPM's sm3_256 bank (event logs) */
    KT_HASH_SHA3_256, /* FIPS 202: module signatures from Linux 6.7 (kt_hash_since) */
    KT_HASH_SHA3_384,
    KT_HASH_SHA3_512,
    KT_HASH__COUNT
};
#define KT_HASH_MAX_SIZE 64

/* Digest size in bytes (0 for NONE). */
size_t kt_hash_size(enum kt_hash h);
/* "sha256" ... */
const char *kt_hash_name(enum kt_hash h);
/* True for hashes libktrust will compute (MD5 and up; MD2/MD4 are not). */
bool kt_hash_available(enum kt_hash h);

/* One-shot digest. out must hold kt_hash_size(h) bytes. */
int kt_digest(enum kt_hash h, const void *data, size_t len, uint8_t *out);

/* One reusable digest context of one algorithm, for many short digests
 * (an IMA list's entries and extends): the context is re-initialised, not
 * made anew, for each digest, and the EVP_MD is the one fetched once;
 * SHA-1 and SHA-256 use OpenSSL's SHA1_/SHA256_ functions on the stack
 * (no allocation per digest, which OpenSSL 3.0's EVP re-init makes).
 * kt_hasher_new: 0, -ENOPKG (h not computed), -ENOMEM.  kt_hasher_digest:
 * H(a || b) into out (kt_hash_size bytes; b may be NULL with blen 0): 0 or
 * -ENOMEM. */
struct kt_hasher;
int kt_hasher_new(struct kt_hasher **out, enum kt_hash h);
int kt_hasher_digest(struct kt_hasher *x, const void *a, size_t alen, const void *b, size_t blen,
                     uint8_t *out);
void kt_hasher_free(struct kt_hasher *x);

/* Streaming digest of one or several algorithms at once (for PE images
 * whose signatures use different hashes: one pass over the file). */
struct kt_digester;
int kt_digester_new(struct kt_digester **out, const enum kt_hash *hashes, size_t n);
void kt_digester_update(struct kt_digester *dg, const void *data, size_t len);
/* Finish; out[i] receives hash i's digest (KT_HASH_MAX_SIZE bytes each). */
int kt_digester_final(struct kt_digester *dg, uint8_t out[][KT_HASH_MAX_SIZE]);
/* Hash i's digest of the data so far followed by more, into out; hash i
 * itself goes on as if more had not been given (a module's signed content
 * and its whole file, one pass).  0, -EINVAL, -ENOMEM. */
int kt_digester_final_more(struct kt_digester *dg, size_t i, const void *more, size_t len,
                           uint8_t *out);
/* H(a) into out_a and H(a || b) into out_ab, reading a once.  0, -ENOPKG,
 * -ENOMEM. */
int kt_digest_and_more(enum kt_hash h, const void *a, size_t alen, const void *b, size_t blen,
                       uint8_t *out_a, uint8_t *out_ab);
void kt_digester_free(struct kt_digester *dg);

/* Public keys */
enum kt_pkey_algo {
    KT_PKEY_UNKNOWN = 0, KT_PKEY_RSA, KT_PKEY_ECDSA, KT_PKEY_ED25519,
    KT_PKEY_MLDSA44, KT_PKEY_MLDSA65, KT_PKEY_MLDSA87, /* FIPS 204, pure */
};
/* "rsa", "ecdsa", "ed25519", "mldsa65": the kernel's pkey_algo names */
const char *kt_pkey_algo_name(enum kt_pkey_algo a);
/* ML-DSA: the parameter set as FIPS 204 names it ("ML-DSA-65") and the size
 * of its public key in bytes (1312, 1952, 2592); NULL and 0 for the others. */
const char *kt_mldsa_title(enum kt_pkey_algo a);
size_t kt_mldsa_pubkey_len(enum kt_pkey_algo a);
/* Whether the libcrypto ktrust runs on verifies a's signatures: RSA, ECDSA
 * and Ed25519 always; ML-DSA when it has the algorithm (OpenSSL 3.5 or
 * later), asked of it at run time, once. */
bool kt_pkey_algo_available(enum kt_pkey_algo a);

/* A signature scheme with its parameters, as named by an AlgorithmIdentifier. */
enum kt_sig_encoding { KT_SIG_PKCS1 = 0, KT_SIG_PSS, KT_SIG_ECDSA, KT_SIG_ED25519, KT_SIG_MLDSA };
struct kt_sigalg {
    enum kt_pkey_algo pkey;     /* key type the signature needs (UNKNOWN: any matching) */
    enum kt_sig_encoding enc;
    enum kt_hash hash;          /* NONE: not given by this AlgorithmIdentifier */
    enum kt_hash pss_mgf1_hash; /* PSS only */
    int pss_salt_len;           /* PSS only */
    int oid;                    /* enum kt_oid of the algorithm */
    bool unsupported;           /* parsed but ktrust refuses it (MD2/MD5, DSA...) */
};
/* Parse an AlgorithmIdentifier SEQUENCE (signature or digest algorithm).
 * For a bare digest algorithm (sha256), pkey is UNKNOWN and hash is set.
 * Unknown OIDs: -ENOPKG with a detail naming the OID. */
int kt_sigalg_parse(kt_der *d, struct kt_sigalg *alg, const char *what);
/* Digest algorithm from an AlgorithmIdentifier (sha1/sha256/...); -ENOPKG otherwise. */
int kt_hashalg_parse(kt_der *d, enum kt_hash *h, const char *what);
/* Ed25519 and ML-DSA sign the message itself (alg->hash names none). */
bool kt_sigalg_takes_data(const struct kt_sigalg *alg);
/* "sha256WithRSAEncryption"-style name for output. */
const char *kt_sigalg_name(const struct kt_sigalg *alg);

struct kt_pubkey;
/* Import a SubjectPublicKeyInfo (whole TLV).  -ENOPKG for an unsupported
 * key type, -EBADMSG for a malformed key. */
int kt_pubkey_from_spki(kt_span spki, struct kt_pubkey **out, struct kt_error *err);
void kt_pubkey_free(struct kt_pubkey *k);
/* Reference counting (keys are shared between certificates and caches). */
struct kt_pubkey *kt_pubkey_ref(struct kt_pubkey *k);
enum kt_pkey_algo kt_pubkey_algo(const struct kt_pubkey *k);
unsigned kt_pubkey_bits(const struct kt_pubkey *k);

/* Verify `sig` over `msg` with the scheme in `alg` (hashing msg with
 * alg->hash, except Ed25519 and ML-DSA, which sign the message itself:
 * ML-DSA pure, with an empty context string, as the kernel's mldsa).
 * Returns 0, -EKEYREJECTED (bad signature), -ENOPKG (unsupported scheme or
 * key/scheme mismatch). */
int kt_pubkey_verify(const struct kt_pubkey *k, const struct kt_sigalg *alg, const uint8_t *msg,
                     size_t msg_len, const uint8_t *sig, size_t sig_len);
/* Same, given the digest already computed with alg->hash (not for Ed25519). */
int kt_pubkey_verify_digest(const struct kt_pubkey *k, const struct kt_sigalg *alg,
                            const uint8_t *digest, size_t digest_len, const uint8_t *sig,
                            size_t sig_len);

/* SHA-256 of the key's SubjectPublicKeyInfo encoding: an identity for caches. */
int kt_pubkey_id(const struct kt_pubkey *k, uint8_t out[32]);

/* kt_hex: ktrust/advanced.h */

#endif
