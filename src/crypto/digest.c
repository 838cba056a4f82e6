/* Digests through OpenSSL EVP, with the EVP_MD objects fetched once. */
/* SHA1_Init/SHA256_Init: kt_hasher's fast path (below) */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "crypto/crypto.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#ifndef OPENSSL_NO_DEPRECATED_3_0
#include <openssl/sha.h>
#endif
#include <pthread.h>
#include <stdlib.h>

static const struct {
    const char *name;
    size_t size;
} hashes[KT_HASH__COUNT] = {
    [KT_HASH_NONE] = {"none", 0},     [KT_HASH_MD2] = {"md2", 16},
    [KT_HASH_MD4] = {"md4", 16},      [KT_HASH_MD5] = {"md5", 16},
    [KT_HASH_SHA1] = {"sha1", 20},    [KT_HASH_SHA224] = {"sha224", 28},
    [KT_HASH_SHA256] = {"sha256", 32}, [KT_HASH_SHA384] = {"sha384", 48},
    [KT_HASH_SHA512] = {"sha512", 64}, [KT_HASH_SM3] = {"sm3", 32},
    [KT_HASH_SHA3_256] = {"sha3-256", 32}, [KT_HASH_SHA3_384] = {"sha3-384", 48},
    [KT_HASH_SHA3_512] = {"sha3-512", 64},
};

static EVP_MD *mds[KT_HASH__COUNT];
static pthread_once_t md_once = PTHREAD_ONCE_INIT;

static void fetch_all(void)
{
    /* no openssl.cnf: ktrust's behaviour must not depend on the system's
     * OpenSSL configuration, and reading it costs start-up time; nor the
     * legacy cipher/digest name tables, which ktrust never looks up */
    OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ADD_ALL_CIPHERS |
                            OPENSSL_INIT_NO_ADD_ALL_DIGESTS,
                        NULL);
    for (int i = KT_HASH_MD5; i < KT_HASH__COUNT; i++)
        mds[i] = EVP_MD_fetch(NULL, hashes[i].name, NULL);
}

void kt_crypto_init(void); /* shared with pubkey.c */
void kt_crypto_init(void)
{
    pthread_once(&md_once, fetch_all);
}

const EVP_MD *kt_evp_md(enum kt_hash h); /* shared with pubkey.c */
const EVP_MD *kt_evp_md(enum kt_hash h)
{
    if (h <= KT_HASH_NONE || h >= KT_HASH__COUNT)
        return NULL;
    pthread_once(&md_once, fetch_all);
    return mds[h];
}

size_t kt_hash_size(enum kt_hash h)
{
    return h < KT_HASH__COUNT ? hashes[h].size : 0;
}

const char *kt_hash_name(enum kt_hash h)
{
    return h < KT_HASH__COUNT ? hashes[h].name : "unknown";
}

bool kt_hash_available(enum kt_hash h)
{
    return kt_evp_md(h) != NULL;
}

int kt_digest(enum kt_hash h, const void *data, size_t len, uint8_t *out)
{
    const EVP_MD *md = kt_evp_md(h);
    if (!md)
        return -ENOPKG;
    unsigned int n;
    if (!EVP_Digest(data, len, out, &n, md, NULL))
        return -ENOMEM;
    return 0;
}

struct kt_hasher {
    EVP_MD_CTX *ctx;
    const EVP_MD *md;
    enum kt_hash h;
};

#ifndef OPENSSL_NO_DEPRECATED_3_0
/* SHA-1 and SHA-256, the two banks of nearly every list, through the
 * one-shot functions: OpenSSL 3.0's EVP re-init allocates and cleanses a
 * provider context per digest, which for two-block inputs costs as much as
 * the hashing (the same implementation computes both). */
static bool fast_digest(enum kt_hash h, const void *a, size_t alen, const void *b, size_t blen,
                        uint8_t *out)
{
    if (h == KT_HASH_SHA1) {
        SHA_CTX c;
        return SHA1_Init(&c) && SHA1_Update(&c, a, alen) && SHA1_Update(&c, b, blen) &&
               SHA1_Final(out, &c);
    }
    SHA256_CTX c;
    return SHA256_Init(&c) && SHA256_Update(&c, a, alen) && SHA256_Update(&c, b, blen) &&
           SHA256_Final(out, &c);
}
#endif

