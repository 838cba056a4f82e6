/* imasig.c - one IMA signature blob against a digest and the `.ima`
 * keyring: the kernel's xattr_verify (ima_appraise.c) for the types that
 * carry a signature, integrity_digsig_verify (digsig.c: the version byte
 * picks the verifier), asymmetric_verify and request_asymmetric_key
 * (digsig_asymmetric.c: the header's rules, the key by "id:%08x"),
 * calc_file_id_hash (v3: the signed thing is the hash of struct
 * ima_file_id), and public_key.c's choice of the hashes a key type may
 * sign with. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ima/imasig.h"
#include "keys/blacklist.h"
#include "keys/key.h"
#include "keys/keyring.h"
#include "policy/restrict.h"
#include "util/le.h"

/* include/uapi/linux/hash_info.h's enum hash_algo, crypto/hash_info.c's
 * hash_algo_name and hash_digest_size. */
static const struct {
    const char *name;
    uint8_t size;
    enum kt_hash kt;   /* what ktrust computes it with; NONE: it cannot */
    uint8_t rsa, ecdsa; /* the first kernel release whose public_key.c takes it
                         * with that key type: 61 = 6.1, 67 = 6.7; 0 never */
} algos[KT_IMA_HASH__LAST] = {
    {"md4", 16, KT_HASH_NONE, 0, 0},
    {"md5", 16, KT_HASH_MD5, 61, 0},
    {"sha1", 20, KT_HASH_SHA1, 61, 61},
    {"rmd160", 20, KT_HASH_NONE, 61, 0},
    {"sha256", 32, KT_HASH_SHA256, 61, 61},
    {"sha384", 48, KT_HASH_SHA384, 61, 61},
    {"sha512", 64, KT_HASH_SHA512, 61, 61},
    {"sha224", 28, KT_HASH_SHA224, 61, 61},
    {"rmd128", 16, KT_HASH_NONE, 0, 0},
    {"rmd256", 32, KT_HASH_NONE, 0, 0},
    {"rmd320", 40, KT_HASH_NONE, 0, 0},
    {"wp256", 32, KT_HASH_NONE, 0, 0},
    {"wp384", 48, KT_HASH_NONE, 0, 0},
    {"wp512", 64, KT_HASH_NONE, 0, 0},
    {"tgr128", 16, KT_HASH_NONE, 0, 0},
    {"tgr160", 20, KT_HASH_NONE, 0, 0},
    {"tgr192", 24, KT_HASH_NONE, 0, 0},
    {"sm3", 32, KT_HASH_SM3, 0, 0},       /* SM2 keys only */
    {"streebog256", 32, KT_HASH_NONE, 0, 0}, /* EC-RDSA keys only */
    {"streebog512", 64, KT_HASH_NONE, 0, 0},
    /* hash_info.c names them, and rsa-pkcs1pad/ecdsa take them, from 6.7 */
    {"sha3-256", 32, KT_HASH_SHA3_256, 67, 67},
    {"sha3-384", 48, KT_HASH_SHA3_384, 67, 67},
    {"sha3-512", 64, KT_HASH_SHA3_512, 67, 67},
};

const char *kt_ima_hash_name(uint8_t algo)
{
    return algo < KT_IMA_HASH__LAST ? algos[algo].name : NULL;
}

int kt_ima_hash_from_name(const char *name)
{
    for (int i = 0; name && i < KT_IMA_HASH__LAST; i++)
        if (!strcmp(algos[i].name, name))
            return i;
    return -1;
}

enum kt_hash kt_ima_hash_kt(uint8_t algo)
{
    return algo < KT_IMA_HASH__LAST ? algos[algo].kt : KT_HASH_NONE;
}

int kt_ima_hash_of_kt(enum kt_hash h)
{
    for (int i = 0; h != KT_HASH_NONE && i < KT_IMA_HASH__LAST; i++)
        if (algos[i].kt == h)
            return i;
    return -1;
}

