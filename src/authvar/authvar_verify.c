/* authvar_verify.c - a signed variable update checked as EDK2 checks it:
 * the signature over the rebuilt bytes (append or replace attributes), the
 * PK/KEK authority, the payload's format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "authvar/authvar.h"
#include "boot/edk2.h"
#include "esl/esl_svn.h"
#include "util/fmt.h"

/* ContentInfo { signedData, [0] EXPLICIT SignedData } around a raw one. */
static size_t der_hdr(uint8_t *p, uint8_t tag, size_t n)
{
    size_t k = 0;
    p[k++] = tag;
    if (n < 0x80) {
        p[k++] = (uint8_t)n;
    } else {
        int bytes = n > 0xffffff ? 4 : n > 0xffff ? 3 : n > 0xff ? 2 : 1;
        p[k++] = (uint8_t)(0x80 | bytes);
        for (int i = bytes - 1; i >= 0; i--)
            p[k++] = (uint8_t)(n >> (8 * i));
    }
    return k;
}

static int wrap(kt_span raw, uint8_t **out, size_t *out_len, size_t *prefix)
{
    static const uint8_t oid[] = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02};
    uint8_t a0[8], seq[8];
    size_t a0n = der_hdr(a0, 0xa0, raw.len);
    size_t inner = sizeof(oid) + a0n + raw.len;
    size_t seqn = der_hdr(seq, 0x30, inner);
    uint8_t *b = malloc(seqn + inner);
    if (!b)
        return -ENOMEM;
    memcpy(b, seq, seqn);
    memcpy(b + seqn, oid, sizeof(oid));
    memcpy(b + seqn + sizeof(oid), a0, a0n);
    memcpy(b + seqn + sizeof(oid) + a0n, raw.p, raw.len);
    *out = b;
    *out_len = seqn + inner;
    *prefix = seqn + sizeof(oid) + a0n;
    return 0;
}

struct payload_ctx {
    struct kt_authvar_counts *c;
    bool rsa_rule, pk;
    size_t entries;
    size_t base; /* file offset of the payload */
    struct kt_error *err;
};

/* EDK2's CheckSignatureListFormat (AuthService.c, run at the end of
 * VerifyTimeBasedPayload and on setup-mode writes; the same in 2022.11 and
 * edk2-stable202605): for PK, KEK, db, dbx and dbt the first entry of each
 * X509 list must yield an RSA public key (RsaGetPublicKeyFromX509), else
 * SetVariable() fails with EFI_INVALID_PARAMETER (EINVAL through efivarfs)
 * and nothing is written.  Not a certificate: -EBADMSG; another key: -ENOPKG. */
static int rsa_entry(struct payload_ctx *pc, const struct kt_esl_entry *e)
{
    struct kt_x509 *x = NULL;
    struct kt_error xe = KT_ERROR_INIT;
    int rc = kt_x509_parse(e->data.p, e->data.len, &x, &xe);
    if (rc == -ENOMEM)
        return kt_fail(pc->err, rc, KT_NO_OFFSET, "out of memory");
    if (rc < 0)
        return kt_fail(pc->err, -EBADMSG, pc->base + e->offset,
                       "payload list %zu entry %zu is not a certificate (%s): firmware refuses "
                       "the write (EDK2 CheckSignatureListFormat: an X509 list must hold an RSA "
                       "key)", e->list_index, e->entry_index, xe.what);
    enum kt_pkey_algo a = x->key_algo;
    kt_x509_free(x);
    if (a != KT_PKEY_RSA)
        return kt_fail(pc->err, -ENOPKG, pc->base + e->offset,
                       "payload list %zu entry %zu is an %s certificate: firmware refuses the "
                       "write (EDK2 CheckSignatureListFormat: an X509 list must hold an RSA key)",
                       e->list_index, e->entry_index,
                       a == KT_PKEY_UNKNOWN ? "unknown-key" : kt_pkey_algo_name(a));
    return 0;
}

