/* test_crypto.c - the OpenSSL door (crypto/crypto.h): digests against the
 * FIPS 180 / RFC 1321 "abc" vectors and in several pieces; signatures made
 * by the openssl command (RSA PKCS#1 v1.5 and PSS, ECDSA P-256/P-384,
 * Ed25519) verified, and refused when the message, the signature or the key
 * type is wrong; key ids against openssl's SHA-256 of the SPKI; RSA keys in
 * other SubjectPublicKeyInfo forms accepted or refused as openssl does;
 * AlgorithmIdentifiers parsed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/crypto.h"
#include "der/oid.h"
#include "kt_test.h"
#include "util/fmt.h"

static char dir[256];

static int sh(const char *cmd)
{
    char full[2048];
    snprintf(full, sizeof(full), "cd '%s' && { %s; } >/dev/null 2>&1", dir, cmd);
    int rc = system(full);
    CHECK(rc == 0, "command: %s", cmd);
    return rc;
}

static uint8_t *load(const char *name, size_t *n)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    uint8_t *b = kt_test_slurp(path, n);
    CHECK(b != NULL, "read %s", path);
    return b;
}

static void digests(void)
{
    static const struct {
        enum kt_hash h;
        const char *name;
        size_t size;
        const char *abc;
    } v[] = {
        {KT_HASH_MD5, "md5", 16, "900150983cd24fb0d6963f7d28e17f72"},
        {KT_HASH_SHA1, "sha1", 20, "a9993e364706816aba3e25717850c26c9cd0d89d"},
        {KT_HASH_SHA224, "sha224", 28,
         "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"},
        {KT_HASH_SHA256, "sha256", 32,
         "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {KT_HASH_SHA384, "sha384", 48,
         "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
         "8086072ba1e7cc2358baeca134c825a7"},
        {KT_HASH_SHA512, "sha512", 64,
         "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
         "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
    };
    size_t nv = sizeof(v) / sizeof(v[0]);
    enum kt_hash all[8];
    for (size_t i = 0; i < nv; i++) {
        uint8_t out[KT_HASH_MAX_SIZE];
        char hex[2 * KT_HASH_MAX_SIZE + 1];
        all[i] = v[i].h;
        CHECK_EQ_STR(kt_hash_name(v[i].h), v[i].name, "name");
        CHECK_EQ_INT(kt_hash_size(v[i].h), v[i].size, v[i].name);
        CHECK(kt_hash_available(v[i].h), "%s available", v[i].name);
        CHECK_EQ_INT(kt_digest(v[i].h, "abc", 3, out), 0, v[i].name);
        CHECK_EQ_STR(kt_hex(out, v[i].size, hex), v[i].abc, v[i].name);
    }
    CHECK(!kt_hash_available(KT_HASH_MD2) && !kt_hash_available(KT_HASH_MD4), "no MD2/MD4");
    CHECK_EQ_INT(kt_hash_size(KT_HASH_NONE), 0, "NONE has no size");
    /* all at once, fed in uneven pieces: the same as one-shot digests of
     * 100000 bytes */
    size_t n = 100000;
    uint8_t *data = malloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (uint8_t)(i * 7 + (i >> 8));
    struct kt_digester *dg;
    CHECK_EQ_INT(kt_digester_new(&dg, all, nv), 0, "digester");
    for (size_t off = 0, step = 1; off < n; off += step, step = step * 3 + 1)
        kt_digester_update(dg, data + off, off + step > n ? n - off : step);
    uint8_t outs[8][KT_HASH_MAX_SIZE];
    CHECK_EQ_INT(kt_digester_final(dg, outs), 0, "digester final");
    kt_digester_free(dg);
    for (size_t i = 0; i < nv; i++) {
        uint8_t one[KT_HASH_MAX_SIZE];
        kt_digest(v[i].h, data, n, one);
        CHECK(memcmp(one, outs[i], v[i].size) == 0, "%s: pieces = one shot", v[i].name);
    }
    free(data);
}

/* kt_hasher (the fast SHA-1/SHA-256 path and EVP for the others), reused
 * for many digests of two parts: each equals kt_digest of a || b. */