int kt_ima_sig_parse(const uint8_t *buf, size_t len, struct kt_ima_sig *out, struct kt_error *err)
{
    memset(out, 0, sizeof(*out));
    kt_le c;
    kt_le_init(&c, buf, len, err);
    uint8_t kid[4], sz[2];
    const uint8_t *p;
    KT_TRY(kt_le_u8(&c, &out->type, "signature type"));
    KT_TRY(kt_le_u8(&c, &out->version, "signature version"));
    KT_TRY(kt_le_u8(&c, &out->hash_algo, "signature hash_algo"));
    KT_TRY(kt_le_bytes(&c, 4, &p, "signature keyid"));
    memcpy(kid, p, 4);
    KT_TRY(kt_le_bytes(&c, 2, &p, "signature sig_size"));
    memcpy(sz, p, 2);
    out->keyid = (uint32_t)kid[0] << 24 | (uint32_t)kid[1] << 16 | (uint32_t)kid[2] << 8 | kid[3];
    out->sig_size = (uint16_t)(sz[0] << 8 | sz[1]);
    /* asymmetric_verify: more than the header, and sig_size is the rest */
    if (kt_le_left(&c) == 0)
        return kt_fail(err, -EBADMSG, kt_le_offset(&c), "signature: nothing after the header");
    if (kt_le_left(&c) != out->sig_size)
        return kt_fail(err, -EBADMSG, KT_IMA_SIG_HDR_LEN - 2,
                       "signature: sig_size %u, but %zu bytes follow the header", out->sig_size,
                       kt_le_left(&c));
    out->s_len = kt_le_left(&c);
    KT_TRY(kt_le_bytes(&c, out->s_len, &out->s, "signature"));
    return 0;
}

uint8_t kt_ima_sig_hash_algo(const uint8_t *x, size_t len, uint8_t fallback)
{
    /* ima_get_hash_algo */
    if (!x || len < 2)
        return fallback;
    if (x[0] == KT_EVM_IMA_XATTR_DIGSIG || x[0] == KT_IMA_VERITY_DIGSIG) {
        if (x[1] != 2 || len <= KT_IMA_SIG_HDR_LEN || x[2] >= KT_IMA_HASH__LAST)
            return fallback;
        return x[2];
    }
    if (x[0] == KT_IMA_XATTR_DIGEST_NG && x[1] < KT_IMA_HASH__LAST)
        return x[1];
    if (x[0] == KT_IMA_XATTR_DIGEST)
        return len == 17 ? KT_IMA_HASH_MD5 : len == 21 ? KT_IMA_HASH_SHA1 : fallback;
    return fallback;
}

void kt_ima_check_header(struct kt_ima_sig_check *out, const struct kt_ima_sig *s)
{
    out->header_ok = true;
    out->type = s->type;
    out->version = s->version;
    out->hash_algo = s->hash_algo;
    out->keyid = s->keyid;
    out->sig_size = s->sig_size;
    out->hash_name = kt_ima_hash_name(s->hash_algo);
}

int kt_ima_check_set(struct kt_ima_sig_check *out, int rc, const char *fmt, ...)
{
    out->error = rc;
    out->verdict = kt_verdict_of(rc);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
    va_end(ap);
    return 0;
}

/* asymmetric_key_cmp_partial over the first two ids (asymmetric_type.c):
 * the id's bytes end id 0 (serial then raw issuer) or id 1 (the SKID). */
static bool tail_is(const uint8_t *a, size_t na, const uint8_t *b, size_t nb, const uint8_t w[4])
{
    if (na + nb < 4)
        return false;
    for (size_t i = 0; i < 4; i++) {
        size_t back = 4 - i; /* from the end of a||b */
        uint8_t x = back <= nb ? b[nb - back] : a[na - (back - nb)];
        if (x != w[i])
            return false;
    }
    return true;
}

static bool key_has_id(const struct kt_key *key, uint32_t keyid)
{
    const struct kt_x509 *c = kt_key_cert(key);
    uint8_t w[4] = {(uint8_t)(keyid >> 24), (uint8_t)(keyid >> 16), (uint8_t)(keyid >> 8),
                    (uint8_t)keyid};
    return tail_is(NULL, 0, c->skid.p, c->skid.len, w) ||
           tail_is(c->serial.p, c->serial.len, c->issuer_raw.p, c->issuer_raw.len, w);
}

const struct kt_keyring *kt_ima_ring_find(const struct kt_keyrings *k, const char *name)
{
    if (name[0] == '.') /* as kt_keyrings_get: ".ima" is "ima" */
        name++;
    for (size_t i = 0; k && i < kt_keyrings_count(k); i++) {
        const struct kt_keyring *r = kt_keyrings_at_const(k, i);
        if (!strcmp(kt_keyring_name(r), name))
            return r;
    }
    return NULL;
}

