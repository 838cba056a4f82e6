/* PKCS#7 / CMS SignedData parser (BER, zero-copy). */
#include "pkcs7/pkcs7.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIGNERS 64
#define MAX_CERTS 256
#define MAX_ATTRS 256

void kt_pkcs7_free(struct kt_pkcs7 *msg)
{
    if (!msg)
        return;
    for (size_t i = 0; i < msg->n_certs; i++)
        kt_x509_free(msg->certs[i]);
    free(msg->certs);
    for (size_t i = 0; i < msg->n_signers; i++) {
        free(msg->signers[i].auth);
        free(msg->signers[i].unauth);
    }
    free(msg->signers);
    free(msg->content_copy);
    free(msg);
}

const struct kt_pkcs7_attr *kt_pkcs7_find_attr(const struct kt_pkcs7_attr *attrs, size_t n,
                                               enum kt_oid oid)
{
    for (size_t i = 0; i < n; i++)
        if (attrs[i].oid == oid)
            return &attrs[i];
    return NULL;
}

/* ---- content ------------------------------------------------------------ */

/* Total length of the primitive segments of a constructed OCTET STRING. */
static int octets_measure(kt_der d, size_t *total, const char *what)
{
    while (!kt_der_empty(&d)) {
        uint32_t tag;
        kt_der c;
        size_t at = kt_der_offset(&d);
        KT_TRY(kt_der_get_any(&d, &tag, &c, NULL));
        if (tag == KT_TAG_OCTET_STRING)
            *total += c.len;
        else if (tag == (KT_TAG_OCTET_STRING | KT_TAG_CONSTRUCTED))
            KT_TRY(octets_measure(c, total, what));
        else
            return kt_fail(d.err, -EBADMSG, at, "%s: segment of a constructed OCTET STRING is not an OCTET STRING", what);
    }
    return 0;
}

static void octets_gather(kt_der d, uint8_t *out, size_t *w)
{
    while (!kt_der_empty(&d)) {
        uint32_t tag;
        kt_der c;
        if (kt_der_get_any(&d, &tag, &c, NULL) < 0)
            return; /* measured before: cannot happen */
        if (tag == KT_TAG_OCTET_STRING) {
            if (c.len)
                memcpy(out + *w, c.p, c.len);
            *w += c.len;
        } else {
            octets_gather(c, out, w);
        }
    }
}

/* ContentInfo ::= SEQUENCE { contentType OID, content [0] EXPLICIT ANY OPTIONAL } */
static int parse_content_info(kt_der *d, struct kt_pkcs7 *msg)
{
    kt_der ci, ex;
    bool present;
    KT_TRY(kt_der_get(d, KT_TAG_SEQUENCE, &ci, "contentInfo"));
    KT_TRY(kt_der_get_oid_id(&ci, &msg->content_type, &msg->content_type_raw,
                             "contentInfo.contentType"));
    KT_TRY(kt_der_get_optional(&ci, KT_CTX_CONS(0), &ex, &present, "contentInfo.content"));
    if (present) {
        uint32_t tag;
        kt_der inner;
        size_t at = kt_der_offset(&ex);
        KT_TRY(kt_der_get_any(&ex, &tag, &inner, &msg->content_tlv));
        KT_TRY(kt_der_expect_end(&ex, "contentInfo.content"));
        msg->has_content = true;
        if (tag == (KT_TAG_OCTET_STRING | KT_TAG_CONSTRUCTED)) {
            size_t total = 0;
            KT_TRY(octets_measure(inner, &total, "contentInfo.content"));
            msg->content_copy = malloc(total ? total : 1);
            if (!msg->content_copy)
                return kt_fail(d->err, -ENOMEM, at, "contentInfo.content: out of memory");
            size_t w = 0;
            octets_gather(inner, msg->content_copy, &w);
            msg->content.p = msg->content_copy;
            msg->content.len = w;
        } else {
            /* OCTET STRING: its content; anything else (SpcIndirectDataContent):
             * the element's content without its own tag and length */
            msg->content = kt_der_rest(&inner);
        }
    }
    return kt_der_expect_end(&ci, "contentInfo");
}