static void hashers(void)
{
    static const enum kt_hash hs[] = {KT_HASH_SHA1,   KT_HASH_SHA256,   KT_HASH_SHA384,
                                      KT_HASH_SHA512, KT_HASH_SHA3_256, KT_HASH_SM3};
    uint8_t data[300];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(i * 13 + 5);
    for (size_t k = 0; k < sizeof(hs) / sizeof(hs[0]); k++) {
        struct kt_hasher *x;
        if (!kt_hash_available(hs[k]))
            continue; /* SM3 where libcrypto lacks it */
        CHECK_EQ_INT(kt_hasher_new(&x, hs[k]), 0, kt_hash_name(hs[k]));
        for (size_t alen = 0; alen <= 150; alen += 37) {
            for (size_t blen = 0; blen <= 150; blen += 50) {
                uint8_t got[KT_HASH_MAX_SIZE], want[KT_HASH_MAX_SIZE];
                CHECK_EQ_INT(kt_hasher_digest(x, data, alen, blen ? data + alen : NULL, blen,
                                              got), 0, kt_hash_name(hs[k]));
                kt_digest(hs[k], data, alen + blen, want);
                CHECK(!memcmp(got, want, kt_hash_size(hs[k])), "%s: hasher %zu+%zu = one shot",
                      kt_hash_name(hs[k]), alen, blen);
            }
        }
        kt_hasher_free(x);
    }
    struct kt_hasher *none;
    CHECK_EQ_INT(kt_hasher_new(&none, KT_HASH_MD2), -ENOPKG, "no MD2 hasher");
}

struct sigcase {
    const char *key;  /* NAME: NAME.key, NAME.spki (DER) */
    const char *sig;  /* signature file over msg.bin */
    struct kt_sigalg alg;
    enum kt_pkey_algo algo;
    unsigned bits;
};