int kt_hasher_new(struct kt_hasher **out, enum kt_hash h)
{
    const EVP_MD *md = kt_evp_md(h);
    if (!md)
        return -ENOPKG;
    struct kt_hasher *x = malloc(sizeof(*x));
    if (!x || !(x->ctx = EVP_MD_CTX_new())) {
        free(x);
        return -ENOMEM;
    }
    x->md = md;
    x->h = h;
    *out = x;
    return 0;
}

int kt_hasher_digest(struct kt_hasher *x, const void *a, size_t alen, const void *b, size_t blen,
                     uint8_t *out)
{
    unsigned int n;
#ifndef OPENSSL_NO_DEPRECATED_3_0
    if (x->h == KT_HASH_SHA1 || x->h == KT_HASH_SHA256)
        return fast_digest(x->h, a, alen, b, blen, out) ? 0 : -ENOMEM;
#endif
    if (!EVP_DigestInit_ex(x->ctx, x->md, NULL) || !EVP_DigestUpdate(x->ctx, a, alen) ||
        (blen && !EVP_DigestUpdate(x->ctx, b, blen)) || !EVP_DigestFinal_ex(x->ctx, out, &n))
        return -ENOMEM;
    return 0;
}

void kt_hasher_free(struct kt_hasher *x)
{
    if (!x)
        return;
    EVP_MD_CTX_free(x->ctx);
    free(x);
}

struct kt_digester {
    size_t n;
    enum kt_hash h[KT_HASH__COUNT];
    EVP_MD_CTX *ctx[KT_HASH__COUNT];
};

int kt_digester_new(struct kt_digester **out, const enum kt_hash *hs, size_t n)
{
    if (n > KT_HASH__COUNT)
        return -EINVAL;
    struct kt_digester *dg = calloc(1, sizeof(*dg));
    if (!dg)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const EVP_MD *md = kt_evp_md(hs[i]);
        if (!md) {
            kt_digester_free(dg);
            return -ENOPKG;
        }
        dg->h[i] = hs[i];
        dg->ctx[i] = EVP_MD_CTX_new();
        dg->n = i + 1;
        if (!dg->ctx[i] || !EVP_DigestInit_ex(dg->ctx[i], md, NULL)) {
            kt_digester_free(dg);
            return -ENOMEM;
        }
    }
    *out = dg;
    return 0;
}

void kt_digester_update(struct kt_digester *dg, const void *data, size_t len)
{
    for (size_t i = 0; i < dg->n; i++)
        EVP_DigestUpdate(dg->ctx[i], data, len);
}

int kt_digester_final(struct kt_digester *dg, uint8_t out[][KT_HASH_MAX_SIZE])
{
    for (size_t i = 0; i < dg->n; i++) {
        unsigned int len;
        if (!EVP_DigestFinal_ex(dg->ctx[i], out[i], &len))
            return -ENOMEM;
    }
    return 0;
}

/* ctx's digest so far followed by b, ctx left as it was */
static int final_more(const EVP_MD_CTX *ctx, const void *b, size_t blen, uint8_t *out)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    unsigned int n;
    int ok = c && EVP_MD_CTX_copy_ex(c, ctx) && (!blen || EVP_DigestUpdate(c, b, blen)) &&
             EVP_DigestFinal_ex(c, out, &n);
    EVP_MD_CTX_free(c);
    return ok ? 0 : -ENOMEM;
}

int kt_digester_final_more(struct kt_digester *dg, size_t i, const void *more, size_t len,
                           uint8_t *out)
{
    return i < dg->n ? final_more(dg->ctx[i], more, len, out) : -EINVAL;
}

int kt_digest_and_more(enum kt_hash h, const void *a, size_t alen, const void *b, size_t blen,
                       uint8_t *out_a, uint8_t *out_ab)
{
    const EVP_MD *md = kt_evp_md(h);
    if (!md)
        return -ENOPKG;
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    unsigned int n;
    int rc = c && EVP_DigestInit_ex(c, md, NULL) && EVP_DigestUpdate(c, a, alen) ? 0 : -ENOMEM;
    if (rc == 0)
        rc = final_more(c, b, blen, out_ab);
    if (rc == 0 && !EVP_DigestFinal_ex(c, out_a, &n))
        rc = -ENOMEM;
    EVP_MD_CTX_free(c);
    return rc;
}

void kt_digester_free(struct kt_digester *dg)
{
    if (!dg)
        return;
    for (size_t i = 0; i < dg->n; i++)
        EVP_MD_CTX_free(dg->ctx[i]);
    free(dg);
}