/* ---- certificates ------------------------------------------------------- */

static int add_cert(struct kt_pkcs7 *msg, kt_der *d, struct kt_error *err)
{
    kt_span whole;
    size_t at = kt_der_offset(d);
    KT_TRY(kt_der_get_element(d, KT_TAG_SEQUENCE, &whole, "certificates"));
    if (msg->n_certs >= MAX_CERTS)
        return kt_fail(err, -EBADMSG, at, "certificates: more than %d", MAX_CERTS);
    struct kt_x509 *c = NULL;
    struct kt_error sub = KT_ERROR_INIT;
    int rc = kt_x509_parse(whole.p, whole.len, &c, &sub);
    if (rc < 0) {
        size_t off = sub.offset == KT_NO_OFFSET ? at : at + sub.offset;
        return kt_fail(err, rc, off, "certificate %zu: %s", msg->n_certs,
                       sub.what[0] ? sub.what : "unparsable");
    }
    struct kt_x509 **nv = realloc(msg->certs, (msg->n_certs + 1) * sizeof(*nv));
    if (!nv) {
        kt_x509_free(c);
        return kt_fail(err, -ENOMEM, at, "certificates: out of memory");
    }
    msg->certs = nv;
    msg->certs[msg->n_certs++] = c;
    return 0;
}

/* certSet [0] IMPLICIT SET OF CertificateChoices, or certSequence [2] */
static int parse_certs(kt_der set, struct kt_pkcs7 *msg, struct kt_error *err)
{
    while (!kt_der_empty(&set)) {
        if (kt_der_peek(&set, KT_TAG_SEQUENCE))
            KT_TRY(add_cert(msg, &set, err));
        else /* extendedCertificate [0], attribute certificates [1] [2], other [3] */
            KT_TRY(kt_der_skip_any(&set, "certificates"));
    }
    return 0;
}

/* ---- attributes --------------------------------------------------------- */

static int parse_attrs(kt_der set, struct kt_pkcs7_attr **out, size_t *n, const char *what)
{
    size_t cap = 0;
    while (!kt_der_empty(&set)) {
        struct kt_pkcs7_attr a;
        kt_der seq, vals;
        a.offset = kt_der_offset(&set);
        if (*n >= MAX_ATTRS)
            return kt_fail(set.err, -EBADMSG, a.offset, "%s: too many attributes", what);
        if (!kt_der_peek(&set, KT_TAG_SEQUENCE))
            return kt_fail(set.err, -EBADMSG, a.offset, "%s: attribute is not a SEQUENCE", what);
        KT_TRY(kt_der_get_any(&set, NULL, &seq, &a.whole));
        KT_TRY(kt_der_get_oid_id(&seq, &a.oid, &a.oid_raw, what));
        KT_TRY(kt_der_get(&seq, KT_TAG_SET, &vals, what));
        KT_TRY(kt_der_expect_end(&seq, what));
        a.values = kt_der_rest(&vals);
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            struct kt_pkcs7_attr *nv = realloc(*out, cap * sizeof(*nv));
            if (!nv)
                return kt_fail(set.err, -ENOMEM, a.offset, "%s: out of memory", what);
            *out = nv;
        }
        (*out)[(*n)++] = a;
    }
    return 0;
}

/* The single value of an attribute: exactly one element in its SET. */
static int single_value(const struct kt_pkcs7_attr *a, const uint8_t *base, struct kt_error *err,
                        kt_der *value, const char *what)
{
    kt_der vals;
    kt_der_init(&vals, a->values.p, a->values.len, KT_DER_BER, err);
    vals.base = base;
    *value = vals;
    uint32_t tag;
    KT_TRY(kt_der_get_any(&vals, &tag, NULL, NULL));
    if (!kt_der_empty(&vals))
        return kt_fail(err, -EKEYREJECTED, a->offset, "%s: multivalue attribute not permitted", what);
    return 0;
}

