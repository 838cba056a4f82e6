/* PKCS#7 signature verification (the kernel's pkcs7_verify.c role). */
#include "pkcs7/pkcs7.h"

#include <stdlib.h>
#include <string.h>

static int hash_allowed(const struct kt_pkcs7 *msg, enum kt_hash h, size_t at, const char *what,
                        struct kt_error *err)
{
    if (h == KT_HASH_SHA1 && !msg->policy.allow_sha1)
        return kt_fail(err, -ENOPKG, at, "%s: SHA-1 refused%s", what,
                       kt_hint_text(KT_HINT_ALLOW_SHA1_BRIEF));
    if (h == KT_HASH_MD2 || h == KT_HASH_MD4 || h == KT_HASH_MD5 || !kt_hash_available(h))
        return kt_fail(err, -ENOPKG, at, "%s: %s unsupported", what, kt_hash_name(h));
    return 0;
}

/* pkcs7_find_key: the message's certificates are matched by issuer+serial
 * only.  A signer named by SKID never matches one of them; it can only be a
 * keyring key itself (found by kt_keyrings_find_cert, trusted only if that
 * key may vouch). */
static bool signer_matches(const struct kt_pkcs7_signer *si, const struct kt_x509 *c)
{
    if (si->skid.len)
        return false;
    return kt_span_eq(si->issuer_raw, c->issuer_raw) &&
           kt_span_eq(kt_integer_magnitude(si->serial), kt_integer_magnitude(c->serial));
}

/* The message certificate `cur` names as its issuer (pkcs7_verify_sig_chain):
 * by the AKID's issuer+serial (then an AKID keyIdentifier must equal that
 * certificate's SKID, else -EKEYREJECTED), else by the AKID keyIdentifier.
 * A certificate without an AKID ends the chain: the issuer name alone is
 * never followed.  Returns 0 with *up NULL when nothing is found. */
static int find_issuer_in_msg(const struct kt_pkcs7 *msg, const struct kt_pkcs7_signer *si,
                              const struct kt_x509 *cur, const struct kt_x509 **up,
                              struct kt_error *err)
{
    *up = NULL;
    kt_span ser = kt_integer_magnitude(cur->akid_serial);
    for (size_t i = 0; i < msg->n_certs; i++) {
        const struct kt_x509 *c = msg->certs[i];
        if (cur->akid_issuer.len && ser.len) {
            if (!kt_span_eq(cur->akid_issuer, c->issuer_raw) ||
                !kt_span_eq(ser, kt_integer_magnitude(c->serial)))
                continue;
            if (cur->akid_keyid.len && !kt_span_eq(cur->akid_keyid, c->skid))
                return kt_fail(err, -EKEYREJECTED, si->offset,
                               "signerInfo %d: the AKID of %s names %s by issuer and serial, "
                               "but its keyIdentifier differs from that certificate's SKID",
                               si->index, cur->subject ? cur->subject : "?",
                               c->subject ? c->subject : "?");
        } else if (!cur->akid_keyid.len || !kt_span_eq(cur->akid_keyid, c->skid)) {
            continue;
        }
        *up = c;
        return 0;
    }
    return 0;
}

/* ML-DSA signs the message itself (the kernel's algo_takes_data): with
 * signed attributes their SET form, as the kernel's pkcs7_digest hands it
 * to public_key_verify_signature; without them the content, which a module
 * check holds only as digests: ktrust checks ML-DSA over signed attributes
 * only (-ENOPKG otherwise). */
static int check_takes_data(const struct kt_pkcs7_signer *si, const struct kt_pubkey *key)
{
    if (si->sig_alg.enc != KT_SIG_MLDSA || !si->has_auth_attrs || si->auth_attrs.len < 2)
        return -ENOPKG;
    uint8_t *m = malloc(si->auth_attrs.len);
    if (!m)
        return -ENOMEM;
    memcpy(m, si->auth_attrs.p, si->auth_attrs.len);
    m[0] = 0x31; /* [0] IMPLICIT becomes the SET OF it stands for */
    int rc = kt_pubkey_verify(key, &si->sig_alg, m, si->auth_attrs.len, si->signature.p,
                              si->signature.len);
    free(m);
    return rc;
}

