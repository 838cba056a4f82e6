/* Authenticode verification: putting the PE, mscode and PKCS#7 layers
 * together (the kernel's verify_pefile, plus nested signatures, several
 * certificate entries, timestamps and the PE signer policy). */
#include "pe/pe_int.h"

#include <stdlib.h>
#include <string.h>

#define MAX_NESTING 4

struct ctx {
    const struct kt_pe *pe;
    const struct kt_trust_set *trust;
    const struct kt_keyrings *rings; /* trust->all: the blacklist, any-key lookups */
    enum kt_verify_purpose purpose;
    bool allow_sha1;
    bool check_time;
    int64_t at_time;
    enum kt_hash hashes[KT_HASH__COUNT];
    size_t n_hashes;
    uint8_t digests[KT_HASH__COUNT][KT_HASH_MAX_SIZE];
    bool blacklisted;
    enum kt_hash blacklisted_hash; /* the algorithm whose image digest is listed */
};

static void set_verdict(struct kt_pe_signature *sig, int rc, const struct kt_error *e)
{
    sig->verdict = rc;
    if (e && e->code)
        sig->error = *e;
    else if (rc < 0 && !sig->error.code)
        kt_fail(&sig->error, rc, KT_NO_OFFSET, "signature %d: %s", sig->index,
                kt_verdict_name(kt_verdict_of(rc)));
}

static void want_hash(struct ctx *c, enum kt_hash h)
{
    for (size_t i = 0; i < c->n_hashes; i++)
        if (c->hashes[i] == h)
            return;
    if (c->n_hashes < KT_HASH__COUNT && kt_hash_available(h))
        c->hashes[c->n_hashes++] = h;
}

/* Firmware and shim hash the image with every algorithm the dbx holds, not
 * only the signature's: every algorithm among the blacklist's bin: entries. */
static void want_blacklist_hashes(struct ctx *c)
{
    enum kt_hash algs[KT_HASH__COUNT];
    size_t n = kt_blacklist_bin_algs(c->rings, algs);
    for (size_t i = 0; i < n; i++)
        want_hash(c, algs[i]);
}

/* After the one pass: is any of the image's digests a bin: entry? */
static void check_blacklist(struct ctx *c)
{
    for (size_t i = 0; i < c->n_hashes && !c->blacklisted; i++)
        if (kt_blacklist_has_bin(c->rings, c->hashes[i], c->digests[i])) {
            c->blacklisted = true;
            c->blacklisted_hash = c->hashes[i];
        }
}

/* A blacklisted image's signature is rejected whatever else holds, but its
 * signer is still resolved (issuer+serial or SKID against the message's
 * certificates and the keyrings) so that the report can name it. */
static void resolve_signer(struct ctx *c, struct kt_pe_signature *sig)
{
    struct kt_error ignored = KT_ERROR_INIT;
    sig->msg->policy.allow_sha1 = c->allow_sha1;
    (void)kt_pkcs7_verify_digests(sig->msg, NULL, 0, c->rings, &ignored);
    sig->signer = sig->msg->signers[0].signer_cert;
}

/* Parse one PKCS#7 (a certificate entry or a nested signature) and its
 * SpcIndirectDataContent, recursively for nested signatures. */