static void signatures(void)
{
    sh("head -c 1000 /dev/zero | tr '\\0' 'k' > msg.bin"
       " && openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa.key"
       " && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out p256.key"
       " && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out p384.key"
       " && openssl genpkey -algorithm ED25519 -out ed.key"
       " && for k in rsa p256 p384 ed; do"
       "    openssl pkey -in $k.key -pubout -outform DER -out $k.spki; done"
       " && openssl dgst -sha256 -sign rsa.key -out rsa.sig msg.bin"
       " && openssl dgst -sha384 -sign rsa.key -sigopt rsa_padding_mode:pss"
       "    -sigopt rsa_pss_saltlen:48 -sigopt rsa_mgf1_md:sha384 -out pss.sig msg.bin"
       " && openssl dgst -sha256 -sign p256.key -out p256.sig msg.bin"
       " && openssl dgst -sha384 -sign p384.key -out p384.sig msg.bin"
       " && openssl pkeyutl -sign -rawin -inkey ed.key -in msg.bin -out ed.sig");
    const struct sigcase cases[] = {
        {"rsa", "rsa.sig", {KT_PKEY_RSA, KT_SIG_PKCS1, KT_HASH_SHA256, 0, 0, 0, false},
         KT_PKEY_RSA, 2048},
        {"rsa", "pss.sig", {KT_PKEY_RSA, KT_SIG_PSS, KT_HASH_SHA384, KT_HASH_SHA384, 48, 0, false},
         KT_PKEY_RSA, 2048},
        {"p256", "p256.sig", {KT_PKEY_ECDSA, KT_SIG_ECDSA, KT_HASH_SHA256, 0, 0, 0, false},
         KT_PKEY_ECDSA, 256},
        {"p384", "p384.sig", {KT_PKEY_ECDSA, KT_SIG_ECDSA, KT_HASH_SHA384, 0, 0, 0, false},
         KT_PKEY_ECDSA, 384},
        {"ed", "ed.sig", {KT_PKEY_ED25519, KT_SIG_ED25519, KT_HASH_NONE, 0, 0, 0, false},
         KT_PKEY_ED25519, 256},
    };
    size_t mlen;
    uint8_t *msg = load("msg.bin", &mlen);
    if (!msg)
        return;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct sigcase *c = &cases[i];
        char spki_name[64];
        snprintf(spki_name, sizeof(spki_name), "%s.spki", c->key);
        size_t klen, slen;
        uint8_t *spki = load(spki_name, &klen), *sig = load(c->sig, &slen);
        struct kt_pubkey *k = NULL;
        struct kt_error e = {0};
        if (!spki || !sig || kt_pubkey_from_spki((kt_span){spki, klen}, &k, &e) < 0) {
            CHECK(0, "%s: key import: %s", c->sig, e.what);
            free(spki), free(sig);
            continue;
        }
        CHECK_EQ_INT(kt_pubkey_algo(k), c->algo, c->sig);
        CHECK_EQ_INT(kt_pubkey_bits(k), c->bits, c->sig);
        CHECK_EQ_INT(kt_pubkey_verify(k, &c->alg, msg, mlen, sig, slen), 0, c->sig);
        if (c->alg.hash != KT_HASH_NONE) {
            uint8_t d[KT_HASH_MAX_SIZE];
            kt_digest(c->alg.hash, msg, mlen, d);
            CHECK_EQ_INT(kt_pubkey_verify_digest(k, &c->alg, d, kt_hash_size(c->alg.hash), sig,
                                                 slen),
                         0, "verify_digest");
            d[0] ^= 1;
            CHECK_EQ_INT(kt_pubkey_verify_digest(k, &c->alg, d, kt_hash_size(c->alg.hash), sig,
                                                 slen),
                         -EKEYREJECTED, "verify_digest, other digest");
        }
        msg[500] ^= 1;
        CHECK_EQ_INT(kt_pubkey_verify(k, &c->alg, msg, mlen, sig, slen), -EKEYREJECTED,
                     "message changed");
        msg[500] ^= 1;
        sig[slen / 2] ^= 0x10;
        CHECK_EQ_INT(kt_pubkey_verify(k, &c->alg, msg, mlen, sig, slen), -EKEYREJECTED,
                     "signature changed");
        sig[slen / 2] ^= 0x10;
        /* the scheme of another key type: refused, not "rejected" */
        struct kt_sigalg other = c->alg;
        other.pkey = c->algo == KT_PKEY_RSA ? KT_PKEY_ECDSA : KT_PKEY_RSA;
        other.enc = c->algo == KT_PKEY_RSA ? KT_SIG_ECDSA : KT_SIG_PKCS1;
        if (other.hash == KT_HASH_NONE)
            other.hash = KT_HASH_SHA256;
        CHECK_EQ_INT(kt_pubkey_verify(k, &other, msg, mlen, sig, slen), -ENOPKG,
                     "key type / scheme mismatch");
        /* the key id is SHA-256 of the SPKI DER (openssl's bytes) */
        uint8_t id[32], want[32];
        CHECK_EQ_INT(kt_pubkey_id(k, id), 0, "key id");
        kt_digest(KT_HASH_SHA256, spki, klen, want);
        CHECK(memcmp(id, want, 32) == 0, "%s: key id = sha256(spki)", c->key);
        /* references */
        struct kt_pubkey *r = kt_pubkey_ref(k);
        kt_pubkey_free(k);
        CHECK_EQ_INT(kt_pubkey_verify(r, &c->alg, msg, mlen, sig, slen), 0, "after a ref");
        kt_pubkey_free(r);
        free(spki);
        free(sig);
    }
    free(msg);
    /* garbage and a DSA key are not keys ktrust uses */
    static const uint8_t junk[] = {0x30, 0x03, 0x02, 0x01, 0x00};
    struct kt_pubkey *k = NULL;
    CHECK(kt_pubkey_from_spki((kt_span){junk, sizeof(junk)}, &k, NULL) < 0 && !k, "junk SPKI");
    if (sh("openssl genpkey -genparam -algorithm DSA -pkeyopt dsa_paramgen_bits:1024 -out dsap.pem"
           " && openssl genpkey -paramfile dsap.pem -out dsa.key"
           " && openssl pkey -in dsa.key -pubout -outform DER -out dsa.spki") == 0) {
        size_t n;
        uint8_t *b = load("dsa.spki", &n);
        CHECK_EQ_INT(kt_pubkey_from_spki((kt_span){b, n}, &k, NULL), -ENOPKG, "DSA key");
        free(b);
    }
}

/* DER TLV of tag over the n bytes at c, appended at out; returns its size. */
static size_t tlv(uint8_t *out, uint8_t tag, const uint8_t *c, size_t n)
{
    size_t h = 0;
    out[h++] = tag;
    if (n < 0x80) {
        out[h++] = (uint8_t)n;
    } else {
        out[h++] = 0x82;
        out[h++] = (uint8_t)(n >> 8);
        out[h++] = (uint8_t)n;
    }
    memmove(out + h, c, n);
    return h + n;
}

/* An rsaEncryption key is read by ktrust's own short path (d2i_PublicKey of
 * the RSAPublicKey) unless its SubjectPublicKeyInfo is anything but the
 * plain form; each form below is accepted or refused exactly as openssl's
 * SubjectPublicKeyInfo decoder (d2i_PUBKEY's) does, and a key accepted
 * verifies the signature. */