int kt_pkcs7_check_signer_sig(const struct kt_pkcs7_signer *si, const struct kt_pubkey *key)
{
    if (!key)
        return -ENOPKG;
    if (kt_sigalg_takes_data(&si->sig_alg))
        return check_takes_data(si, key);
    if (si->sig_alg.hash != si->digest_alg)
        return -ENOPKG;
    return kt_pubkey_verify_digest(key, &si->sig_alg, si->signed_digest,
                                   kt_hash_size(si->digest_alg), si->signature.p,
                                   si->signature.len);
}

/* Link the message's certificates from the signer up (pkcs7_verify_sig_chain):
 * each issuer found in the message must verify its child. */
static int build_chain(struct kt_pkcs7 *msg, struct kt_pkcs7_signer *si, struct kt_error *err)
{
    const struct kt_x509 *cur = si->signer_cert;
    si->chain[0] = cur;
    si->chain_len = 1;
    if (si->signer_key)
        return 0; /* a keyring key: no message certificates to follow */
    while (!cur->self_signed && si->chain_len < KT_PKCS7_MAX_CHAIN) {
        const struct kt_x509 *up = NULL;
        KT_TRY(find_issuer_in_msg(msg, si, cur, &up, err));
        if (!up || up == cur)
            break;
        for (size_t k = 0; k < si->chain_len; k++)
            if (si->chain[k] == up)
                return 0; /* a loop: stop, trust decides */
        if (cur->sig_alg.unsupported || !up->pub) {
            si->unsupported_sig = true;
            return 0;
        }
        int rc = kt_x509_check_signature(cur, up->pub);
        if (rc == -ENOPKG) {
            si->unsupported_sig = true;
            return 0;
        }
        if (rc < 0)
            return kt_fail(err, -EKEYREJECTED, si->offset,
                           "signerInfo %d: certificate %s is not signed by its issuer %s in the message",
                           si->index, cur->subject ? cur->subject : "?",
                           up->subject ? up->subject : "?");
        si->chain[si->chain_len++] = up;
        cur = up;
    }
    return 0;
}