static int check_entry(void *ctx, const struct kt_esl_entry *e)
{
    struct payload_ctx *pc = ctx;
    pc->entries++;
    if (kt_esl_is_svn(e)) {
        pc->c->svn++;
        return 0;
    }
    switch (e->type) {
    case KT_ESL_X509:
        pc->c->x509++;
        /* firmware looks at each list's first entry only */
        return pc->rsa_rule && e->entry_index == 0 ? rsa_entry(pc, e) : 0;
    case KT_ESL_SHA256: pc->c->sha256++; return 0;
    case KT_ESL_X509_SHA256: pc->c->x509_sha256++; return 0;
    case KT_ESL_X509_SHA384:
    case KT_ESL_X509_SHA512: pc->c->other++; return 0;
    default: break;
    }
    size_t size = 0;
    int t = kt_authvar_other_type(e, &size);
    if (t < 0)
        return kt_fail(pc->err, -EBADMSG, pc->base + e->offset,
                       "payload list %zu: unknown SignatureType (firmware refuses the write)",
                       e->list_index);
    if (e->data.len != size)
        return kt_fail(pc->err, -EBADMSG, pc->base + e->offset,
                       "payload list %zu: SignatureSize %zu is wrong for its type (%zu)",
                       e->list_index, e->data.len + 16, size + 16);
    const char *n = kt_authvar_entry_type(e);
    if (!strcmp(n, "sha384"))
        pc->c->sha384++;
    else if (!strcmp(n, "sha512"))
        pc->c->sha512++;
    else
        pc->c->other++;
    return 0;
}

static int check_payload(const struct kt_authvar *v, const char *name,
                         struct kt_authvar_counts *c, struct kt_error *err)
{
    struct payload_ctx pc = {.c = c, .pk = !strcmp(name, "PK"), .base = v->payload_offset,
                             .err = err};
    pc.rsa_rule = strcmp(name, "dbr") != 0; /* PK, KEK, db, dbx, dbt */
    struct kt_error e = KT_ERROR_INIT;
    /* offsets from the ESL walker are relative to the payload */
    int rc = kt_esl_foreach(v->payload.p, v->payload.len, check_entry, &pc, &e);
    if (rc < 0) {
        size_t off = e.offset == KT_NO_OFFSET ? KT_NO_OFFSET : v->payload_offset + e.offset;
        return kt_fail(err, rc, off, "%s", e.what);
    }
    if (pc.pk && pc.entries > 1)
        return kt_fail(err, -EBADMSG, v->payload_offset,
                       "PK payload holds %zu entries, firmware takes exactly one X509", pc.entries);
    if (pc.pk && pc.entries == 1 && c->x509 != 1)
        return kt_fail(err, -EBADMSG, v->payload_offset, "PK payload entry is not an X509");
    return 0;
}

static bool same_der(const struct kt_x509 *a, const struct kt_x509 *b)
{
    return a->der.len == b->der.len && !memcmp(a->der.p, b->der.p, a->der.len);
}

/* OpenSSL's X509_check_ca: may c issue certificates?  PKCS7_verify (EDK2's
 * Pkcs7Verify) asks it of every certificate above the signer's, the trusted
 * one included.  (A Netscape cert-type CA bit is not honoured: stricter.) */
static bool may_issue(const struct kt_x509 *c)
{
    if (c->has_key_usage && !(c->key_usage & (1u << 5))) /* keyCertSign */
        return false;
    if (c->has_basic_constraints)
        return c->is_ca;
    if (c->version == 1 && c->self_signed)
        return true;
    return c->has_key_usage;
}

/* Does the signer's chain reach the trusted certificate a (as a certificate
 * of the chain, or as the issuer of one), every issuer on the way a CA? */
static bool chains_to(const struct kt_pkcs7_signer *si, const struct kt_x509 *a)
{
    for (size_t k = 0; k < si->chain_len; k++) {
        const struct kt_x509 *c = si->chain[k];
        if (k > 0 && !may_issue(c))
            return false;
        if (same_der(c, a))
            return true;
        if (a->pub && kt_x509_is_issued_by(c, a) && kt_x509_check_signature(c, a->pub) == 0)
            return may_issue(a);
    }
    return false;
}

static bool all_chain_to(const struct kt_pkcs7 *msg, const struct kt_x509 *a)
{
    for (size_t i = 0; i < msg->n_signers; i++)
        if (!chains_to(&msg->signers[i], a))
            return false;
    return true;
}