static void prepare(struct ctx *c, struct kt_pe_signature *sig, kt_span der, int depth)
{
    struct kt_error e = KT_ERROR_INIT;
    sig->offset = (size_t)(der.p - c->pe->buf);
    int rc = kt_pkcs7_parse(der.p, der.len, &sig->msg, &e);
    if (rc == 0 && sig->msg->n_signers != 1)
        rc = kt_fail(&e, -EBADMSG, sig->offset,
                     "Authenticode signature: %zu signers, exactly one expected",
                     sig->msg->n_signers);
    if (rc == 0 && (sig->msg->content_type != KT_OID_MS_INDIRECT_DATA || !sig->msg->has_content))
        rc = kt_fail(&e, -EBADMSG, sig->offset,
                     "Authenticode signature: content is not SpcIndirectDataContent");
    if (rc == 0)
        rc = kt_mscode_parse(sig->msg->content.p, sig->msg->content.len, c->pe->buf,
                             &sig->mscode, &e);
    if (rc < 0) {
        set_verdict(sig, rc, &e);
        return;
    }
    sig->digest_alg = sig->mscode.digest_alg;
    want_hash(c, sig->digest_alg);
    if (depth >= MAX_NESTING)
        return;
    /* nested signatures: each value of every msNestedSignature attribute */
    const struct kt_pkcs7_signer *s = &sig->msg->signers[0];
    size_t n = 0;
    for (size_t i = 0; i < s->n_unauth; i++) {
        if (s->unauth[i].oid != KT_OID_MS_NESTED_SIGNATURE)
            continue;
        kt_der v;
        kt_der_init(&v, s->unauth[i].values.p, s->unauth[i].values.len, KT_DER_BER, NULL);
        while (!kt_der_empty(&v) && kt_der_skip_any(&v, "nested") == 0)
            n++;
    }
    if (n == 0)
        return;
    sig->nested = calloc(n, sizeof(*sig->nested));
    if (!sig->nested) {
        set_verdict(sig, -ENOMEM, NULL);
        return;
    }
    for (size_t i = 0; i < s->n_unauth; i++) {
        if (s->unauth[i].oid != KT_OID_MS_NESTED_SIGNATURE)
            continue;
        kt_der v;
        kt_der_init(&v, s->unauth[i].values.p, s->unauth[i].values.len, KT_DER_BER, NULL);
        while (!kt_der_empty(&v) && sig->n_nested < n) {
            kt_span tlv;
            uint32_t tag;
            if (kt_der_get_any(&v, &tag, NULL, &tlv) < 0)
                break;
            struct kt_pe_signature *ns = &sig->nested[sig->n_nested];
            ns->index = (int)sig->n_nested++;
            prepare(c, ns, tlv, depth + 1);
        }
    }
}

static void check(struct ctx *c, struct kt_pe_signature *sig)
{
    struct kt_error e = KT_ERROR_INIT;
    int rc;
    for (size_t i = 0; i < sig->n_nested; i++)
        check(c, &sig->nested[i]);
    if (!sig->msg || sig->verdict < 0)
        return;
    struct kt_pkcs7_signer *s = &sig->msg->signers[0];
    enum kt_hash h = sig->digest_alg;
    size_t dl = kt_hash_size(h);
    for (size_t i = 0; i < c->n_hashes; i++)
        if (c->hashes[i] == h) {
            memcpy(sig->image_digest, c->digests[i], dl);
            sig->digest_len = dl;
        }
    if (sig->digest_len)
        sig->digest_match = memcmp(sig->image_digest, sig->mscode.digest.p, dl) == 0;
    size_t doff = (size_t)(sig->mscode.digest.p - c->pe->buf);

    if (c->blacklisted) {
        resolve_signer(c, sig);
        rc = kt_fail(&e, -EKEYREJECTED, KT_NO_OFFSET, "image %s digest is blacklisted",
                     kt_hash_name(c->blacklisted_hash));
        goto out;
    }
    if (h == KT_HASH_MD5 || sig->mscode.digest_alg_unsupported || !sig->digest_len) {
        rc = kt_fail(&e, -ENOPKG, doff, "signature %d: %s image digest refused", sig->index,
                     kt_hash_name(h));
        goto out;
    }
    if (h == KT_HASH_SHA1 && !c->allow_sha1) {
        rc = kt_fail(&e, -ENOPKG, doff, "signature %d: SHA-1 image digest refused%s", sig->index,
                     kt_hint_text(KT_HINT_ALLOW_SHA1));
        goto out;
    }
    if (!sig->digest_match) {
        rc = kt_fail(&e, -EKEYREJECTED, doff,
                     "signature %d: image digest does not match the signed %s digest",
                     sig->index, kt_hash_name(h));
        goto out;
    }
    rc = kt_pkcs7_check_purpose(sig->msg, c->purpose, &e);
    if (rc < 0)
        goto out;
    sig->msg->policy.allow_sha1 = c->allow_sha1;
    sig->msg->policy.check_time = c->check_time;
    sig->msg->policy.at_time = c->at_time;
    rc = kt_pkcs7_verify_digests(sig->msg, NULL, 0, c->rings, &e);
    sig->signer = s->signer_cert;
    if (rc == -ENOPKG && !c->allow_sha1 &&
        (s->digest_alg == KT_HASH_SHA1 || s->sig_alg.hash == KT_HASH_SHA1)) {
        rc = kt_fail_over(&e, -ENOPKG, s->offset, "signature %d: SHA-1 signature refused%s",
                          sig->index, kt_hint_text(KT_HINT_ALLOW_SHA1));
        goto out;
    }
    if (rc < 0)
        goto out;
    if (sig->signer && sig->signer->has_eku &&
        !(sig->signer->eku & (KT_EKU_CODE_SIGNING | KT_EKU_ANY))) {
        rc = kt_fail(&e, -EKEYREJECTED, s->offset,
                     "signature %d: signer certificate's extendedKeyUsage allows neither "
                     "codeSigning nor anyExtendedKeyUsage",
                     sig->index);
        goto out;
    }
    rc = kt_pkcs7_validate_trust_set(sig->msg, c->trust, &e);
    sig->chain_len = s->chain_len;
    memcpy(sig->chain, s->chain, s->chain_len * sizeof(s->chain[0]));
    sig->trusted_by = s->trusted_by;
    if (rc == -ENOKEY && !e.code)
        kt_fail(&e, rc, s->offset, "signature %d: no trusted key vouches for the signer",
                sig->index);
out:
    if (!sig->signer)
        sig->signer = s->signer_cert;
    set_verdict(sig, rc, &e);
    kt_pe_check_timestamp(sig, c->pe->buf, c->trust);
}

