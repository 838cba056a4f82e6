/* Authenticode timestamps, verified offline against the signature they
 * cover: RFC 3161 tokens (unauthenticated attribute 1.3.6.1.4.1.311.3.3.1,
 * a SignedData over TSTInfo whose messageImprint hashes the outer
 * encryptedDigest) and legacy PKCS#9 countersignatures (1.2.840.113549.1.9.6,
 * a SignerInfo whose messageDigest attribute hashes the outer encryptedDigest). */
#include "pe/pe_int.h"

#include <stdlib.h>
#include <string.h>

/* TSTInfo ::= SEQUENCE { version INTEGER, policy OID, messageImprint
 *   SEQUENCE { hashAlgorithm AlgorithmIdentifier, hashedMessage OCTET STRING },
 *   serialNumber INTEGER, genTime GeneralizedTime, ... } */
static int check_tstinfo(kt_span tst, const uint8_t *base, kt_span covered, int64_t *gen_time,
                         struct kt_error *err)
{
    kt_der d, info, imprint;
    kt_der_init(&d, tst.p, tst.len, KT_DER_BER, err);
    if (base)
        d.base = base;
    KT_TRY(kt_der_get(&d, KT_TAG_SEQUENCE, &info, "TSTInfo"));
    uint64_t ver;
    kt_span oid, serial, hashed;
    enum kt_hash h;
    KT_TRY(kt_der_get_uint64(&info, &ver, "TSTInfo.version"));
    KT_TRY(kt_der_get_oid(&info, &oid, "TSTInfo.policy"));
    KT_TRY(kt_der_get(&info, KT_TAG_SEQUENCE, &imprint, "TSTInfo.messageImprint"));
    KT_TRY(kt_hashalg_parse(&imprint, &h, "messageImprint.hashAlgorithm"));
    size_t off = kt_der_offset(&imprint);
    KT_TRY(kt_der_get_octets(&imprint, &hashed, "messageImprint.hashedMessage"));
    KT_TRY(kt_der_get_integer(&info, &serial, "TSTInfo.serialNumber"));
    KT_TRY(kt_der_get_time(&info, gen_time, "TSTInfo.genTime"));
    uint8_t md[KT_HASH_MAX_SIZE];
    if (kt_digest(h, covered.p, covered.len, md) < 0)
        return kt_fail(err, -ENOPKG, off, "timestamp: %s imprint not supported", kt_hash_name(h));
    if (hashed.len != kt_hash_size(h) || memcmp(md, hashed.p, hashed.len) != 0)
        return kt_fail(err, -EKEYREJECTED, off,
                       "timestamp: messageImprint does not match the signature it covers");
    return 0;
}

static void rfc3161(struct kt_pe_signature *sig, const struct kt_pkcs7_signer *s,
                    const struct kt_pkcs7_attr *a, const uint8_t *base,
                    const struct kt_trust_set *trust)
{
    struct kt_pe_timestamp *ts = &sig->timestamp;
    struct kt_error *err = &ts->error;
    ts->kind = KT_PE_TS_RFC3161;
    kt_der v;
    kt_span tok;
    uint32_t tag;
    kt_der_init(&v, a->values.p, a->values.len, KT_DER_BER, err);
    v.base = base;
    int rc = kt_der_get_any(&v, &tag, NULL, &tok);
    if (rc == 0)
        rc = kt_pkcs7_parse(tok.p, tok.len, &sig->ts_msg, err);
    if (rc < 0) {
        ts->verify_rc = rc;
        return;
    }
    struct kt_pkcs7 *m = sig->ts_msg;
    m->policy.allow_sha1 = true; /* reported, not a verdict: old TSAs use SHA-1 */
    if (m->content_type != KT_OID_CT_TST_INFO || !m->has_content || m->n_signers == 0) {
        ts->verify_rc = kt_fail(err, -EBADMSG, a->offset,
                                "timestamp token: not a signed TSTInfo");
        return;
    }
    rc = kt_pkcs7_verify(m, NULL, 0, trust->all, err);
    if (m->signers[0].signer_cert)
        ts->signer = m->signers[0].signer_cert;
    if (rc == 0)
        rc = check_tstinfo(m->content, NULL, s->signature, &ts->time, err);
    ts->verify_rc = rc;
    if (rc < 0)
        return;
    struct kt_error terr = KT_ERROR_INIT;
    ts->trust_rc = kt_pkcs7_validate_trust_set(m, trust, &terr);
    ts->trusted_by = m->signers[0].trusted_by;
}