/* The one certificate vouching for every signer, as EDK2 looks for it, or
 * NULL.  PK's rule (PK and KEK updates; db and the rest first): the last
 * signer's own certificate (Pkcs7GetSigners' TrustedCert) is the PK, and
 * every signer verifies against it.  The KEK rule (db, dbx, dbt, dbr): one
 * KEK certificate every signer's chain reaches (Pkcs7Verify once per KEK
 * certificate, each signer checked against that one). */
static const struct kt_x509 *authority_for(const struct kt_pkcs7 *msg, bool pk_only,
                                           const struct kt_certset *pk,
                                           const struct kt_certset *kek)
{
    const struct kt_x509 *last = msg->signers[msg->n_signers - 1].signer_cert;
    for (size_t i = 0; last && pk && i < pk->n; i++)
        if (same_der(last, pk->certs[i]) && all_chain_to(msg, pk->certs[i]))
            return pk->certs[i];
    for (size_t i = 0; !pk_only && kek && i < kek->n; i++)
        if (all_chain_to(msg, kek->certs[i]))
            return kek->certs[i];
    return NULL;
}

/* AuthService.c's check before any signature: a two-byte outer length and
 * the SHA-256 OID at byte 13, the first digestAlgorithm of a bare
 * SignedData (a ContentInfo, a SignedData of 64 KiB or more, or another
 * first algorithm fail it). */
static bool edk2_sha256_at_13(kt_span sd)
{
    static const uint8_t sha256[] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01};
    if (sd.len < 13 + sizeof(sha256))
        return true; /* EDK2 skips the check; the parse refuses it */
    return (sd.p[1] & 0x82) == 0x82 && !memcmp(sd.p + 13, sha256, sizeof(sha256));
}

/* edk2-stable202302's check (37d3eb026a): the OID at byte 13, or at byte
 * 32 behind a ContentInfo with a two-byte length. */
static bool edk2_sha256_at_32(kt_span sd)
{
    static const uint8_t sha256[] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01};
    return sd.len >= 32 + sizeof(sha256) && (sd.p[20] & 0x82) == 0x82 &&
           !memcmp(sd.p + 32, sha256, sizeof(sha256));
}

/* A refusal 2022.11 makes and a later EDK2 does not: say both (boot/edk2.h). */
static int refused_until(struct kt_authvar_result *res, int code, size_t off,
                         enum kt_edk2_change c, const char *what)
{
    char note[160];
    res->accepted_from = kt_edk2_accepted_from(c);
    return res->verdict = kt_fail(&res->error, code, off, "%s: %s", what,
                                  kt_edk2_note(c, note, sizeof(note)));
}

/* Did this form of the signed bytes reach past the content check: every
 * signer that carries authenticated attributes has a messageDigest equal to
 * the digest of these bytes (and at least one carries them)?  A failure
 * after that is the real cause, whatever the other form says. */
static bool content_matched(const struct kt_pkcs7 *msg)
{
    bool any = false;
    for (size_t i = 0; i < msg->n_signers; i++) {
        const struct kt_pkcs7_signer *si = &msg->signers[i];
        if (!si->has_auth_attrs)
            continue;
        if (!si->digest_len || si->message_digest.len != si->digest_len ||
            memcmp(si->message_digest.p, si->digest, si->digest_len) != 0)
            return false;
        any = true;
    }
    return any;
}

static int try_attrs(const struct kt_authvar *v, const char *name, const uint8_t *vendor,
                     uint32_t attrs, struct kt_pkcs7 *msg, struct kt_error *e)
{
    uint8_t *data;
    size_t n;
    int rc = kt_authvar_signed(v, name, vendor, attrs, &data, &n);
    if (rc < 0)
        return kt_fail(e, rc, KT_NO_OFFSET, "variable name is not ASCII");
    rc = kt_pkcs7_verify(msg, data, n, NULL, e);
    free(data);
    for (size_t i = 0; rc == 0 && i < msg->n_signers; i++)
        if (msg->signers[i].verify_rc < 0)
            rc = kt_fail(e, msg->signers[i].verify_rc, msg->signers[i].offset,
                         "signerInfo %zu: the signer's certificate is not in the message "
                         "(firmware looks for it there)", i);
    return rc;
}

/* The PKCS#7 as firmware takes it: parsed (wrapped in a ContentInfo when
 * bare), no date rule, SHA-256 signers only, EDK2's fixed-offset check. */
