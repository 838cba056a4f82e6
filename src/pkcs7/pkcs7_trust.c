/* PKCS#7 trust validation (the kernel's pkcs7_trust.c role). */
#include "pkcs7/pkcs7.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* A trusted key (of the search set) that is this certificate: found by its
 * issuer+serial, and when it has an SKID the key must carry it too. */
static const struct kt_key *find_as_key(const struct kt_trust_set *set, const struct kt_x509 *c)
{
    struct kt_key_ids ids = kt_key_ids_of_cert(c);
    return kt_trust_set_find(set, &ids);
}

/* A trusted key that the certificate's AKID names as its issuer (no AKID:
 * none; PKCS#7 trust never goes by the issuer name). */
static const struct kt_key *find_issuer_key(const struct kt_trust_set *set, const struct kt_x509 *c)
{
    struct kt_key_ids ids = kt_key_ids_of_signer(c, false);
    return kt_trust_set_find(set, &ids);
}

/* The signer id itself as a key (the kernel's last resort, and the only way
 * for a signer named by SKID or a message without certificates). */
static const struct kt_key *find_direct(const struct kt_trust_set *set,
                                        const struct kt_pkcs7_signer *si)
{
    struct kt_key_ids ids = {0};
    if (si->skid.len)
        ids.skid = si->skid;
    else
        ids.issuer = si->issuer_raw, ids.serial = si->serial;
    return kt_trust_set_find(set, &ids);
}

/* Why nothing vouched: name the top of the chain, the issuer it needs, and
 * where that key is if a keyring outside the search set holds it. */
static int no_key(const struct kt_trust_set *set, const struct kt_pkcs7_signer *si,
                  const struct kt_x509 *top, struct kt_error *err)
{
    const struct kt_key *held = NULL;
    struct kt_key_ids ids = {0};
    if (top) {
        ids = top->self_signed ? kt_key_ids_of_cert(top) : kt_key_ids_of_signer(top, false);
        if (!top->self_signed && kt_key_ids_empty(&ids))
            ids.subject = top->issuer_raw; /* for the message only */
    } else if (si->skid.len) {
        ids.skid = si->skid;
    } else {
        ids.issuer = si->issuer_raw, ids.serial = si->serial;
    }
    held = kt_keyrings_find_any(set->all, &ids);
    char where[160] = "which no keyring holds";
    if (held && held->ring && !kt_trust_set_has(set, held->ring))
        snprintf(where, sizeof(where), "which keyring %s holds, but %s does not vouch for %s",
                 kt_keyring_name(held->ring), kt_keyring_name(held->ring),
                 set->what ? set->what : "this");
    else if (held && !held->trusted)
        snprintf(where, sizeof(where), "which keyring %s holds, not flagged trusted",
                 kt_keyring_name(held->ring));
    if (!top)
        return kt_fail(err, -ENOKEY, si->offset,
                       "signerInfo %d: no certificate for the signer and no trusted key matching "
                       "its id, %s%s",
                       si->index, where, kt_hint_text(KT_HINT_SUPPLY_KEY));
    if (top->self_signed)
        return kt_fail(err, -ENOKEY, si->offset,
                       "signerInfo %d: chain ends at the self-signed %s, %s%s", si->index,
                       top->description ? top->description : "certificate", where,
                       kt_hint_text(KT_HINT_SUPPLY_ROOT));
    return kt_fail(err, -ENOKEY, si->offset,
                   "signerInfo %d: chain ends at %s, issued by %s, %s%s", si->index,
                   top->description ? top->description : "?", top->issuer ? top->issuer : "?",
                   where, kt_hint_text(KT_HINT_SUPPLY_ISSUER));
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
    else if (si->verify_rc == 0 && si->signer_cert &&
             kt_span_eq(si->signer_cert->spki, key->cert->spki))
        rc = 0; /* verify_one checked this very signature with this very public
                 * key (the same SubjectPublicKeyInfo bytes): a second RSA
                 * check would give the same answer (it halved module scans) */
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
        si->time_invalid_cert = key->cert;
        return kt_fail(err, -EKEYREJECTED, si->offset,
                       "signerInfo %d: trusted key %s is outside its validity period",
                       si->index, key->cert->description);
    }
    si->trusted_by = key;
    return 0;
}