/* The kernel's refusals of a hash with a key type (asymmetric_verify picks
 * the encoding by key type; public_key.c and rsa-pkcs1pad take only some
 * hashes), then ktrust's own (MD5; SHA-1 unless allowed).  0 or -ENOPKG. */
static int hash_for_key(struct kt_ima_sig_check *out, const struct kt_ima_sig_opts *o,
                        const struct kt_key *key, uint8_t algo, struct kt_sigalg *alg)
{
    const struct kt_x509 *c = kt_key_cert(key);
    memset(alg, 0, sizeof(*alg));
    alg->pkey = c->key_algo;
    uint8_t since;
    if (c->key_algo == KT_PKEY_RSA) {
        alg->enc = KT_SIG_PKCS1;
        since = algos[algo].rsa;
    } else if (c->key_algo == KT_PKEY_ECDSA) {
        alg->enc = KT_SIG_ECDSA;
        since = algos[algo].ecdsa;
    } else {
        return kt_ima_check_set(out, -ENOPKG, "%s key '%s': the kernel verifies IMA signatures "
                                "only with RSA, ECDSA, EC-RDSA and SM2 keys",
                                kt_pkey_algo_name(c->key_algo), out->signer) - ENOPKG;
    }
    if (!since)
        return kt_ima_check_set(out, -ENOPKG, "%s with a %s key: the kernel refuses it",
                                algos[algo].name, kt_pkey_algo_name(c->key_algo)) - ENOPKG;
    alg->hash = algos[algo].kt;
    /* a hash older kernels refuse (SHA-3: 6.7): the verdict holds from then */
    out->linux_since = since > 61 ? KT_LINUX(since / 10, since % 10) : 0;
    if (alg->hash == KT_HASH_MD5)
        return kt_ima_check_set(out, -ENOPKG, "MD5 signature refused (the kernel would accept "
                                "it with an RSA key)") - ENOPKG;
    if (alg->hash == KT_HASH_SHA1 && !(o && o->allow_sha1))
        return kt_ima_check_set(out, -ENOPKG, "SHA-1 signature refused%s",
                                kt_hint_text(KT_HINT_ALLOW_SHA1)) - ENOPKG;
    if (alg->hash == KT_HASH_NONE)
        return kt_ima_check_set(out, -ENOPKG, "%s: the kernel accepts it from Linux %u.%u; "
                                "ktrust cannot compute it", algos[algo].name, since / 10,
                                since % 10) - ENOPKG;
    return 0;
}

/* The key the signature names that verifies it, else the first named. */
static int check_keys(const struct kt_keyring *r, const struct kt_ima_sig *s,
                      const uint8_t *dg, size_t dlen, const struct kt_ima_sig_opts *o,
                      struct kt_ima_sig_check *out)
{
    bool have = false;  /* out holds a candidate's result */
    int best = -ENOKEY; /* 0 once one verified: later candidates are only counted */
    size_t n = 0;
    for (size_t i = 0; r && i < kt_keyring_count(r); i++) {
        const struct kt_key *key = kt_keyring_key(r, i);
        if (!key_has_id(key, s->keyid))
            continue;
        n++;
        if (best == 0)
            continue;
        const struct kt_x509 *c = kt_key_cert(key);
        struct kt_ima_sig_check tmp = *out;
        snprintf(tmp.signer, sizeof(tmp.signer), "%s", c->description ? c->description : "?");
        struct kt_sigalg alg;
        int rc = hash_for_key(&tmp, o, key, s->hash_algo, &alg);
        if (rc == 0)
            rc = c->pub ? kt_pubkey_verify_digest(c->pub, &alg, dg, dlen, s->s, s->s_len)
                        : -ENOPKG;
        if (rc == 0 || !have) {
            *out = tmp;
            out->key = key;
            have = true;
            best = rc;
            if (rc == -EKEYREJECTED)
                kt_ima_check_set(out, rc, "signature does not match the digest with key '%s'",
                                 out->signer);
            else if (rc == -ENOPKG && !out->reason[0])
                kt_ima_check_set(out, rc, "key '%s': its key type cannot check this signature",
                                 out->signer);
        }
    }
    out->n_candidates = n;
    return best;
}

/* No key of r has the id: a certificate the restriction refused
 * (kt_ima_ring_add_file keeps them in NAME.refused) makes it "refused". */