static bool same_integer(kt_span a, kt_span b)
{
    return kt_span_eq(kt_integer_magnitude(a), kt_integer_magnitude(b));
}

/* A countersignature's authenticated attributes (auth_tlv, tagged [0]):
 * its messageDigest into *md, its signingTime into ts->time. */
static int counter_attrs(kt_span auth_tlv, const uint8_t *base, struct kt_pe_timestamp *ts,
                         kt_span *md)
{
    struct kt_error *err = &ts->error;
    kt_der ad, attrs;
    kt_der_init(&ad, auth_tlv.p, auth_tlv.len, KT_DER_BER, err);
    ad.base = base;
    int rc = kt_der_get(&ad, KT_CTX_CONS(0), &attrs, "authenticatedAttributes");
    while (!rc && !kt_der_empty(&attrs)) {
        kt_der at, vals;
        enum kt_oid id;
        rc = kt_der_get(&attrs, KT_TAG_SEQUENCE, &at, "attribute");
        if (!rc) rc = kt_der_get_oid_id(&at, &id, NULL, "attribute.type");
        if (!rc) rc = kt_der_get(&at, KT_TAG_SET, &vals, "attribute.values");
        if (!rc && id == KT_OID_MESSAGE_DIGEST)
            rc = kt_der_get_octets(&vals, md, "messageDigest");
        else if (!rc && id == KT_OID_SIGNING_TIME)
            rc = kt_der_get_time(&vals, &ts->time, "signingTime");
    }
    return rc;
}

/* The countersigner's certificate: in the message, else a key of the set. */
static const struct kt_x509 *counter_signer(const struct kt_pe_signature *sig,
                                            const struct kt_trust_set *trust, kt_span issuer,
                                            kt_span serial)
{
    for (size_t i = 0; i < sig->msg->n_certs; i++) {
        const struct kt_x509 *c = sig->msg->certs[i];
        if (kt_span_eq(c->issuer_raw, issuer) && same_integer(c->serial, serial))
            return c;
    }
    if (trust->all) {
        const struct kt_key *k = kt_keyrings_find_cert(trust->all, issuer, serial, (kt_span){0});
        if (k)
            return k->cert;
    }
    return NULL;
}

/* Trust: the countersigner itself, or its issuer, is a key of the search set. */
static void counter_trust(struct kt_pe_timestamp *ts, const struct kt_x509 *cert,
                          const struct kt_trust_set *trust)
{
    struct kt_key_ids self = {.issuer = cert->issuer_raw, .serial = cert->serial};
    const struct kt_key *k = kt_trust_set_find(trust, &self);
    if (!k && cert->akid_keyid.len) {
        struct kt_key_ids by_skid = {.skid = cert->akid_keyid};
        const struct kt_key *i = kt_trust_set_find(trust, &by_skid);
        if (i && i->cert->pub && kt_x509_check_signature(cert, i->cert->pub) == 0)
            k = i;
    }
    ts->trusted_by = k;
    ts->trust_rc = k ? 0 : -ENOKEY;
}