static int parse_message(const struct kt_authvar *v, struct kt_authvar_result *res)
{
    struct kt_error *err = &res->error;
    const uint8_t *p7 = v->pkcs7.p;
    size_t p7len = v->pkcs7.len, prefix = 0;
    if (!v->content_info_wrapped) {
        if (wrap(v->pkcs7, &res->wrapped, &p7len, &prefix) < 0)
            return res->verdict = kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
        p7 = res->wrapped;
    }
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_pkcs7_parse(p7, p7len, &res->msg, &e);
    if (rc < 0) {
        size_t off = e.offset == KT_NO_OFFSET ? KT_NO_OFFSET
                     : e.offset < prefix      ? v->pkcs7_offset
                                              : v->pkcs7_offset + e.offset - prefix;
        return res->verdict = kt_fail(err, rc, off, "PKCS#7: %s", e.what);
    }
    /* firmware (EDK2 Pkcs7Verify: X509_V_FLAG_NO_CHECK_TIME, and OpenSSL's
     * PKCS7_verify has no signingTime rule) checks no date at all: neither
     * the certificates' validity nor the kernel's signingTime rule */
    res->msg->policy.check_time = false;
    res->msg->policy.no_signing_time = true;
    for (size_t i = 0; i < res->msg->n_signers; i++) {
        enum kt_hash h = res->msg->signers[i].digest_alg;
        char what[96];
        kt_fmt(what, sizeof(what), "signerInfo %zu: digest %s", i, kt_hash_name(h));
        if (h == KT_HASH_SHA384 || h == KT_HASH_SHA512)
            return refused_until(res, -ENOPKG, v->pkcs7_offset, KT_EDK2_SHA384_512, what);
        if (h != KT_HASH_SHA256)
            return res->verdict = kt_fail(err, -ENOPKG, v->pkcs7_offset,
                                          "%s: firmware accepts only SHA-256", what);
    }
    if (res->msg->n_signers == 0)
        return res->verdict = kt_fail(err, -EBADMSG, v->pkcs7_offset, "PKCS#7 has no signer");
    if (!edk2_sha256_at_13(v->pkcs7) && edk2_sha256_at_32(v->pkcs7))
        return refused_until(res, -EKEYREJECTED, v->pkcs7_offset, KT_EDK2_CONTENT_INFO,
                             "SignedData in a ContentInfo: EDK2 reads SHA-256's OID at byte 13 "
                             "of a bare SignedData");
    if (!edk2_sha256_at_13(v->pkcs7))
        return res->verdict = kt_fail(err, -EKEYREJECTED, v->pkcs7_offset,
                                      "SignedData: firmware (EDK2) wants a bare SignedData with a "
                                      "two-byte length and SHA-256 first in digestAlgorithms "
                                      "(it reads the OID at byte 13)");
    return 0;
}

/* Which attribute set the signature covers: append (0x67), else replace
 * (0x27); when neither, the real cause (the form whose messageDigest
 * matched, else a failure other than a mismatch, else the first form's). */