/* Rank: rejected > trusted > malformed > unsupported > untrusted. */
struct agg {
    int rejected, trusted, malformed, unsupported, other;
    int trusted_not_vouching; /* nested, or not the kexec entry */
    const struct kt_error *why_rejected, *why_malformed, *why_unsupported, *why_other;
};

static void aggregate(struct agg *a, struct kt_pe_signature *sig, bool may_vouch)
{
    switch (sig->verdict) {
    case 0:
        sig->vouches = may_vouch;
        if (may_vouch)
            a->trusted++;
        else
            a->trusted_not_vouching++;
        break;
    case -EKEYREJECTED:
        if (!a->rejected++) a->why_rejected = &sig->error;
        break;
    case -EBADMSG:
    case -ELIBBAD:
        if (!a->malformed++) a->why_malformed = &sig->error;
        break;
    case -ENOPKG:
        if (!a->unsupported++) a->why_unsupported = &sig->error;
        break;
    default:
        if (!a->other++) a->why_other = &sig->error;
        break;
    }
    for (size_t i = 0; i < sig->n_nested; i++)
        aggregate(a, &sig->nested[i], false);
}

static int finish(struct kt_pe_result *r, int rc, const struct kt_error *why, struct kt_error *err)
{
    r->verdict = rc;
    if (why && why->code)
        r->error = *why;
    if (err && rc < 0) {
        if (why && why->code)
            kt_fail(err, rc, why->offset, "%s", why->what);
        else
            kt_fail(err, rc, KT_NO_OFFSET, "%s", kt_verdict_name(kt_verdict_of(rc)));
    }
    return rc;
}

/* The certificate table as far as the purpose reads it: no entry is
 * unsigned; kexec refuses a first PKCS#7 with a length over two bytes. */
static int table_usable(const struct ctx *c, const struct kt_pe_cert *certs, size_t n,
                        struct kt_error *e)
{
    if (n == 0) {
        kt_fail(e, -ENODATA, KT_NO_OFFSET, "no signature: the image has no certificate table");
        return -ENODATA;
    }
    if (c->purpose == KT_VERIFY_PURPOSE_KEXEC && certs[0].pkcs7.len >= 2 && certs[0].pkcs7.p[1] >= 0x83) {
        /* the kernel's pefile_strip_sig_wrapper reads at most a two-byte
         * length and refuses a longer one (-EMSGSIZE): kexec never gets
         * to the signature of a PKCS#7 of 64 KiB or more */
        kt_fail(e, -EBADMSG, certs[0].offset + 8,
                "kexec: the first signature's PKCS#7 has a %u-byte length field (64 KiB or "
                "more); the kernel refuses it (EMSGSIZE)", (unsigned)(certs[0].pkcs7.p[1] & 0x7f));
        return -EBADMSG;
    }
    return 0;
}

/* The image's verdict from its signatures: blacklisted first, then the
 * first of rejected, trusted, malformed, unsupported, untrusted. */