/* Verify one signer given its content digest (already in si->digest). */
static int verify_one(struct kt_pkcs7 *msg, struct kt_pkcs7_signer *si,
                      const struct kt_keyrings *rings, struct kt_error *err)
{
    size_t hlen = kt_hash_size(si->digest_alg);
    /* authenticated attributes: messageDigest, then sign over their SET form */
    if (si->has_auth_attrs) {
        if (si->message_digest.len != hlen)
            return kt_fail(err, -EBADMSG, si->offset,
                           "signerInfo %d: messageDigest is %zu bytes, %s needs %zu", si->index,
                           si->message_digest.len, kt_hash_name(si->digest_alg), hlen);
        if (memcmp(si->message_digest.p, si->digest, hlen) != 0)
            return kt_fail(err, -EKEYREJECTED, si->offset,
                           "signerInfo %d: messageDigest does not match the content", si->index);
        struct kt_digester *dg;
        uint8_t out[1][KT_HASH_MAX_SIZE];
        static const uint8_t set_tag = 0x31;
        KT_TRY(kt_digester_new(&dg, &si->digest_alg, 1));
        kt_digester_update(dg, &set_tag, 1);
        kt_digester_update(dg, si->auth_attrs.p + 1, si->auth_attrs.len - 1);
        int rc = kt_digester_final(dg, out);
        kt_digester_free(dg);
        if (rc < 0)
            return kt_fail(err, rc, si->offset, "signerInfo %d: digest failed", si->index);
        memcpy(si->signed_digest, out[0], hlen);
    } else {
        memcpy(si->signed_digest, si->digest, hlen);
    }

    /* find the signer's certificate: the message first, then the keyrings */
    bool algo_mismatch = false;
    for (size_t i = 0; i < msg->n_certs && !si->signer_cert; i++) {
        const struct kt_x509 *c = msg->certs[i];
        if (!signer_matches(si, c))
            continue;
        if (si->sig_alg.pkey != KT_PKEY_UNKNOWN && c->key_algo != si->sig_alg.pkey) {
            algo_mismatch = true;
            continue;
        }
        si->signer_cert = c;
    }
    if (!si->signer_cert && rings) {
        const struct kt_key *k = kt_keyrings_find_cert(rings, si->issuer_raw, si->serial, si->skid);
        if (k && si->sig_alg.pkey != KT_PKEY_UNKNOWN && k->cert->key_algo != si->sig_alg.pkey) {
            algo_mismatch = true;
            k = NULL;
        }
        if (k) {
            si->signer_key = k;
            si->signer_cert = k->cert;
        }
    }
    if (!si->signer_cert) {
        /* as the kernel: not an error here; trust will say ENOKEY */
        si->verify_rc = -ENOKEY;
        (void)algo_mismatch;
        return 0;
    }

    /* the kernel checks the signing time against the signer's validity
     * (firmware's Pkcs7Verify does not: no_signing_time) */
    if (si->has_signing_time && !msg->policy.no_signing_time &&
        (si->signing_time < si->signer_cert->not_before ||
         si->signing_time > si->signer_cert->not_after))
        return kt_fail(err, -EKEYREJECTED, si->offset,
                       "signerInfo %d: signed outside the signer certificate's validity",
                       si->index);

    int rc = kt_pkcs7_check_signer_sig(si, si->signer_cert->pub);
    if (rc == -ENOPKG) {
        si->unsupported_sig = true;
        return kt_fail(err, -ENOPKG, si->offset,
                       "signerInfo %d: cannot check a %s signature with a %s key", si->index,
                       kt_sigalg_name(&si->sig_alg), kt_pkey_algo_name(si->signer_cert->key_algo));
    }
    if (rc < 0)
        return kt_fail(err, -EKEYREJECTED, si->offset,
                       "signerInfo %d: signature does not verify with %s", si->index,
                       si->signer_cert->description ? si->signer_cert->description : "the signer's key");
    KT_TRY(build_chain(msg, si, err));
    si->verify_rc = 0;
    return 0;
}

/* The loop shared by both entry points (pkcs7_verify's result rules): a
 * signer with unsupported crypto is skipped; any other failure is returned. */
static int verify_all(struct kt_pkcs7 *msg, const uint8_t *data, size_t data_len,
                      const struct kt_pkcs7_digest *digests, size_t n,
                      const struct kt_keyrings *rings, struct kt_error *err)
{
    int actual = -ENOPKG, first_hard = 0;
    struct kt_error first_err = KT_ERROR_INIT;
    if (!data && !digests) {
        if (!msg->has_content)
            return kt_fail(err, -EBADMSG, KT_NO_OFFSET,
                           "detached signature: the signed data is needed%s",
                           kt_hint_text(KT_HINT_DETACHED_DATA));
        data = msg->content.p;
        data_len = msg->content.len;
    }
    for (size_t i = 0; i < msg->n_signers; i++) {
        struct kt_pkcs7_signer *si = &msg->signers[i];
        struct kt_error e = KT_ERROR_INIT;
        int rc;
        si->signer_cert = NULL;
        si->signer_key = NULL;
        si->chain_len = 0;
        si->unsupported_sig = false;
        si->verify_rc = -ENOKEY;
        si->error = (struct kt_error){0};
        rc = hash_allowed(msg, si->digest_alg, si->offset, "signerInfo.digestAlgorithm", &e);
        if (rc == 0)
            rc = kt_pkcs7_sig_allowed(msg, si, &e);
        if (rc == 0) {
            size_t hlen = kt_hash_size(si->digest_alg);
            if (digests) {
                rc = kt_fail(&e, -ENOPKG, si->offset,
                             "signerInfo %d: no %s digest of the content supplied", si->index,
                             kt_hash_name(si->digest_alg));
                for (size_t k = 0; k < n; k++)
                    if (digests[k].hash == si->digest_alg) {
                        memcpy(si->digest, digests[k].digest, hlen);
                        rc = 0;
                        e = (struct kt_error){0};
                        break;
                    }
            } else {
                rc = kt_digest(si->digest_alg, data, data_len, si->digest);
                if (rc < 0)
                    kt_fail(&e, rc, KT_NO_OFFSET, "digest of the content failed");
            }
            if (rc == 0) {
                si->digest_len = hlen;
                rc = verify_one(msg, si, rings, &e);
            }
        }
        si->error = e;
        if (rc == -ENOPKG) {
            si->unsupported_sig = true;
            si->verify_rc = -ENOPKG;
            if (!first_err.code)
                first_err = e;
            continue;
        }
        if (rc < 0) {
            si->verify_rc = rc;
            if (!first_hard) {
                first_hard = rc;
                first_err = e;
            } else if (rc == -EKEYREJECTED && first_hard != -EKEYREJECTED) {
                first_hard = rc;
                first_err = e;
            }
            continue;
        }
        actual = 0;
    }
    int rc = first_hard ? first_hard : actual;
    if (rc < 0 && first_err.code)
        kt_fail(err, rc, first_err.offset, "%s", first_err.what);
    else if (rc < 0)
        kt_fail(err, rc, KT_NO_OFFSET, "no signer could be checked");
    return rc;
}