static void rsa_spki_forms(void)
{
    size_t n, slen, mlen;
    uint8_t *spki = load("rsa.spki", &n), *sig = load("rsa.sig", &slen), *msg = load("msg.bin", &mlen);
    /* openssl's form: 30 82 01 22 | 30 0d 06 09 OID 05 00 | 03 82 01 0f 00 RSAPublicKey */
    if (!spki || !sig || !msg || n != 294 || memcmp(spki + 17, "\x05\x00\x03\x82\x01\x0f\x00", 7)) {
        CHECK(0, "rsa.spki: not the expected 2048-bit form");
        free(spki), free(sig), free(msg);
        return;
    }
    const uint8_t *oid = spki + 6, *rsapub = spki + 24;
    const size_t oid_len = 11, rsapub_len = 270;
    static const struct {
        const char *name, *params; /* params: DER after the OID */
        size_t params_len;
        uint8_t unused;
        size_t extra; /* zero bytes after the RSAPublicKey, inside the BIT STRING */
    } forms[] = {
        {"NULL parameters", "\x05\x00", 2, 0, 0},
        {"no parameters", "", 0, 0, 0},
        {"INTEGER parameters", "\x02\x01\x00", 3, 0, 0},
        {"two NULLs", "\x05\x00\x05\x00", 4, 0, 0},
        {"unused bits", "\x05\x00", 2, 1, 0},
        {"a byte after the key", "\x05\x00", 2, 0, 1},
    };
    struct kt_sigalg alg = {KT_PKEY_RSA, KT_SIG_PKCS1, KT_HASH_SHA256, 0, 0, 0, false};
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        uint8_t a[64], bits[300], body[400], der[420];
        memcpy(a, oid, oid_len);
        memcpy(a + oid_len, forms[i].params, forms[i].params_len);
        bits[0] = forms[i].unused;
        memcpy(bits + 1, rsapub, rsapub_len);
        memset(bits + 1 + rsapub_len, 0, forms[i].extra);
        size_t bl = tlv(body, 0x30, a, oid_len + forms[i].params_len);
        bl += tlv(body + bl, 0x03, bits, 1 + rsapub_len + forms[i].extra);
        size_t dl = tlv(der, 0x30, body, bl);
        char path[512], cmd[1200];
        snprintf(path, sizeof(path), "%s/form.spki", dir);
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(der, 1, dl, f) == dl && fclose(f) == 0, "write %s", path);
        snprintf(cmd, sizeof(cmd), "openssl pkey -pubin -inform DER -in '%s' -noout >/dev/null 2>&1", path);
        bool openssl_ok = system(cmd) == 0;
        struct kt_pubkey *k = NULL;
        bool ok = kt_pubkey_from_spki((kt_span){der, dl}, &k, NULL) == 0;
        CHECK(ok == openssl_ok, "%s: ktrust %s it, openssl %s it", forms[i].name,
              ok ? "accepts" : "refuses", openssl_ok ? "accepts" : "refuses");
        /* (with unused bits openssl clears the padding bit of the key's
         * last byte, the exponent's: another key) */
        if (ok && !forms[i].unused)
            CHECK_EQ_INT(kt_pubkey_verify(k, &alg, msg, mlen, sig, slen), 0, forms[i].name);
        kt_pubkey_free(k);
    }
    free(spki), free(sig), free(msg);
}

