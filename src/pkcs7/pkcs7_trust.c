/* PKCS#7 trust validation (the kernel's pkcs7_trust.c role). */
#include "pkcs7/pkcs7.h"

#include <string.h>
#include <time.h>

/* A trusted key (for this purpose) that is this certificate. */
static const struct kt_key *find_as_key(const struct kt_keyrings *rings, enum kt_purpose p,
                                        const struct kt_x509 *c)
{
    const struct kt_key *k = kt_trust_find_by_issuer_serial(rings, p, c->issuer_raw, c->serial);
    if (!k && c->skid.len)
        k = kt_trust_find_by_skid(rings, p, c->skid);
    return k;
}

/* A trusted key that the certificate's AKID names as its issuer. */
static const struct kt_key *find_issuer_key(const struct kt_keyrings *rings, enum kt_purpose p,
                                            const struct kt_x509 *c)
{
    const struct kt_key *k = NULL;
    if (c->akid_issuer.len && c->akid_serial.len)
        k = kt_trust_find_by_issuer_serial(rings, p, c->akid_issuer, c->akid_serial);
    if (!k && c->akid_keyid.len)
        k = kt_trust_find_by_skid(rings, p, c->akid_keyid);
    return k;
}

static bool out_of_time(const struct kt_pkcs7 *msg, const struct kt_x509 *c)
{
    int64_t t = msg->policy.at_time ? msg->policy.at_time : (int64_t)time(NULL);
    return t < c->not_before || t > c->not_after;
}

/* Verify the link `child` (NULL: the signer info itself) with a trusted key. */
static int check_link(struct kt_pkcs7 *msg, struct kt_pkcs7_signer *si,
                      const struct kt_x509 *child, const struct kt_key *key,
                      struct kt_error *err)
{
    int rc;
    if (!key->cert->pub)
        rc = -ENOPKG;
    else if (child)
        rc = kt_x509_check_signature(child, key->cert->pub);
    else
        rc = kt_pkcs7_check_signer_sig(si, key->cert->pub);
    if (rc == -ENOPKG)
        return kt_fail(err, -ENOPKG, si->offset,
                       "signerInfo %d: cannot check the link to trusted key %s (algorithm)",
                       si->index, key->cert->description);
    if (rc < 0)
        return kt_fail(err, -EKEYREJECTED, si->offset,
                       "signerInfo %d: trusted key %s does not verify %s", si->index,
                       key->cert->description,
                       child ? (child->subject ? child->subject : "its certificate")
                             : "the signature");
    if (msg->policy.check_time && out_of_time(msg, key->cert)) {
        si->time_invalid = true;
        return kt_fail(err, -EKEYREJECTED, si->offset,
                       "signerInfo %d: trusted key %s is outside its validity period",
                       si->index, key->cert->description);
    }
    si->trusted_by = key;
    return 0;
}