/* A legacy countersignature: a SignerInfo over the outer signature bytes. */
static void countersig(struct kt_pe_signature *sig, const struct kt_pkcs7_signer *s,
                       const struct kt_pkcs7_attr *a, const uint8_t *base,
                       const struct kt_trust_set *trust)
{
    struct kt_pe_timestamp *ts = &sig->timestamp;
    struct kt_error *err = &ts->error;
    ts->kind = KT_PE_TS_COUNTERSIG;
    kt_der v, si, ias;
    kt_der_init(&v, a->values.p, a->values.len, KT_DER_BER, err);
    v.base = base;
    uint64_t ver;
    kt_span issuer, serial, auth_tlv = {0}, sigbytes, md = {0};
    enum kt_hash h;
    struct kt_sigalg alg;
    bool has_auth;
    int rc = kt_der_get(&v, KT_TAG_SEQUENCE, &si, "countersignature");
    if (!rc) rc = kt_der_get_uint64(&si, &ver, "countersignature.version");
    if (!rc) rc = kt_der_get(&si, KT_TAG_SEQUENCE, &ias, "countersignature.issuerAndSerialNumber");
    if (!rc) rc = kt_der_get_element(&ias, KT_TAG_SEQUENCE, &issuer, "issuer");
    if (!rc) rc = kt_der_get_integer(&ias, &serial, "serialNumber");
    if (!rc) rc = kt_hashalg_parse(&si, &h, "countersignature.digestAlgorithm");
    if (!rc) {
        has_auth = kt_der_peek(&si, KT_CTX_CONS(0));
        if (!has_auth)
            rc = kt_fail(err, -EBADMSG, kt_der_offset(&si),
                         "countersignature: no authenticated attributes");
        else
            rc = kt_der_get_element(&si, KT_CTX_CONS(0), &auth_tlv, "authenticatedAttributes");
    }
    if (!rc) rc = kt_sigalg_parse(&si, &alg, "countersignature.digestEncryptionAlgorithm");
    if (!rc) rc = kt_der_get_octets(&si, &sigbytes, "countersignature.encryptedDigest");
    if (rc < 0) {
        ts->verify_rc = rc;
        return;
    }
    rc = counter_attrs(auth_tlv, base, ts, &md);
    if (rc < 0) {
        ts->verify_rc = rc;
        return;
    }
    const struct kt_x509 *cert = counter_signer(sig, trust, issuer, serial);
    ts->signer = cert;
    uint8_t want[KT_HASH_MAX_SIZE];
    if (kt_digest(h, s->signature.p, s->signature.len, want) < 0) {
        ts->verify_rc = kt_fail(err, -ENOPKG, a->offset, "countersignature: %s not supported",
                                kt_hash_name(h));
        return;
    }
    if (md.len != kt_hash_size(h) || memcmp(md.p, want, md.len) != 0) {
        ts->verify_rc = kt_fail(err, -EKEYREJECTED, a->offset,
                                "countersignature: messageDigest does not match the signature "
                                "it covers");
        return;
    }
    if (!cert || !cert->pub) {
        ts->verify_rc = kt_fail(err, cert ? -ENOPKG : -ENOKEY, a->offset,
                                "countersignature: signer certificate %s",
                                cert ? "has an unsupported key" : "not in the message");
        return;
    }
    uint8_t *set = malloc(auth_tlv.len);
    if (!set) {
        ts->verify_rc = -ENOMEM;
        return;
    }
    memcpy(set, auth_tlv.p, auth_tlv.len);
    set[0] = 0x31;
    if (alg.hash == KT_HASH_NONE)
        alg.hash = h;
    rc = kt_pubkey_verify(cert->pub, &alg, set, auth_tlv.len, sigbytes.p, sigbytes.len);
    free(set);
    if (rc < 0) {
        ts->verify_rc = kt_fail(err, rc, a->offset, "countersignature: signature %s",
                                rc == -EKEYREJECTED ? "does not verify" : "not supported");
        return;
    }
    ts->verify_rc = 0;
    counter_trust(ts, cert, trust);
}

void kt_pe_check_timestamp(struct kt_pe_signature *sig, const uint8_t *base,
                           const struct kt_trust_set *trust)
{
    if (!sig->msg || sig->msg->n_signers == 0)
        return;
    const struct kt_pkcs7_signer *s = &sig->msg->signers[0];
    const struct kt_pkcs7_attr *a = kt_pkcs7_find_attr(s->unauth, s->n_unauth,
                                                       KT_OID_MS_RFC3161_TIMESTAMP);
    if (a) {
        rfc3161(sig, s, a, base, trust);
        return;
    }
    a = kt_pkcs7_find_attr(s->unauth, s->n_unauth, KT_OID_COUNTER_SIGNATURE);
    if (a)
        countersig(sig, s, a, base, trust);
}