static void algorithm_ids(void)
{
    static const struct {
        const char *name;
        uint8_t der[24];
        size_t n;
        int rc;
        enum kt_pkey_algo pkey;
        enum kt_sig_encoding enc;
        enum kt_hash hash;
        bool unsupported;
    } cases[] = {
        {"sha256WithRSAEncryption",
         {0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b, 0x05, 0x00},
         15, 0, KT_PKEY_RSA, KT_SIG_PKCS1, KT_HASH_SHA256, false},
        {"sha256WithRSAEncryption, no NULL",
         {0x30, 0x0b, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b}, 13, 0,
         KT_PKEY_RSA, KT_SIG_PKCS1, KT_HASH_SHA256, false},
        {"ecdsa-with-SHA384",
         {0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03}, 12, 0,
         KT_PKEY_ECDSA, KT_SIG_ECDSA, KT_HASH_SHA384, false},
        {"Ed25519", {0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70}, 7, 0, KT_PKEY_ED25519,
         KT_SIG_ED25519, KT_HASH_NONE, false},
        {"md5WithRSAEncryption",
         {0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x04, 0x05, 0x00},
         15, 0, KT_PKEY_RSA, KT_SIG_PKCS1, KT_HASH_MD5, true},
        {"sha256 (a digest algorithm)",
         {0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00},
         15, 0, KT_PKEY_UNKNOWN, KT_SIG_PKCS1, KT_HASH_SHA256, false},
        {"RSA-SHA3-256",
         {0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x0e}, 13, 0,
         KT_PKEY_RSA, KT_SIG_PKCS1, KT_HASH_SHA3_256, false},
        {"sha3-512 (a digest algorithm)",
         {0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x0a}, 13, 0,
         KT_PKEY_UNKNOWN, KT_SIG_PKCS1, KT_HASH_SHA3_512, false},
        {"ML-DSA-65 (pure: no hash)",
         {0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x12}, 13, 0,
         KT_PKEY_MLDSA65, KT_SIG_MLDSA, KT_HASH_NONE, false},
        {"1.2.3.4 (unknown)", {0x30, 0x05, 0x06, 0x03, 0x2a, 0x03, 0x04}, 7, -ENOPKG, 0, 0, 0,
         false},
        {"not a SEQUENCE", {0x06, 0x03, 0x2b, 0x65, 0x70}, 5, -EBADMSG, 0, 0, 0, false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        kt_der d;
        struct kt_error e = {0};
        struct kt_sigalg a;
        memset(&a, 0, sizeof(a));
        kt_der_init(&d, cases[i].der, cases[i].n, KT_DER_STRICT, &e);
        int rc = kt_sigalg_parse(&d, &a, "algorithm");
        CHECK_EQ_INT(rc, cases[i].rc, cases[i].name);
        if (rc < 0 || cases[i].rc < 0)
            continue;
        CHECK_EQ_INT(a.pkey, cases[i].pkey, cases[i].name);
        CHECK_EQ_INT(a.hash, cases[i].hash, cases[i].name);
        if (cases[i].pkey != KT_PKEY_UNKNOWN)
            CHECK_EQ_INT(a.enc, cases[i].enc, cases[i].name);
        CHECK_EQ_INT(a.unsupported, cases[i].unsupported, cases[i].name);
    }
}

/* FIPS 202 known answers, and the ML-DSA parameter sets (FIPS 204 table 2) */
static void sha3_and_mldsa(void)
{
    static const struct {
        enum kt_hash h;
        const char *hex; /* of "abc" */
    } kat[] = {
        {KT_HASH_SHA3_256, "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"},
        {KT_HASH_SHA3_384, "ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b2"
                           "98d88cea927ac7f539f1edf228376d25"},
        {KT_HASH_SHA3_512, "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e"
                           "10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0"},
    };
    for (size_t i = 0; i < sizeof(kat) / sizeof(kat[0]); i++) {
        uint8_t out[KT_HASH_MAX_SIZE];
        char hex[2 * KT_HASH_MAX_SIZE + 1];
        CHECK_EQ_INT(kt_digest(kat[i].h, "abc", 3, out), 0, kt_hash_name(kat[i].h));
        CHECK_EQ_STR(kt_hex(out, kt_hash_size(kat[i].h), hex), kat[i].hex, kt_hash_name(kat[i].h));
    }
    CHECK_EQ_STR(kt_hash_name(KT_HASH_SHA3_384), "sha3-384", "sha3-384's name");
    CHECK_EQ_INT((int)kt_mldsa_pubkey_len(KT_PKEY_MLDSA44), 1312, "ML-DSA-44 key");
    CHECK_EQ_INT((int)kt_mldsa_pubkey_len(KT_PKEY_MLDSA65), 1952, "ML-DSA-65 key");
    CHECK_EQ_INT((int)kt_mldsa_pubkey_len(KT_PKEY_MLDSA87), 2592, "ML-DSA-87 key");
    CHECK_EQ_INT((int)kt_mldsa_pubkey_len(KT_PKEY_RSA), 0, "RSA: not ML-DSA");
    CHECK_EQ_STR(kt_mldsa_title(KT_PKEY_MLDSA65), "ML-DSA-65", "ML-DSA-65's name");
    CHECK_EQ_STR(kt_pkey_algo_name(KT_PKEY_MLDSA87), "mldsa87", "the kernel's pkey_algo");
    CHECK(kt_pkey_algo_available(KT_PKEY_RSA), "RSA is always there");
}

int main(void)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof(dir), "%s/kt-crypto.XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    digests();
    hashers();
    signatures();
    rsa_spki_forms();
    algorithm_ids();
    sha3_and_mldsa();
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    KT_TEST_END();
}