static int unknown_key(const struct kt_keyrings *k, const struct kt_keyring *r, const char *name,
                       const struct kt_ima_sig *s, struct kt_ima_sig_check *out)
{
    char aside[96], rs[200];
    snprintf(aside, sizeof(aside), "%s-refused", name[0] == '.' || name[0] == '_' ? name + 1 : name);
    const struct kt_keyring *ref = kt_ima_ring_find(k, aside);
    for (size_t i = 0; ref && r && i < kt_keyring_count(ref); i++) {
        const struct kt_key *key = kt_keyring_key(ref, i);
        if (!key_has_id(key, s->keyid))
            continue;
        snprintf(out->signer, sizeof(out->signer), "%s", kt_key_cert(key)->description);
        return kt_ima_check_set(out, -EPERM, "key '%s' (id %08x) is not in %s: its restriction "
                                "(%s) refused it", out->signer, s->keyid, name,
                                kt_keyring_restriction_str(r, rs, sizeof(rs)));
    }
    return kt_ima_check_set(out, -ENOKEY, "no key with id %08x in %s%s", s->keyid, name,
                            r ? "" : " (no such keyring)");
}

static int verify_header(const struct kt_ima_sig *s, const struct kt_ima_digest *d,
                         struct kt_ima_sig_check *out)
{
    if (s->type == KT_EVM_IMA_XATTR_DIGSIG && s->version >= 3)
        return kt_ima_check_set(out, -EKEYREJECTED, "a version %u signature in an "
                                "EVM_IMA_XATTR_DIGSIG: the kernel refuses it "
                                "(invalid-signature-version)", s->version) - 1;
    if (s->type == KT_IMA_VERITY_DIGSIG && s->version != 3)
        return kt_ima_check_set(out, -EKEYREJECTED, "an IMA_VERITY_DIGSIG must be version 3, "
                                "this is version %u (invalid-signature-version)", s->version) - 1;
    if (s->version == 1)
        return kt_ima_check_set(out, -ENOPKG, "version 1 (RSA digsig) signature: ktrust does not "
                                "check the kernel's old digsig_verify format") - 1;
    if (s->version != 2 && s->version != 3)
        return kt_ima_check_set(out, -ENOPKG, "signature version %u: the kernel knows 1, 2 and 3 "
                                "(EOPNOTSUPP)", s->version) - 1;
    if (s->hash_algo >= KT_IMA_HASH__LAST)
        return kt_ima_check_set(out, -ENOPKG, "hash_algo %u is past the kernel's table "
                                "(HASH_ALGO__LAST %u)", s->hash_algo, KT_IMA_HASH__LAST) - 1;
    if (s->type == KT_IMA_VERITY_DIGSIG && !d->verity)
        return kt_ima_check_set(out, -ENOPKG, "a v3 fs-verity signature: it covers the file's "
                                "fs-verity digest, not its content hash") - 1;
    if (s->type == KT_EVM_IMA_XATTR_DIGSIG && (d->verity || d->algo != s->hash_algo))
        return kt_ima_check_set(out, -ENOPKG, "the signature covers a %s digest, the digest given "
                                "is %s%s", algos[s->hash_algo].name, d->verity ? "fs-verity " : "",
                                kt_ima_hash_name(d->algo) ? kt_ima_hash_name(d->algo) : "unknown")
               - 1;
    return 0;
}

/* calc_file_id_hash: struct ima_file_id {hash_type, hash_algorithm,
 * hash[HASH_MAX_DIGESTSIZE]} without the unused tail of hash, hashed with
 * the signature's algorithm. */
static int file_id_hash(const struct kt_ima_sig *s, const struct kt_ima_digest *d, uint8_t *out,
                        size_t *out_len, struct kt_ima_sig_check *chk)
{
    uint8_t fid[2 + KT_HASH_MAX_SIZE];
    if (d->algo >= KT_IMA_HASH__LAST || d->len != algos[d->algo].size || d->len > KT_HASH_MAX_SIZE)
        return kt_ima_check_set(chk, -EBADMSG, "fs-verity digest: %zu bytes for %s", d->len,
                                kt_ima_hash_name(d->algo) ? kt_ima_hash_name(d->algo) : "?") - 1;
    enum kt_hash h = algos[s->hash_algo].kt;
    if (h == KT_HASH_NONE)
        return 1; /* the key check says why */
    fid[0] = s->type;
    fid[1] = d->algo;
    memcpy(fid + 2, d->bytes, d->len);
    *out_len = kt_hash_size(h);
    return kt_digest(h, fid, 2 + d->len, out);
}