static int match_form(const struct kt_authvar *v, const char *name, const uint8_t *vendor,
                      struct kt_authvar_result *res)
{
    struct kt_error *err = &res->error;
    int rc;
    static const uint32_t tries[2] = {KT_EFI_VAR_AUTH_ATTRS | KT_EFI_VAR_APPEND_WRITE,
                                      KT_EFI_VAR_AUTH_ATTRS};
    struct kt_error first = KT_ERROR_INIT;
    int first_t = -1, last_t = -1;
    bool first_matched = false;
    rc = -EKEYREJECTED;
    for (int t = 0; t < 2 && rc < 0; t++) {
        struct kt_error te = KT_ERROR_INIT;
        rc = try_attrs(v, name, vendor, tries[t], res->msg, &te);
        last_t = t;
        bool matched = content_matched(res->msg);
        if (matched && !res->matched_attributes)
            res->matched_attributes = tries[t];
        if (rc == 0)
            res->attributes = tries[t];
        else if (first_t < 0 || (matched && !first_matched) ||
                 (matched == first_matched && te.code != -EKEYREJECTED &&
                  first.code == -EKEYREJECTED)) {
            /* the real cause: the form whose content matched, else a
             * failure other than a mismatch, else the first form's */
            first = te;
            first_t = t;
            first_matched = matched;
        }
    }
    if (rc < 0) {
        /* the signers as the reported form left them (the reasons shown per
         * signature are then the same failure) */
        if (first_t >= 0 && first_t != last_t) {
            struct kt_error again = KT_ERROR_INIT;
            (void)try_attrs(v, name, vendor, tries[first_t], res->msg, &again);
        }
        if (first_matched)
            return res->verdict = kt_fail(err, first.code, first.offset,
                                          "%s (the messageDigest matches the %s (0x%02x) form "
                                          "of %s's signed bytes)", first.what,
                                          first_t == 0 ? "append" : "replace",
                                          (unsigned)tries[first_t], name);
        if (first.code == -EKEYREJECTED)
            return res->verdict = kt_fail(err, -EKEYREJECTED, v->pkcs7_offset,
                                          "the signature covers neither the append (0x67) nor "
                                          "the replace (0x27) form of %s's signed bytes", name);
        return res->verdict = kt_fail(err, first.code, first.offset, "%s", first.what);
    }
    res->append = (res->attributes & KT_EFI_VAR_APPEND_WRITE) != 0;
    return 0;
}

int kt_authvar_check_format(const struct kt_authvar *v, const char *name, struct kt_error *err)
{
    struct kt_authvar_counts c = {0};
    return check_payload(v, name, &c, err);
}

/* Who may write the variable: one PK (PK, KEK) or PK/KEK (db, dbx, dbt,
 * dbr) certificate that vouches for every signer.  Returns 0 or -ENOMEM;
 * *ae says why no authority vouches (code 0 when one does). */
static int authority_check(struct kt_authvar_result *res, const char *name,
                           const struct kt_certset *pk, const struct kt_certset *kek,
                           struct kt_error *ae)
{
    bool pk_rule = !strcmp(name, "PK") || !strcmp(name, "KEK");
    bool any = (pk && pk->n) || (!pk_rule && kek && kek->n);
    res->authority = calloc(res->msg->n_signers, sizeof(*res->authority));
    if (!res->authority)
        return -ENOMEM;
    const struct kt_pkcs7_signer *last = &res->msg->signers[res->msg->n_signers - 1];
    const char *who = last->signer_cert && last->signer_cert->description
                          ? last->signer_cert->description : "the signer";
    const struct kt_x509 *a = any ? authority_for(res->msg, pk_rule, pk, kek) : NULL;
    for (size_t i = 0; i < res->msg->n_signers; i++)
        res->authority[i] = a;
    if (!any)
        kt_fail(ae, -ENOKEY, KT_NO_OFFSET, "no %s%s given: signed by %s, not checked against it",
                pk_rule ? "PK" : "PK or KEK", kt_hint_text(pk_rule ? KT_HINT_PK : KT_HINT_PK_KEK),
                who);
    else if (!a && res->msg->n_signers > 1)
        kt_fail(ae, -ENOKEY, KT_NO_OFFSET,
                "no one %s certificate vouches for all %zu signers (firmware checks every "
                "signer against one certificate; issuers must be CAs)",
                pk_rule ? "PK" : "PK or KEK", res->msg->n_signers);
    else if (!a)
        kt_fail(ae, -ENOKEY, KT_NO_OFFSET,
                pk_rule ? "%s is not the PK (firmware compares the signer's own certificate)"
                        : "no PK or KEK certificate vouches for %s (the PK must be the signer; "
                          "a KEK must be it or issue its chain, every issuer a CA)",
                who);
    return 0;
}

/* The checks after the message is parsed (res->msg, or res->parse_rc). */
static int verify_parsed(const struct kt_authvar *v, const char *name, const uint8_t *vendor,
                         const struct kt_certset *pk, const struct kt_certset *kek,
                         struct kt_authvar_result *res)
{
    struct kt_error *err = &res->error;
    if (!vendor)
        vendor = kt_authvar_vendor(name);
    if (!vendor)
        return res->verdict = kt_fail(err, -EINVAL, KT_NO_OFFSET,
                                      "variable '%s': PK, KEK, db, dbx, dbt or dbr", name);
    struct kt_error pe = KT_ERROR_INIT;
    int prc = check_payload(v, name, &res->counts, &pe);
    res->payload_rc = prc;