static int trust_one(struct kt_pkcs7 *msg, struct kt_pkcs7_signer *si,
                     const struct kt_trust_set *set, struct kt_error *err)
{
    si->trusted_by = NULL;
    si->time_invalid = false;
    si->time_invalid_cert = NULL;
    if (si->verify_rc != 0 && si->verify_rc != -ENOKEY) /* verify's reason stays the reason */
        return si->error.code ? kt_fail(err, si->verify_rc, si->error.offset, "%s", si->error.what)
                              : si->verify_rc;
    if (si->unsupported_sig)
        return kt_fail(err, -ENOPKG, si->offset, "signerInfo %d: unsupported algorithm", si->index);

    /* validity dates: reported, enforced only on request */
    for (size_t i = 0; i < si->chain_len; i++)
        if (out_of_time(msg, si->chain[i]) && !si->time_invalid) {
            si->time_invalid = true;
            si->time_invalid_cert = si->chain[i];
        }
    if (si->time_invalid && msg->policy.check_time)
        return kt_fail(err, -EKEYREJECTED, si->offset,
                       "signerInfo %d: certificate %s in the chain is outside its validity period",
                       si->index,
                       si->time_invalid_cert->description ? si->time_invalid_cert->description
                                                          : "?");

    if (!set || !set->all)
        return kt_fail(err, -ENOKEY, si->offset, "signerInfo %d: no trusted keys given",
                       si->index);
    /* blacklisted certificates anywhere in the chain reject */
    for (size_t i = 0; i < si->chain_len; i++)
        if (kt_blacklist_has_cert(set->all, si->chain[i]))
            return kt_fail(err, -EKEYREJECTED, si->offset,
                           "signerInfo %d: certificate %s is blacklisted", si->index,
                           si->chain[i]->description ? si->chain[i]->description : "?");
    /* a blacklisted certificate is a trust anchor for denial (the kernel's
     * is_key_on_revocation_list, shim's check_denylist, EDK2's
     * IsForbiddenByDbx): a chain certificate it issued rejects, whether or
     * not the message carries it */
    for (size_t i = 0; i < si->chain_len; i++) {
        const struct kt_key *bk = kt_blacklist_issuer_of(set->all, si->chain[i]);
        if (bk)
            return kt_fail(err, -EKEYREJECTED, si->offset,
                           "signerInfo %d: certificate %s is issued by the blacklisted %s",
                           si->index,
                           si->chain[i]->description ? si->chain[i]->description : "?",
                           bk->cert->description ? bk->cert->description : "certificate");
    }

    /* pkcs7_validate_trust_one: each chain certificate that is itself a
     * trusted key vouches for the link below it; an unknown self-signed
     * root ends the search; then the top's AKID issuer; then, as a last
     * resort, the signer id as a trusted key.  A signer whose certificate
     * came from a keyring (no message certificate) has only the last. */
    const struct kt_x509 *child = NULL, *top = NULL;
    const struct kt_key *k = NULL;
    size_t n = si->signer_key ? 0 : si->chain_len;
    for (size_t i = 0; i < n && !k; i++) {
        const struct kt_x509 *x = si->chain[i];
        if ((k = find_as_key(set, x)))
            break;
        if (x->self_signed)
            return no_key(set, si, x, err);
        child = top = x;
    }
    if (!k && top && (k = find_issuer_key(set, top)))
        child = top;
    if (!k && (k = find_direct(set, si)))
        child = NULL;
    if (!k)
        return no_key(set, si, si->signer_key ? NULL : top, err);
    if (kt_blacklist_has_cert(set->all, k->cert))
        return kt_fail(err, -EKEYREJECTED, si->offset,
                       "signerInfo %d: trusted key %s is blacklisted", si->index,
                       k->cert->description);
    return check_link(msg, si, child, k, err);
}

int kt_pkcs7_validate_trust_set(struct kt_pkcs7 *msg, const struct kt_trust_set *trust,
                                struct kt_error *err)
{
    int cached = -ENOKEY, hard = 0;
    struct kt_error first = KT_ERROR_INIT, hard_err = KT_ERROR_INIT, pkg_err = KT_ERROR_INIT;
    for (size_t i = 0; i < msg->n_signers; i++) {
        struct kt_pkcs7_signer *si = &msg->signers[i];
        struct kt_error e = KT_ERROR_INIT;
        int rc = trust_one(msg, si, trust, &e);
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
        return kt_fail(err, hard, hard_err.offset, "%s",
                       hard_err.what[0] ? hard_err.what : "signature rejected");
    }
    if (cached == 0)
        return 0;
    const struct kt_error *e = cached == -ENOPKG ? &pkg_err : &first;
    return kt_fail(err, cached, e->code ? e->offset : KT_NO_OFFSET, "%s",
                   e->what[0] ? e->what : "no trusted key vouches");
}