int kt_pkcs7_verify(struct kt_pkcs7 *msg, const uint8_t *data, size_t data_len,
                    const struct kt_keyrings *rings, struct kt_error *err)
{
    if (data && msg->has_content &&
        (data_len != msg->content.len || (data_len && memcmp(data, msg->content.p, data_len))))
        return kt_fail(err, -EKEYREJECTED, KT_NO_OFFSET,
                       "the data given differs from the content inside the message");
    return verify_all(msg, data ? data : NULL, data_len, NULL, 0, rings, err);
}

int kt_pkcs7_verify_digests(struct kt_pkcs7 *msg, const struct kt_pkcs7_digest *digests,
                            size_t n, const struct kt_keyrings *rings, struct kt_error *err)
{
    if (n == 0)
        return verify_all(msg, NULL, 0, NULL, 0, rings, err);
    return verify_all(msg, NULL, 0, digests, n, rings, err);
}

int kt_pkcs7_check_purpose(const struct kt_pkcs7 *msg, enum kt_verify_purpose purpose,
                           struct kt_error *err)
{
    switch (purpose) {
    case KT_VERIFY_PURPOSE_DEFAULT:
    case KT_VERIFY_PURPOSE_MODULE:
        if (msg->content_type != KT_OID_DATA)
            return kt_fail(err, -EKEYREJECTED, KT_NO_OFFSET,
                           "module signature: content type is not data");
        for (size_t i = 0; i < msg->n_signers; i++)
            if (msg->signers[i].has_auth_attrs && !kt_pkcs7_attrs_waived(msg))
                return kt_fail(err, -EKEYREJECTED, msg->signers[i].offset,
                               "module signature: signer %zu has authenticated attributes", i);
        return 0;
    case KT_VERIFY_PURPOSE_UEFI:
    case KT_VERIFY_PURPOSE_KEXEC:
        if (msg->content_type != KT_OID_MS_INDIRECT_DATA)
            return kt_fail(err, -EKEYREJECTED, KT_NO_OFFSET,
                           "PE signature: content type is not msIndirectData");
        /* the kernel's parser: Authenticode requires authenticated attributes */
        for (size_t i = 0; purpose == KT_VERIFY_PURPOSE_KEXEC && i < msg->n_signers; i++)
            if (!msg->signers[i].has_auth_attrs)
                return kt_fail(err, -EBADMSG, msg->signers[i].offset,
                               "kexec: signer %zu has no authenticated attributes "
                               "(Authenticode requires them)", i);
        return 0;
    default: return 0;
    }
}