    int rc = res->parse_rc;
    if (rc < 0) { /* the same for every name: the message as parsed the first time */
        res->error = res->parse_error;
        return res->verdict = rc;
    }
    rc = match_form(v, name, vendor, res);
    if (rc < 0)
        return rc;
    struct kt_error ae = KT_ERROR_INIT;
    if (authority_check(res, name, pk, kek, &ae) < 0)
        return res->verdict = kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    if (prc < 0) /* signed, but firmware refuses the payload */
        return res->verdict = kt_fail(err, prc, pe.offset, "%s", pe.what);
    if (ae.code)
        return res->verdict = kt_fail(err, ae.code, ae.offset, "%s", ae.what);
    return res->verdict = 0;
}

int kt_authvar_verify(const struct kt_authvar *v, const char *name, const uint8_t *vendor,
                      const struct kt_certset *pk, const struct kt_certset *kek,
                      struct kt_authvar_result *res)
{
    memset(res, 0, sizeof(*res));
    if (!vendor && !kt_authvar_vendor(name))
        return verify_parsed(v, name, vendor, pk, kek, res);
    res->parse_rc = parse_message(v, res);
    res->parse_error = res->error;
    res->error = (struct kt_error)KT_ERROR_INIT;
    return verify_parsed(v, name, vendor, pk, kek, res);
}

int kt_authvar_verify_again(const struct kt_authvar *v, const char *name,
                            const uint8_t *vendor, const struct kt_certset *pk,
                            const struct kt_certset *kek, struct kt_authvar_result *res)
{
    free(res->authority);
    res->authority = NULL;
    res->verdict = 0;
    res->error = (struct kt_error)KT_ERROR_INIT;
    res->attributes = 0;
    res->matched_attributes = 0;
    res->append = false;
    memset(&res->counts, 0, sizeof(res->counts));
    return verify_parsed(v, name, vendor, pk, kek, res);
}

void kt_authvar_result_free(struct kt_authvar_result *res)
{
    if (!res)
        return;
    kt_pkcs7_free(res->msg);
    free(res->wrapped);
    free(res->authority);
    res->msg = NULL;
    res->wrapped = NULL;
    res->authority = NULL;
}

/* ---- authority certificates ------------------------------------------- */

static int certset_push(struct kt_certset *s, const uint8_t *der, size_t len,
                        struct kt_error *err)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        struct kt_x509 **c = realloc(s->certs, cap * sizeof(*c));
        if (!c)
            return -ENOMEM;
        s->certs = c;
        uint8_t **d = realloc(s->ders, cap * sizeof(*d));
        if (!d)
            return -ENOMEM;
        s->ders = d;
        s->cap = cap;
    }
    uint8_t *copy = malloc(len);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, der, len);
    struct kt_x509 *x = NULL;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_x509_parse(copy, len, &x, &e);
    if (rc < 0) {
        free(copy);
        return kt_fail(err, rc, e.offset, "%s", e.what);
    }
    s->certs[s->n] = x;
    s->ders[s->n++] = copy;
    return 0;
}

static int esl_cert(void *ctx, const struct kt_esl_entry *e)
{
    void **a = ctx;
    if (e->type != KT_ESL_X509)
        return 0;
    return certset_push(a[0], e->data.p, e->data.len, a[1]);
}

static int pem_cert(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    void **a = ctx;
    (void)off;
    return certset_push(a[0], der, len, a[1]);
}

int kt_certset_add(struct kt_certset *s, const uint8_t *buf, size_t len, struct kt_error *err)
{
    void *a[2] = {s, err};
    size_t before = s->n;
    int rc;
    if (kt_esl_looks_like(buf, len) || kt_authvar_looks_like(buf, len))
        rc = kt_esl_foreach(buf, len, esl_cert, a, err);
    else
        rc = kt_certs_foreach(buf, len, pem_cert, a, err);
    if (rc < 0)
        return rc;
    if (s->n == before)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "no X.509 certificate in it");
    return 0;
}

void kt_certset_free(struct kt_certset *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        kt_x509_free(s->certs[i]);
        free(s->ders[i]);
    }
    free(s->certs);
    free(s->ders);
    memset(s, 0, sizeof(*s));
}