static int decide(struct kt_pe_result *r, const struct ctx *c, struct kt_error *e,
                  struct kt_error *err)
{
    struct agg a = {0};
    for (size_t i = 0; i < r->n_sigs; i++)
        aggregate(&a, &r->sigs[i], c->purpose != KT_VERIFY_PURPOSE_KEXEC || i == 0);
    if (c->blacklisted) {
        /* the image itself is listed, whatever its signatures say (even none
         * readable): firmware's and shim's dbx check comes first */
        struct kt_error bl = KT_ERROR_INIT;
        kt_fail(&bl, -EKEYREJECTED, KT_NO_OFFSET, "image %s digest is blacklisted",
                kt_hash_name(c->blacklisted_hash));
        return finish(r, -EKEYREJECTED, &bl, err);
    } else if (a.rejected)
        return finish(r, -EKEYREJECTED, a.why_rejected, err);
    else if (a.trusted)
        return finish(r, 0, NULL, err);
    else if (a.malformed)
        return finish(r, -EBADMSG, a.why_malformed, err);
    else if (a.unsupported)
        return finish(r, -ENOPKG, a.why_unsupported, err);
    else if (a.trusted_not_vouching) {
        const char *why = c->purpose == KT_VERIFY_PURPOSE_KEXEC
                              ? "a signature other than the first entry's is trusted, but kexec "
                                "reads the first entry only"
                              : "a nested signature is trusted, but nested signatures never "
                                "establish trust";
        if (a.why_other && a.why_other->code)
            kt_fail(e, -ENOKEY, a.why_other->offset, "%s; %s", a.why_other->what, why);
        else
            kt_fail(e, -ENOKEY, KT_NO_OFFSET, "%s", why);
        return finish(r, -ENOKEY, e, err);
    } else {
        return finish(r, a.why_other && a.why_other->code ? a.why_other->code : -ENOKEY,
                      a.why_other, err);
    }
}

int kt_pe_verify_set(const uint8_t *buf, size_t len, const struct kt_trust_set *trust,
                     const struct kt_pe_verify_opts *opts, struct kt_pe_result **out,
                     struct kt_error *err)
{
    *out = NULL;
    struct kt_pe *pe;
    int rc = kt_pe_parse(buf, len, &pe, err);
    if (rc < 0)
        return rc;
    struct kt_pe_result *r = calloc(1, sizeof(*r));
    if (!r) {
        kt_pe_free(pe);
        return -ENOMEM;
    }
    r->pe = pe;
    *out = r;
    struct kt_keyrings *empty = NULL;
    struct kt_trust_set none = {.what = trust ? trust->what : NULL};
    if (!trust || !trust->all) {
        if (kt_keyrings_new_empty(&empty) < 0)
            return finish(r, -ENOMEM, NULL, err);
        none.all = empty;
        trust = &none;
    }
    struct ctx c = {.pe = pe, .trust = trust, .rings = trust->all,
                    .purpose = opts ? opts->purpose : KT_VERIFY_PURPOSE_UEFI,
                    .allow_sha1 = opts && opts->allow_sha1,
                    .check_time = opts && opts->check_time,
                    .at_time = opts ? opts->at_time : 0};
    struct kt_pe_cert certs[KT_PE_MAX_CERTS];
    size_t n;
    struct kt_error e = KT_ERROR_INIT;
    rc = kt_pe_cert_table(pe, certs, KT_PE_MAX_CERTS, &n, &e);
    if (rc < 0) {
        rc = finish(r, rc, &e, err);
        goto done;
    }
    rc = table_usable(&c, certs, n, &e);
    if (rc < 0) {
        rc = finish(r, rc, &e, err);
        goto done;
    }
    r->sigs = calloc(n, sizeof(*r->sigs));
    if (!r->sigs) {
        rc = finish(r, -ENOMEM, NULL, err);
        goto done;
    }
    r->n_sigs = n;
    for (size_t i = 0; i < n; i++) {
        r->sigs[i].index = (int)i;
        prepare(&c, &r->sigs[i], certs[i].pkcs7, 0);
    }
    want_blacklist_hashes(&c);
    if (c.n_hashes) {
        rc = kt_pe_image_digest(pe, c.hashes, c.n_hashes, c.digests, &e);
        if (rc < 0) {
            rc = finish(r, rc, &e, err);
            goto done;
        }
    }
    check_blacklist(&c);
    for (size_t i = 0; i < n; i++)
        check(&c, &r->sigs[i]);
    r->blacklisted = c.blacklisted;
    r->n_hashes = c.n_hashes;
    memcpy(r->hashes, c.hashes, sizeof(c.hashes));
    memcpy(r->digests, c.digests, sizeof(c.digests));
    rc = decide(r, &c, &e, err);
done:
    kt_keyrings_free(empty);
    return rc;
}

static void free_sig(struct kt_pe_signature *sig)
{
    for (size_t i = 0; i < sig->n_nested; i++)
        free_sig(&sig->nested[i]);
    free(sig->nested);
    kt_pkcs7_free(sig->msg);
    kt_pkcs7_free(sig->ts_msg);
}

void kt_pe_result_free(struct kt_pe_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_sigs; i++)
        free_sig(&r->sigs[i]);
    free(r->sigs);
    kt_pe_free(r->pe);
    free(r);
}