static int check_auth_attrs(struct kt_pkcs7 *msg, struct kt_pkcs7_signer *si, struct kt_error *err)
{
    const uint8_t *base = msg->der.p;
    bool authenticode = msg->content_type == KT_OID_MS_INDIRECT_DATA;
    for (size_t i = 0; i < si->n_auth; i++) {
        const struct kt_pkcs7_attr *a = &si->auth[i];
        kt_der v;
        switch (a->oid) {
        case KT_OID_CONTENT_TYPE:
        case KT_OID_MESSAGE_DIGEST:
        case KT_OID_SIGNING_TIME:
        case KT_OID_SMIME_CAPABILITIES:
        case KT_OID_MS_SP_OPUS_INFO:
        case KT_OID_MS_STATEMENT_TYPE:
            for (size_t j = 0; j < i; j++)
                if (si->auth[j].oid == a->oid)
                    return kt_fail(err, -EKEYREJECTED, a->offset,
                                   "signerInfo %d: repeated authenticated attribute %s",
                                   si->index, kt_oid_name(a->oid));
            break;
        default: break;
        }
        switch (a->oid) {
        case KT_OID_CONTENT_TYPE:
            KT_TRY(single_value(a, base, err, &v, "contentType"));
            KT_TRY(kt_der_get_oid_id(&v, &si->attr_content_type, &si->attr_content_type_raw,
                                     "contentType attribute"));
            if (!kt_span_eq(si->attr_content_type_raw, msg->content_type_raw))
                return kt_fail(err, -EBADMSG, a->offset,
                               "signerInfo %d: contentType attribute differs from the content's type",
                               si->index);
            break;
        case KT_OID_MESSAGE_DIGEST:
            KT_TRY(single_value(a, base, err, &v, "messageDigest"));
            KT_TRY(kt_der_get_octets(&v, &si->message_digest, "messageDigest attribute"));
            break;
        case KT_OID_SIGNING_TIME:
            KT_TRY(single_value(a, base, err, &v, "signingTime"));
            KT_TRY(kt_der_get_time(&v, &si->signing_time, "signingTime attribute"));
            si->has_signing_time = true;
            break;
        case KT_OID_MS_SP_OPUS_INFO:
        case KT_OID_MS_STATEMENT_TYPE:
            if (!authenticode)
                return kt_fail(err, -EKEYREJECTED, a->offset,
                               "signerInfo %d: Authenticode attribute %s outside Authenticode",
                               si->index, kt_oid_name(a->oid));
            break;
        default: break;
        }
    }
    if (!kt_pkcs7_find_attr(si->auth, si->n_auth, KT_OID_CONTENT_TYPE) ||
        !kt_pkcs7_find_attr(si->auth, si->n_auth, KT_OID_MESSAGE_DIGEST))
        return kt_fail(err, -EBADMSG, (size_t)(si->auth_attrs.p - base),
                       "signerInfo %d: authenticated attributes lack contentType or messageDigest",
                       si->index);
    return 0;
}

/* ---- signer infos ------------------------------------------------------- */