static int trust_one(struct kt_pkcs7 *msg, struct kt_pkcs7_signer *si,
                     const struct kt_keyrings *rings, enum kt_purpose p, struct kt_error *err)
{
    si->trusted_by = NULL;
    si->time_invalid = false;
    if (si->verify_rc != 0 && si->verify_rc != -ENOKEY)
        return si->verify_rc;
    if (si->unsupported_sig)
        return kt_fail(err, -ENOPKG, si->offset, "signerInfo %d: unsupported algorithm", si->index);

    /* validity dates: reported, enforced only on request */
    for (size_t i = 0; i < si->chain_len; i++)
        if (out_of_time(msg, si->chain[i]))
            si->time_invalid = true;
    if (si->time_invalid && msg->policy.check_time)
        return kt_fail(err, -EKEYREJECTED, si->offset,
                       "signerInfo %d: a certificate in the chain is outside its validity period",
                       si->index);

    if (!si->signer_cert) {
        /* no certificate anywhere: a trusted key matching the signer id directly */
        const struct kt_key *k = NULL;
        if (rings && si->issuer_raw.len)
            k = kt_trust_find_by_issuer_serial(rings, p, si->issuer_raw, si->serial);
        if (rings && !k && si->skid.len)
            k = kt_trust_find_by_skid(rings, p, si->skid);
        if (!k)
            return kt_fail(err, -ENOKEY, si->offset,
                           "signerInfo %d: no certificate or key for the signer", si->index);
        if (kt_blacklist_has_cert(rings, k->cert))
            return kt_fail(err, -EKEYREJECTED, si->offset,
                           "signerInfo %d: the signer's key is blacklisted", si->index);
        return check_link(msg, si, NULL, k, err);
    }

    /* blacklisted certificates anywhere in the chain reject */
    for (size_t i = 0; rings && i < si->chain_len; i++)
        if (kt_blacklist_has_cert(rings, si->chain[i]))
            return kt_fail(err, -EKEYREJECTED, si->offset,
                           "signerInfo %d: certificate %s is blacklisted", si->index,
                           si->chain[i]->description ? si->chain[i]->description : "?");
    if (!rings)
        return kt_fail(err, -ENOKEY, si->offset, "signerInfo %d: no trusted keys given",
                       si->index);

    if (si->signer_key) {
        /* the signer's key came from a keyring: it vouches only if it is
         * itself a trusted key for this purpose */
        const struct kt_key *k = find_as_key(rings, p, si->signer_cert);
        if (!k)
            return kt_fail(err, -ENOKEY, si->offset,
                           "signerInfo %d: signer key %s is not trusted for this purpose",
                           si->index, si->signer_cert->description);
        return check_link(msg, si, NULL, k, err);
    }

    const struct kt_x509 *child = NULL;
    for (size_t i = 0; i < si->chain_len; i++) {
        const struct kt_x509 *x = si->chain[i];
        const struct kt_key *k = find_as_key(rings, p, x);
        if (k) {
            if (kt_blacklist_has_cert(rings, k->cert))
                return kt_fail(err, -EKEYREJECTED, si->offset,
                               "signerInfo %d: trusted key %s is blacklisted", si->index,
                               k->cert->description);
            return check_link(msg, si, child, k, err);
        }
        if (x->self_signed)
            return kt_fail(err, -ENOKEY, si->offset,
                           "signerInfo %d: chain ends at an unknown self-signed certificate %s",
                           si->index, x->description ? x->description : "?");
        child = x;
    }
    /* the top of the chain may be signed by a trusted key */
    if (child) {
        const struct kt_key *k = find_issuer_key(rings, p, child);
        if (k) {
            if (kt_blacklist_has_cert(rings, k->cert))
                return kt_fail(err, -EKEYREJECTED, si->offset,
                               "signerInfo %d: trusted key %s is blacklisted", si->index,
                               k->cert->description);
            return check_link(msg, si, child, k, err);
        }
    }
    /* last resort: a trusted key matching the signer id directly */
    const struct kt_key *k = NULL;
    if (si->issuer_raw.len)
        k = kt_trust_find_by_issuer_serial(rings, p, si->issuer_raw, si->serial);
    if (!k && si->skid.len)
        k = kt_trust_find_by_skid(rings, p, si->skid);
    if (k)
        return check_link(msg, si, NULL, k, err);
    return kt_fail(err, -ENOKEY, si->offset, "signerInfo %d: no trusted key vouches for %s",
                   si->index, si->signer_cert->description ? si->signer_cert->description : "the signer");
}

int kt_pkcs7_validate_trust(struct kt_pkcs7 *msg, const struct kt_keyrings *rings,
                            enum kt_purpose purpose, struct kt_error *err)
{
    int cached = -ENOKEY, hard = 0;
    struct kt_error first = {0}, hard_err = {0}, pkg_err = {0};
    for (size_t i = 0; i < msg->n_signers; i++) {
        struct kt_pkcs7_signer *si = &msg->signers[i];
        struct kt_error e = {0};
        int rc = trust_one(msg, si, rings, purpose, &e);
        si->verdict = rc;
        if (rc < 0 && e.code)
            si->error = e;
        else if (rc == 0)
            si->error = (struct kt_error){0};
        if (rc == 0) {
            cached = 0;
        } else if (rc == -ENOKEY) {
            if (!first.code)
                first = e;
        } else if (rc == -ENOPKG) {
            if (cached == -ENOKEY)
                cached = -ENOPKG;
            if (!pkg_err.code)
                pkg_err = e;
        } else if (!hard || (rc == -EKEYREJECTED && hard != -EKEYREJECTED)) {
            hard = rc;
            hard_err = e;
        }
    }
    if (hard) {
        if (!hard_err.code)
            hard_err.offset = KT_NO_OFFSET;
        return kt_fail(err, hard, hard_err.offset, "%s",
                       hard_err.what[0] ? hard_err.what : "signature rejected");
    }
    if (cached == 0)
        return 0;
    const struct kt_error *e = cached == -ENOPKG ? &pkg_err : &first;
    return kt_fail(err, cached, e->code ? e->offset : KT_NO_OFFSET, "%s",
                   e->what[0] ? e->what : "no trusted key vouches");
}