int kt_ima_sig_verify(const struct kt_keyrings *k, const struct kt_ima_sig_opts *o,
                      const uint8_t *sig, size_t sig_len, const struct kt_ima_digest *d,
                      struct kt_ima_sig_check *out)
{
    if (!out || !d || (!sig && sig_len))
        return -EINVAL;
    memset(out, 0, sizeof(*out));
    if (sig_len < 1)
        return kt_ima_check_set(out, -ENODATA, "no signature");
    uint8_t t = sig[0];
    if (t == KT_IMA_XATTR_DIGEST || t == KT_IMA_XATTR_DIGEST_NG)
        return kt_ima_check_set(out, -ENODATA, "a digest (type %u), not a signature", t);
    if (t == KT_EVM_XATTR_HMAC || t == KT_EVM_XATTR_PORTABLE_DIGSIG)
        return kt_ima_check_set(out, -EBADMSG, "type %u is an EVM value, not an IMA one "
                                "(unknown-ima-data)", t);
    if (t != KT_EVM_IMA_XATTR_DIGSIG && t != KT_IMA_VERITY_DIGSIG)
        return kt_ima_check_set(out, -EBADMSG, "unknown security.ima type %u (unknown-ima-data)", t);
    struct kt_error e = KT_ERROR_INIT;
    struct kt_ima_sig s;
    if (kt_ima_sig_parse(sig, sig_len, &s, &e) < 0)
        return kt_ima_check_set(out, -EBADMSG, "%s", e.what);
    kt_ima_check_header(out, &s);
    if (verify_header(&s, d, out) < 0)
        return 0;
    uint8_t fid[KT_HASH_MAX_SIZE];
    const uint8_t *dg = d->bytes;
    size_t dlen = d->len;
    if (s.type == KT_IMA_VERITY_DIGSIG) {
        int rc = file_id_hash(&s, d, fid, &dlen, out);
        if (rc < 0)
            return out->reason[0] ? 0 : rc;
        dg = fid;
    }
    return kt_ima_sig_check_key(k, o, &s, dg, dlen, out);
}

int kt_ima_sig_check_key(const struct kt_keyrings *k, const struct kt_ima_sig_opts *o,
                         const struct kt_ima_sig *sp, const uint8_t *dg, size_t dlen,
                         struct kt_ima_sig_check *out)
{
    struct kt_ima_sig s = *sp;
    const char *given = o && o->keyring ? o->keyring : "ima";
    char name[80]; /* as the kernel names it: ".ima", ".evm" */
    snprintf(name, sizeof(name), "%s%s", given[0] == '.' ? "" : ".", given);
    const struct kt_keyring *r = kt_ima_ring_find(k, name);
    if (kt_keyring_member_trusted(r))
        name[0] = '_'; /* the kernel's _ima / _evm (no CONFIG_INTEGRITY_TRUSTED_KEYRING) */
    int rc = check_keys(r, &s, dg, dlen, o, out);
    if (rc == -ENOKEY && !out->key)
        return unknown_key(k, r, name, &s, out);
    if (rc < 0)
        return 0;
    if (k && kt_blacklist_has_cert(k, kt_key_cert(out->key)))
        return kt_ima_check_set(out, -EKEYREJECTED, "signed by '%s', which is blacklisted",
                                out->signer);
    if (!kt_key_is_trusted(out->key))
        return kt_ima_check_set(out, -ENOKEY, "signed by '%s', a key in %s no trusted key "
                                "vouches for", out->signer, name);
    if (out->n_candidates > 1)
        return kt_ima_check_set(out, 0, "signed by '%s' (%s, %s); %zu keys in %s have id %08x: "
                                "the kernel tries the first its search finds", out->signer,
                                out->hash_name, s.type == KT_IMA_VERITY_DIGSIG ? "v3 fs-verity" : "v2",
                                out->n_candidates, name, s.keyid);
    return kt_ima_check_set(out, 0, "signed by '%s' (%s, %s)", out->signer, out->hash_name,
                            s.type == KT_IMA_VERITY_DIGSIG ? "v3 fs-verity" : "v2");
}