static int parse_signer(kt_der *d, struct kt_pkcs7 *msg, struct kt_pkcs7_signer *si,
                        struct kt_error *err)
{
    kt_der s, f;
    bool present;
    uint64_t v;
    si->offset = kt_der_offset(d);
    KT_TRY(kt_der_get(d, KT_TAG_SEQUENCE, &s, "signerInfo"));
    KT_TRY(kt_der_get_uint64(&s, &v, "signerInfo.version"));
    si->version = (int)(v > 99 ? 99 : v);
    /* sid */
    if (kt_der_peek(&s, KT_TAG_SEQUENCE)) {
        kt_der ias;
        KT_TRY(kt_der_get(&s, KT_TAG_SEQUENCE, &ias, "signerInfo.issuerAndSerialNumber"));
        KT_TRY(kt_der_get_element(&ias, KT_TAG_SEQUENCE, &si->issuer_raw, "signerInfo.issuer"));
        KT_TRY(kt_der_get_integer(&ias, &si->serial, "signerInfo.serialNumber"));
        KT_TRY(kt_der_expect_end(&ias, "signerInfo.issuerAndSerialNumber"));
    } else if (kt_der_peek(&s, KT_CTX(0))) {
        KT_TRY(kt_der_get(&s, KT_CTX(0), &f, "signerInfo.subjectKeyIdentifier"));
        si->skid = kt_der_rest(&f);
        if (si->skid.len == 0)
            return kt_fail(err, -EBADMSG, si->offset, "signerInfo %d: empty subjectKeyIdentifier", si->index);
    } else if (kt_der_peek(&s, KT_CTX_CONS(0))) {
        /* BER: a constructed [0] IMPLICIT OCTET STRING; take one primitive segment */
        KT_TRY(kt_der_get(&s, KT_CTX_CONS(0), &f, "signerInfo.subjectKeyIdentifier"));
        KT_TRY(kt_der_get_octets(&f, &si->skid, "signerInfo.subjectKeyIdentifier"));
        KT_TRY(kt_der_expect_end(&f, "signerInfo.subjectKeyIdentifier"));
    } else {
        return kt_fail(err, -EBADMSG, kt_der_offset(&s), "signerInfo.sid: neither issuerAndSerialNumber nor subjectKeyIdentifier");
    }
    /* digestAlgorithm */
    {
        kt_der tmp = s;
        KT_TRY(kt_der_get_element(&tmp, KT_TAG_SEQUENCE, &si->digest_alg_tlv, "signerInfo.digestAlgorithm"));
        KT_TRY(kt_hashalg_parse(&s, &si->digest_alg, "signerInfo.digestAlgorithm"));
    }
    /* authenticatedAttributes [0] IMPLICIT SET OF */
    {
        kt_der tmp = s;
        KT_TRY(kt_der_get_optional(&s, KT_CTX_CONS(0), &f, &present, "signerInfo.authenticatedAttributes"));
        if (present) {
            si->has_auth_attrs = true;
            KT_TRY(kt_der_get_element(&tmp, KT_CTX_CONS(0), &si->auth_attrs, "signerInfo.authenticatedAttributes"));
            KT_TRY(parse_attrs(f, &si->auth, &si->n_auth, "authenticatedAttributes"));
        }
    }
    /* digestEncryptionAlgorithm */
    size_t at = kt_der_offset(&s);
    KT_TRY(kt_sigalg_parse(&s, &si->sig_alg, "signerInfo.digestEncryptionAlgorithm"));
    if (si->sig_alg.pkey == KT_PKEY_UNKNOWN)
        return kt_fail(err, -ENOPKG, at, "signerInfo %d: digestEncryptionAlgorithm names no signature scheme", si->index);
    if (!kt_sigalg_takes_data(&si->sig_alg) && si->sig_alg.hash == KT_HASH_NONE)
        si->sig_alg.hash = si->digest_alg;
    else if (!kt_sigalg_takes_data(&si->sig_alg) && si->sig_alg.enc != KT_SIG_PSS &&
             si->sig_alg.hash != si->digest_alg)
        return kt_fail(err, -EBADMSG, at, "signerInfo %d: signature algorithm's hash differs from digestAlgorithm", si->index);
    /* encryptedDigest */
    if (kt_der_peek(&s, KT_TAG_OCTET_STRING | KT_TAG_CONSTRUCTED)) {
        KT_TRY(kt_der_get(&s, KT_TAG_OCTET_STRING | KT_TAG_CONSTRUCTED, &f, "signerInfo.encryptedDigest"));
        KT_TRY(kt_der_get_octets(&f, &si->signature, "signerInfo.encryptedDigest"));
        KT_TRY(kt_der_expect_end(&f, "signerInfo.encryptedDigest"));
    } else {
        KT_TRY(kt_der_get_octets(&s, &si->signature, "signerInfo.encryptedDigest"));
    }
    if (si->signature.len == 0)
        return kt_fail(err, -EBADMSG, at, "signerInfo %d: empty signature", si->index);
    /* unauthenticatedAttributes [1] IMPLICIT SET OF (or [3] SEQUENCE OF) */
    KT_TRY(kt_der_get_optional(&s, KT_CTX_CONS(1), &f, &present, "signerInfo.unauthenticatedAttributes"));
    if (!present)
        KT_TRY(kt_der_get_optional(&s, KT_CTX_CONS(3), &f, &present, "signerInfo.unauthenticatedAttributes"));
    if (present)
        KT_TRY(parse_attrs(f, &si->unauth, &si->n_unauth, "unauthenticatedAttributes"));
    KT_TRY(kt_der_expect_end(&s, "signerInfo"));
    if (si->has_auth_attrs)
        KT_TRY(check_auth_attrs(msg, si, err));
    return 0;
}

static int parse_signers(kt_der set, struct kt_pkcs7 *msg, struct kt_error *err)
{
    while (!kt_der_empty(&set)) {
        if (msg->n_signers >= MAX_SIGNERS)
            return kt_fail(err, -EBADMSG, kt_der_offset(&set), "signerInfos: more than %d", MAX_SIGNERS);
        struct kt_pkcs7_signer *nv = realloc(msg->signers, (msg->n_signers + 1) * sizeof(*nv));
        if (!nv)
            return kt_fail(err, -ENOMEM, kt_der_offset(&set), "signerInfos: out of memory");
        msg->signers = nv;
        struct kt_pkcs7_signer *si = &msg->signers[msg->n_signers];
        memset(si, 0, sizeof(*si));
        si->index = (int)msg->n_signers;
        si->verify_rc = -ENOKEY;
        si->verdict = -ENOKEY;
        msg->n_signers++;
        KT_TRY(parse_signer(&set, msg, si, err));
    }
    if (msg->n_signers == 0)
        return kt_fail(err, -EBADMSG, kt_der_offset(&set), "signerInfos: no signer");
    return 0;
}

/* ---- SignedData --------------------------------------------------------- */

static int parse_signed_data(kt_der *d, struct kt_pkcs7 *msg, struct kt_error *err)
{
    kt_der sd, f;
    uint64_t v;
    bool present;
    KT_TRY(kt_der_get(d, KT_TAG_SEQUENCE, &sd, "signedData"));
    KT_TRY(kt_der_get_uint64(&sd, &v, "signedData.version"));
    msg->version = (int)(v > 99 ? 99 : v);
    /* digestAlgorithms: SET OF (or SEQUENCE OF); each must be an AlgorithmIdentifier */
    if (kt_der_peek(&sd, KT_TAG_SEQUENCE))
        KT_TRY(kt_der_get(&sd, KT_TAG_SEQUENCE, &f, "signedData.digestAlgorithms"));
    else
        KT_TRY(kt_der_get(&sd, KT_TAG_SET, &f, "signedData.digestAlgorithms"));
    while (!kt_der_empty(&f))
        KT_TRY(kt_der_get(&f, KT_TAG_SEQUENCE, NULL, "signedData.digestAlgorithms"));
    KT_TRY(parse_content_info(&sd, msg));
    /* certificates [0] IMPLICIT SET OF / [2] IMPLICIT SEQUENCE OF */
    KT_TRY(kt_der_get_optional(&sd, KT_CTX_CONS(0), &f, &present, "signedData.certificates"));
    if (!present)
        KT_TRY(kt_der_get_optional(&sd, KT_CTX_CONS(2), &f, &present, "signedData.certificates"));
    if (present)
        KT_TRY(parse_certs(f, msg, err));
    /* crls [1] / [3]: skipped */
    KT_TRY(kt_der_get_optional(&sd, KT_CTX_CONS(1), &f, &present, "signedData.crls"));
    if (!present)
        KT_TRY(kt_der_get_optional(&sd, KT_CTX_CONS(3), &f, &present, "signedData.crls"));
    /* signerInfos: SET OF (or SEQUENCE OF) */
    if (kt_der_peek(&sd, KT_TAG_SEQUENCE))
        KT_TRY(kt_der_get(&sd, KT_TAG_SEQUENCE, &f, "signedData.signerInfos"));
    else
        KT_TRY(kt_der_get(&sd, KT_TAG_SET, &f, "signedData.signerInfos"));
    KT_TRY(parse_signers(f, msg, err));
    return kt_der_expect_end(&sd, "signedData");
}

int kt_pkcs7_parse(const uint8_t *buf, size_t len, struct kt_pkcs7 **out, struct kt_error *err)
{
    *out = NULL;
    struct kt_pkcs7 *msg = calloc(1, sizeof(*msg));
    if (!msg)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    kt_der d, ci, ex;
    enum kt_oid type;
    int rc;
    kt_der_init(&d, buf, len, KT_DER_BER, err);
    if ((rc = kt_der_get_element(&d, KT_TAG_SEQUENCE, &msg->der, "PKCS#7 ContentInfo")) < 0)
        goto fail;
    kt_der_init(&d, buf, len, KT_DER_BER, err);
    if ((rc = kt_der_get(&d, KT_TAG_SEQUENCE, &ci, "PKCS#7 ContentInfo")) < 0)
        goto fail;
    size_t at = kt_der_offset(&ci);
    if ((rc = kt_der_get_oid_id(&ci, &type, NULL, "ContentInfo.contentType")) < 0)
        goto fail;
    if (type != KT_OID_SIGNED_DATA) {
        rc = kt_fail(err, -ENOPKG, at, "ContentInfo.contentType: not signedData");
        goto fail;
    }
    if ((rc = kt_der_get(&ci, KT_CTX_CONS(0), &ex, "ContentInfo.content")) < 0)
        goto fail;
    if ((rc = parse_signed_data(&ex, msg, err)) < 0)
        goto fail;
    if ((rc = kt_der_expect_end(&ex, "ContentInfo.content")) < 0 ||
        (rc = kt_der_expect_end(&ci, "ContentInfo")) < 0)
        goto fail;
    *out = msg;
    return 0;
fail:
    kt_pkcs7_free(msg);
    return rc;
}

/* ---- names -------------------------------------------------------------- */

char *kt_pkcs7_name_string(kt_span name_tlv, char *buf, size_t cap)
{
    size_t w = 0;
    kt_der d, name;
    if (!cap)
        return buf;
    buf[0] = 0;
    kt_der_init(&d, name_tlv.p, name_tlv.len, KT_DER_BER, NULL);
    if (kt_der_get(&d, KT_TAG_SEQUENCE, &name, NULL) < 0)
        return buf;
    while (!kt_der_empty(&name)) {
        kt_der rdn;
        if (kt_der_get(&name, KT_TAG_SET, &rdn, NULL) < 0)
            break;
        while (!kt_der_empty(&rdn)) {
            kt_der atv, val;
            kt_span oid;
            uint32_t tag;
            if (kt_der_get(&rdn, KT_TAG_SEQUENCE, &atv, NULL) < 0 ||
                kt_der_get_oid(&atv, &oid, NULL) < 0 || kt_der_get_any(&atv, &tag, &val, NULL) < 0)
                return buf;
            char dotted[80];
            const char *key = kt_oid_name(kt_oid_lookup(oid));
            if (!key) {
                if (kt_oid_to_dotted(oid, dotted, sizeof(dotted)) < 0)
                    strcpy(dotted, "?");
                key = dotted;
            }
            int n = snprintf(buf + w, cap - w, "%s%s=", w ? ", " : "", key);
            if (n < 0 || (size_t)n >= cap - w)
                return buf;
            w += (size_t)n;
            bool wide = tag == KT_TAG_BMP_STRING;
            for (size_t i = 0; i < val.len && w + 1 < cap; i++) {
                uint8_t c = val.p[i];
                if (wide) {
                    if (i % 2 == 0)
                        continue;
                    if (val.p[i - 1] != 0)
                        c = '?';
                }
                buf[w++] = (c >= 0x20 && c < 0x7f) ? (char)c : (c >= 0x80 ? (char)c : '?');
            }
            buf[w] = 0;
        }
    }
    return buf;
}
