/* X.509 certificate parsing (strict DER), the kernel's key description and
 * self-signature rules.  Grammar: RFC 5280 section 4.1. */
#include <stdlib.h>
#include <string.h>

#include "der/oid.h"
#include "x509/sig_cache.h"
#include "x509/x509.h"
#include "x509/x509_int.h"

/* ---- extensions ---------------------------------------------------------- */

static int parse_akid(kt_der *v, struct kt_x509 *c)
{
    kt_der seq, f;
    bool present;
    /* a repeated AKID replaces the earlier one whole, as in the kernel */
    c->akid_keyid = c->akid_issuer = c->akid_serial = (kt_span){0};
    KT_TRY(kt_der_get(v, KT_TAG_SEQUENCE, &seq, "authorityKeyIdentifier"));
    KT_TRY(kt_der_get_optional(&seq, KT_CTX(0), &f, &present, "authorityKeyIdentifier: keyIdentifier"));
    if (present)
        c->akid_keyid = kt_der_rest(&f);
    KT_TRY(kt_der_get_optional(&seq, KT_CTX_CONS(1), &f, &present,
                               "authorityKeyIdentifier: authorityCertIssuer"));
    if (present) {
        /* GeneralNames: take the (last) directoryName [4] EXPLICIT Name */
        while (!kt_der_empty(&f)) {
            uint32_t tag;
            kt_der gn;
            KT_TRY(kt_der_get_any(&f, &tag, &gn, NULL));
            if (tag == KT_CTX_CONS(4)) {
                kt_span name;
                KT_TRY(kt_der_get_element(&gn, KT_TAG_SEQUENCE, &name,
                                          "authorityKeyIdentifier: directoryName"));
                KT_TRY(kt_der_expect_end(&gn, "authorityKeyIdentifier: directoryName"));
                c->akid_issuer = name;
            }
        }
    }
    KT_TRY(kt_der_get_optional(&seq, KT_CTX(2), &f, &present,
                               "authorityKeyIdentifier: authorityCertSerialNumber"));
    if (present) {
        if (kt_der_empty(&f))
            return kt_fail(v->err, -EBADMSG, kt_der_offset(&f),
                           "authorityKeyIdentifier: empty serial number");
        c->akid_serial = kt_der_rest(&f);
    }
    KT_TRY(kt_der_expect_end(&seq, "authorityKeyIdentifier"));
    return kt_der_expect_end(v, "authorityKeyIdentifier");
}

static int parse_basic_constraints(kt_der *v, struct kt_x509 *c)
{
    kt_der seq;
    KT_TRY(kt_der_get(v, KT_TAG_SEQUENCE, &seq, "basicConstraints"));
    c->has_basic_constraints = true;
    c->is_ca = false;
    c->path_len = -1;
    if (kt_der_peek(&seq, KT_TAG_BOOLEAN))
        KT_TRY(kt_der_get_bool(&seq, &c->is_ca, "basicConstraints: cA"));
    if (kt_der_peek(&seq, KT_TAG_INTEGER)) {
        uint64_t n;
        KT_TRY(kt_der_get_uint64(&seq, &n, "basicConstraints: pathLenConstraint"));
        c->path_len = n > 0x7fffffff ? 0x7fffffff : (int)n;
    }
    KT_TRY(kt_der_expect_end(&seq, "basicConstraints"));
    return kt_der_expect_end(v, "basicConstraints");
}

static int parse_key_usage(kt_der *v, struct kt_x509 *c)
{
    kt_span bits;
    unsigned unused;
    KT_TRY(kt_der_get_bitstring(v, &bits, &unused, "keyUsage"));
    c->has_key_usage = true;
    c->key_usage = 0;
    for (size_t i = 0; i < bits.len && i < 2; i++)
        for (unsigned b = 0; b < 8; b++)
            if (bits.p[i] & (0x80u >> b))
                c->key_usage |= (uint16_t)(1u << (i * 8 + b));
    return kt_der_expect_end(v, "keyUsage");
}

static uint32_t eku_bit(enum kt_oid o)
{
    switch (o) {
    case KT_OID_EKU_ANY: return KT_EKU_ANY;
    case KT_OID_EKU_SERVER_AUTH: return KT_EKU_SERVER_AUTH;
    case KT_OID_EKU_CLIENT_AUTH: return KT_EKU_CLIENT_AUTH;
    case KT_OID_EKU_CODE_SIGNING: return KT_EKU_CODE_SIGNING;
    case KT_OID_EKU_EMAIL_PROTECTION: return KT_EKU_EMAIL;
    case KT_OID_EKU_TIME_STAMPING: return KT_EKU_TIME_STAMPING;
    case KT_OID_EKU_MS_KERNEL_MODE_CODE: return KT_EKU_MS_KERNEL_MODE;
    case KT_OID_EKU_MS_UEFI_CA: return KT_EKU_MS_UEFI_CA;
    case KT_OID_EKU_MS_WINDOWS: return KT_EKU_MS_WINDOWS;
    case KT_OID_EKU_MODULE_SIGNING: return KT_EKU_MODULE_SIGNING;
    default: return KT_EKU_OTHER;
    }
}

static int parse_eku(kt_der *v, struct kt_x509 *c)
{
    kt_der seq;
    KT_TRY(kt_der_get(v, KT_TAG_SEQUENCE, &seq, "extKeyUsage"));
    c->has_eku = true;
    c->eku = 0;
    while (!kt_der_empty(&seq)) {
        enum kt_oid o;
        KT_TRY(kt_der_get_oid_id(&seq, &o, NULL, "extKeyUsage: KeyPurposeId"));
        c->eku |= eku_bit(o);
    }
    return kt_der_expect_end(v, "extKeyUsage");
}

static int parse_extensions(kt_der *exts, struct kt_x509 *c)
{
    kt_der list;
    KT_TRY(kt_der_get(exts, KT_TAG_SEQUENCE, &list, "extensions"));
    KT_TRY(kt_der_expect_end(exts, "extensions"));
    if (kt_der_empty(&list))
        return kt_fail(exts->err, -EBADMSG, kt_der_offset(&list), "extensions: empty list");
    while (!kt_der_empty(&list)) {
        kt_der ext, val;
        enum kt_oid o;
        bool critical = false;
        kt_span octets;
        KT_TRY(kt_der_get(&list, KT_TAG_SEQUENCE, &ext, "Extension"));
        KT_TRY(kt_der_get_oid_id(&ext, &o, NULL, "Extension: extnID"));
        if (kt_der_peek(&ext, KT_TAG_BOOLEAN))
            KT_TRY(kt_der_get_bool(&ext, &critical, "Extension: critical"));
        /* extnValue: an OCTET STRING wrapping the extension's own DER */
        KT_TRY(kt_der_get(&ext, KT_TAG_OCTET_STRING, &val, "Extension: extnValue"));
        KT_TRY(kt_der_expect_end(&ext, "Extension"));
        switch (o) {
        case KT_OID_SUBJECT_KEY_ID: {
            /* The kernel takes the extnValue as 04 LL <LL bytes>, checking
             * only that the second byte equals the length minus 2 (so a
             * long-form length is refused, except 04 81 80 + 128 bytes where
             * the check happens to hold and the id starts at the 80).  An
             * empty or repeated SKID is refused. */
            kt_span v = kt_der_rest(&val);
            size_t at = kt_der_offset(&val);
            if (c->skid.len)
                return kt_fail(val.err, -EBADMSG, at, "subjectKeyIdentifier: repeated");
            if (v.len < 3 || v.p[0] != KT_TAG_OCTET_STRING || v.p[1] != v.len - 2)
                return kt_fail(val.err, -EBADMSG, at,
                               v.len == 2 ? "subjectKeyIdentifier: empty"
                                          : "subjectKeyIdentifier: not an OCTET STRING of at most 127 bytes");
            KT_TRY(kt_der_get_octets(&val, &octets, "subjectKeyIdentifier"));
            KT_TRY(kt_der_expect_end(&val, "subjectKeyIdentifier"));
            c->skid = (kt_span){v.p + 2, v.len - 2};
            break;
        }
        case KT_OID_AUTH_KEY_ID: KT_TRY(parse_akid(&val, c)); break;
        case KT_OID_BASIC_CONSTRAINTS: KT_TRY(parse_basic_constraints(&val, c)); break;
        case KT_OID_KEY_USAGE: KT_TRY(parse_key_usage(&val, c)); break;
        case KT_OID_EXT_KEY_USAGE: KT_TRY(parse_eku(&val, c)); break;
        case KT_OID_SUBJECT_ALT_NAME:
        case KT_OID_ISSUER_ALT_NAME:
        case KT_OID_CERT_POLICIES:
            break; /* understood, not used by the kernel's trust decisions */
        default:
            if (critical)
                c->unknown_critical = true;
        }
    }
    return 0;
}

/* ---- the kernel's description -------------------------------------------- */

/* The kernel builds the name from the raw value bytes of the subject's last
 * CN, O and emailAddress attributes (no character-set conversion), and the
 * description stops at the first NUL byte (it is a C string there too). */
static char *make_description(const struct kt_x509 *c, const struct kt_x509_name *n)
{
    struct kt_sb sb = {0};
    kt_span cn = n->cn, o = n->o;
    if (cn.len && o.len) {
        bool cn_only = (cn.len >= o.len && memcmp(cn.p, o.p, o.len) == 0) ||
                       (cn.len >= 7 && o.len >= 7 && memcmp(cn.p, o.p, 7) == 0);
        if (!cn_only) {
            kt_sb_putn(&sb, o.p, o.len);
            kt_sb_puts(&sb, ": ");
        }
        kt_sb_putn(&sb, cn.p, cn.len);
    } else if (cn.len) {
        kt_sb_putn(&sb, cn.p, cn.len);
    } else if (o.len) {
        kt_sb_putn(&sb, o.p, o.len);
    } else if (n->email.len) {
        kt_sb_putn(&sb, n->email.p, n->email.len);
    }
    if (sb.s)
        sb.len = strnlen(sb.s, sb.len);
    kt_sb_puts(&sb, ": ");
    kt_span id = c->skid.len ? c->skid : c->serial;
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < id.len; i++) {
        char h[2] = {hx[id.p[i] >> 4], hx[id.p[i] & 15]};
        kt_sb_putn(&sb, h, 2);
    }
    return kt_sb_take(&sb);
}

/* ---- signature checks ---------------------------------------------------- */

int kt_x509_check_signature(const struct kt_x509 *cert, const struct kt_pubkey *issuer_key)
{
    if (!cert || !issuer_key)
        return -EINVAL;
    if (cert->sig_alg.unsupported)
        return -ENOPKG;
    /* each link once per run: the answer depends only on the certificate's
     * bytes and the key's, so it is remembered by their hashes */
    uint8_t key_id[32];
    bool cacheable = kt_pubkey_id(issuer_key, key_id) == 0;
    int rc;
    if (cacheable && kt_sig_cache_get(cert->sha256, key_id, &rc))
        return rc;
    rc = kt_pubkey_verify(issuer_key, &cert->sig_alg, cert->tbs.p, cert->tbs.len, cert->sig.p,
                          cert->sig.len);
    if (cacheable && rc != -ENOMEM)
        kt_sig_cache_put(cert->sha256, key_id, rc);
    return rc;
}

bool kt_x509_is_issued_by(const struct kt_x509 *cert, const struct kt_x509 *issuer)
{
    if (!cert || !issuer)
        return false;
    bool have_akid = cert->akid_keyid.len || (cert->akid_issuer.len && cert->akid_serial.len);
    if (!have_akid)
        return kt_span_eq(cert->issuer_raw, issuer->subject_raw);
    if (cert->akid_keyid.len && issuer->skid.len && kt_span_eq(cert->akid_keyid, issuer->skid))
        return true;
    if (cert->akid_issuer.len && cert->akid_serial.len &&
        kt_span_eq(cert->akid_issuer, issuer->issuer_raw) &&
        kt_span_eq(cert->akid_serial, issuer->serial))
        return true;
    return false;
}

/* As the kernel: subject == issuer; an AKID, if present, must name the
 * certificate itself (if it has both parts, both must); then the signature
 * must verify with the certificate's own key. */
static int check_self_signed(struct kt_x509 *c, struct kt_error *err)
{
    if (!kt_span_eq(c->subject_raw, c->issuer_raw))
        return 0;
    bool has_keyid = c->akid_keyid.len > 0;
    bool has_id = c->akid_issuer.len > 0 && c->akid_serial.len > 0;
    if (has_keyid || has_id) {
        bool a = has_keyid && c->skid.len && kt_span_eq(c->akid_keyid, c->skid);
        bool b = has_id && kt_span_eq(c->akid_issuer, c->issuer_raw) &&
                 kt_span_eq(c->akid_serial, c->serial);
        if (!a && !b)
            return 0;
        if (has_keyid && has_id && a != b)
            return kt_fail(err, -EKEYREJECTED, KT_NO_OFFSET,
                           "self-signed certificate: authorityKeyIdentifier parts disagree");
    }
    c->self_signed = true;
    if (c->sig_alg.pkey != KT_PKEY_UNKNOWN && c->key_algo != KT_PKEY_UNKNOWN &&
        c->sig_alg.pkey != c->key_algo)
        return kt_fail(err, -EKEYREJECTED, KT_NO_OFFSET,
                       "self-signed certificate: signature algorithm does not match its key");
    if (!c->pub || c->sig_alg.unsupported) {
        c->sig_unsupported = true;
        return 0;
    }
    int rc = kt_x509_check_signature(c, c->pub);
    if (rc == -ENOPKG) {
        c->sig_unsupported = true;
        return 0;
    }
    if (rc < 0)
        return kt_fail(err, rc == -ENOMEM ? rc : -EKEYREJECTED, KT_NO_OFFSET,
                       "self-signed certificate: signature does not verify with its own key");
    return 0;
}

/* ---- the certificate ----------------------------------------------------- */

static int digits2(const uint8_t *p)
{
    if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9')
        return -1;
    return (p[0] - '0') * 10 + (p[1] - '0');
}

/* Validity times as the kernel reads them: UTCTime exactly YYMMDDHHMMSSZ,
 * GeneralizedTime exactly YYYYMMDDHHMMSSZ and only for years from 2050 (RFC
 * 5280), hour 24 allowed (it rolls over into the next day). */
static int get_cert_time(kt_der *d, int64_t *t, const char *what)
{
    uint32_t tag;
    kt_der c;
    size_t at = kt_der_offset(d);
    if (kt_der_peek_tag(d, &tag) < 0 || (tag != KT_TAG_UTC_TIME && tag != KT_TAG_GENERALIZED_TIME))
        return kt_fail(d->err, -EBADMSG, at, "%s: expected UTCTime or GeneralizedTime", what);
    KT_TRY(kt_der_get(d, tag, &c, what));
    kt_span s = kt_der_rest(&c);
    size_t want = tag == KT_TAG_UTC_TIME ? 13 : 15;
    if (s.len != want)
        return kt_fail(d->err, -EBADMSG, at, "%s: %s must be %s", what,
                       tag == KT_TAG_UTC_TIME ? "UTCTime" : "GeneralizedTime",
                       tag == KT_TAG_UTC_TIME ? "YYMMDDHHMMSSZ" : "YYYYMMDDHHMMSSZ");
    size_t y = tag == KT_TAG_UTC_TIME ? 2 : 4;
    if (tag == KT_TAG_GENERALIZED_TIME) {
        int hi = digits2(s.p), lo = digits2(s.p + 2);
        if (hi >= 0 && lo >= 0 && hi * 100 + lo < 2050)
            return kt_fail(d->err, -EBADMSG, at,
                           "%s: GeneralizedTime for a year before 2050", what);
    }
    uint8_t buf[15];
    memcpy(buf, s.p, s.len);
    int64_t extra = 0;
    if (digits2(buf + y + 4) == 24) {
        buf[y + 4] = buf[y + 5] = '0';
        extra = 86400;
    }
    if (kt_der_parse_time(tag, (kt_span){buf, s.len}, t) < 0)
        return kt_fail(d->err, -EBADMSG, at, "%s: malformed time", what);
    *t += extra;
    return 0;
}

/* An AlgorithmIdentifier, tolerating unknown algorithms (marked unsupported). */
static int parse_alg(kt_der *d, struct kt_sigalg *alg, kt_span *raw, const char *what)
{
    kt_der sub = *d;
    KT_TRY(kt_der_get_element(d, KT_TAG_SEQUENCE, raw, what));
    sub.len = raw->len;
    sub.err = NULL;
    int rc = kt_sigalg_parse(&sub, alg, what);
    if (rc == -ENOPKG) {
        memset(alg, 0, sizeof(*alg));
        alg->unsupported = true;
        return 0;
    }
    if (rc < 0) {
        sub = *d;
        sub.p = raw->p;
        sub.len = raw->len;
        return kt_sigalg_parse(&sub, alg, what); /* again, to record the detail */
    }
    /* a bare key OID (rsaEncryption, id-ecPublicKey) names no hash */
    if (alg->hash == KT_HASH_NONE && !kt_sigalg_takes_data(alg))
        alg->unsupported = true;
    if (alg->pkey == KT_PKEY_UNKNOWN || !kt_pkey_algo_available(alg->pkey))
        alg->unsupported = true;
    if (!alg->unsupported && !kt_sigalg_takes_data(alg) && !kt_hash_available(alg->hash))
        alg->unsupported = true;
    return 0;
}

static enum kt_pkey_algo key_algo_of_spki(kt_span spki)
{
    kt_der d, seq, alg;
    enum kt_oid o;
    kt_der_init(&d, spki.p, spki.len, KT_DER_STRICT, NULL);
    if (kt_der_get(&d, KT_TAG_SEQUENCE, &seq, NULL) < 0 ||
        kt_der_get(&seq, KT_TAG_SEQUENCE, &alg, NULL) < 0 ||
        kt_der_get_oid_id(&alg, &o, NULL, NULL) < 0)
        return KT_PKEY_UNKNOWN;
    switch (o) {
    case KT_OID_RSA_ENCRYPTION:
    case KT_OID_RSASSA_PSS: return KT_PKEY_RSA;
    case KT_OID_EC_PUBLIC_KEY: return KT_PKEY_ECDSA;
    case KT_OID_ED25519: return KT_PKEY_ED25519;
    case KT_OID_ML_DSA_44: return KT_PKEY_MLDSA44;
    case KT_OID_ML_DSA_65: return KT_PKEY_MLDSA65;
    case KT_OID_ML_DSA_87: return KT_PKEY_MLDSA87;
    default: return KT_PKEY_UNKNOWN;
    }
}

static int parse_spki(kt_der *tbs, struct kt_x509 *c, struct kt_error *err)
{
    kt_der spki_d = *tbs, seq, alg;
    kt_span bits;
    unsigned unused;
    KT_TRY(kt_der_get_element(tbs, KT_TAG_SEQUENCE, &c->spki, "subjectPublicKeyInfo"));
    spki_d.len = c->spki.len;
    KT_TRY(kt_der_get(&spki_d, KT_TAG_SEQUENCE, &seq, "subjectPublicKeyInfo"));
    KT_TRY(kt_der_get(&seq, KT_TAG_SEQUENCE, &alg, "subjectPublicKeyInfo: algorithm"));
    KT_TRY(kt_der_get_oid(&alg, &bits, "subjectPublicKeyInfo: algorithm"));
    KT_TRY(kt_der_get_bitstring(&seq, &bits, &unused, "subjectPublicKeyInfo: subjectPublicKey"));
    KT_TRY(kt_der_expect_end(&seq, "subjectPublicKeyInfo"));
    c->key_algo = key_algo_of_spki(c->spki);
    if (c->key_algo == KT_PKEY_UNKNOWN)
        return 0;
    /* ML-DSA: the key is its bytes (FIPS 204 pkEncode), of one size per
     * parameter set; the kernel's mldsa refuses another size */
    size_t want = kt_mldsa_pubkey_len(c->key_algo);
    if (want && (bits.len != want || unused))
        return kt_fail(err, -EBADMSG, kt_der_offset(&seq),
                       "subjectPublicKeyInfo: an %s public key is %zu bytes, this one %zu",
                       kt_mldsa_title(c->key_algo), want, bits.len);
    struct kt_error e2 = KT_ERROR_INIT;
    int rc = kt_pubkey_from_spki(c->spki, &c->pub, &e2);
    if (rc == -ENOMEM)
        return kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    if (rc < 0) {
        c->pub = NULL; /* an ML-DSA key stays known by its parameter set */
        c->key_algo = want ? c->key_algo : KT_PKEY_UNKNOWN;
        return 0;
    }
    c->key_algo = kt_pubkey_algo(c->pub);
    c->key_bits = want ? 0 : kt_pubkey_bits(c->pub); /* ML-DSA: the parameter set says */
    return 0;
}

static int parse_tbs(kt_der *tbs, struct kt_x509 *c, struct kt_x509_name *subj,
                     kt_span *tbs_alg_raw, struct kt_error *err)
{
    kt_der f;
    bool present;
    struct kt_sigalg tbs_alg;
    size_t at = kt_der_offset(tbs);
    KT_TRY(kt_der_get_optional(tbs, KT_CTX_CONS(0), &f, &present, "version"));
    c->version = 1;
    if (present) {
        uint64_t v;
        KT_TRY(kt_der_get_uint64(&f, &v, "version"));
        KT_TRY(kt_der_expect_end(&f, "version"));
        if (v > 2)
            return kt_fail(err, -EBADMSG, at, "version: unknown version %llu",
                           (unsigned long long)v + 1);
        c->version = (int)v + 1;
    }
    at = kt_der_offset(tbs);
    KT_TRY(kt_der_get_integer(tbs, &c->serial, "serialNumber"));
    if (c->serial.len == 0)
        return kt_fail(err, -EBADMSG, at, "serialNumber: empty");
    KT_TRY(parse_alg(tbs, &tbs_alg, tbs_alg_raw, "tbsCertificate.signature"));

    kt_der name_at = *tbs, name;
    KT_TRY(kt_der_get_element(tbs, KT_TAG_SEQUENCE, &c->issuer_raw, "issuer"));
    KT_TRY(kt_der_get(&name_at, KT_TAG_SEQUENCE, &name, "issuer"));
    if (kt_der_empty(&name))
        return kt_fail(err, -EBADMSG, kt_der_offset(&name), "issuer: empty name");
    struct kt_x509_name iss;
    KT_TRY(kt_x509_name_parse(&name, &iss));
    c->issuer = iss.text;

    kt_der val;
    KT_TRY(kt_der_get(tbs, KT_TAG_SEQUENCE, &val, "validity"));
    KT_TRY(get_cert_time(&val, &c->not_before, "validity: notBefore"));
    KT_TRY(get_cert_time(&val, &c->not_after, "validity: notAfter"));
    KT_TRY(kt_der_expect_end(&val, "validity"));

    name_at = *tbs;
    KT_TRY(kt_der_get_element(tbs, KT_TAG_SEQUENCE, &c->subject_raw, "subject"));
    KT_TRY(kt_der_get(&name_at, KT_TAG_SEQUENCE, &name, "subject"));
    if (kt_der_empty(&name))
        return kt_fail(err, -EBADMSG, kt_der_offset(&name), "subject: empty name");
    KT_TRY(kt_x509_name_parse(&name, subj));
    c->subject = subj->text;
    subj->text = NULL;

    KT_TRY(parse_spki(tbs, c, err));

    KT_TRY(kt_der_get_optional(tbs, KT_CTX(1), &f, &present, "issuerUniqueID"));
    KT_TRY(kt_der_get_optional(tbs, KT_CTX(2), &f, &present, "subjectUniqueID"));
    KT_TRY(kt_der_get_optional(tbs, KT_CTX_CONS(3), &f, &present, "extensions"));
    if (present)
        KT_TRY(parse_extensions(&f, c));
    return kt_der_expect_end(tbs, "tbsCertificate");
}

static char *dup_string(uint32_t tag, kt_span v)
{
    if (!v.p)
        return NULL;
    struct kt_sb sb = {0};
    kt_x509_string_utf8(&sb, tag, v);
    char *s = kt_sb_take(&sb);
    return s ? s : NULL;
}

int kt_x509_parse(const uint8_t *der, size_t len, struct kt_x509 **out, struct kt_error *err)
{
    kt_der d, cert, tbs;
    kt_span tbs_alg_raw, sig_alg_raw;
    struct kt_x509_name subj;
    int rc;
    *out = NULL;
    memset(&subj, 0, sizeof(subj));
    struct kt_x509 *c = calloc(1, sizeof(*c));
    if (!c)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    c->path_len = -1;
    /* The kernel's BER decoder takes an indefinite length on the outer
     * Certificate SEQUENCE (it ends at the end-of-contents octets); so do
     * we.  Everything inside, the tbsCertificate first, must still be DER. */
    bool outer_indef = len >= 2 && der[0] == 0x30 && der[1] == 0x80;
    kt_der_init(&d, der, len, outer_indef ? KT_DER_BER : KT_DER_STRICT, err);
    rc = kt_der_get(&d, KT_TAG_SEQUENCE, &cert, "certificate");
    if (rc == 0)
        rc = kt_der_expect_end(&d, "certificate: trailing data");
    if (rc < 0)
        goto fail;
    cert.mode = KT_DER_STRICT;
    c->der.p = der;
    c->der.len = len;
    kt_der tbs_whole = cert;
    if ((rc = kt_der_get_element(&cert, KT_TAG_SEQUENCE, &c->tbs, "tbsCertificate")) < 0)
        goto fail;
    if ((rc = kt_der_get(&tbs_whole, KT_TAG_SEQUENCE, &tbs, "tbsCertificate")) < 0)
        goto fail;
    if ((rc = parse_tbs(&tbs, c, &subj, &tbs_alg_raw, err)) < 0)
        goto fail;
    size_t at = kt_der_offset(&cert);
    if ((rc = parse_alg(&cert, &c->sig_alg, &sig_alg_raw, "signatureAlgorithm")) < 0)
        goto fail;
    if (!kt_span_eq(tbs_alg_raw, sig_alg_raw)) {
        rc = kt_fail(err, -EBADMSG, at,
                     "signatureAlgorithm differs from tbsCertificate.signature");
        goto fail;
    }
    c->sig_alg_raw = sig_alg_raw;
    unsigned unused;
    at = kt_der_offset(&cert);
    if ((rc = kt_der_get_bitstring(&cert, &c->sig, &unused, "signatureValue")) < 0)
        goto fail;
    if (unused != 0) {
        rc = kt_fail(err, -EBADMSG, at, "signatureValue: unused bits");
        goto fail;
    }
    if ((rc = kt_der_expect_end(&cert, "certificate")) < 0)
        goto fail;

    if ((rc = kt_digest(KT_HASH_SHA256, der, len, c->sha256)) < 0 ||
        (rc = kt_digest(KT_HASH_SHA256, c->tbs.p, c->tbs.len, c->tbs_sha256)) < 0) {
        kt_fail(err, rc, KT_NO_OFFSET, "sha256 failed");
        goto fail;
    }
    c->subject_cn = dup_string(subj.cn_tag, subj.cn);
    c->subject_o = dup_string(subj.o_tag, subj.o);
    c->subject_email = dup_string(subj.email_tag, subj.email);
    c->description = make_description(c, &subj);
    if ((subj.cn.p && !c->subject_cn) || (subj.o.p && !c->subject_o) ||
        (subj.email.p && !c->subject_email) || !c->description) {
        rc = kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
        goto fail;
    }
    if ((rc = check_self_signed(c, err)) < 0)
        goto fail;
    *out = c;
    return 0;
fail:
    free(subj.text);
    kt_x509_free(c);
    return rc;
}

void kt_x509_free(struct kt_x509 *c)
{
    if (!c)
        return;
    free(c->issuer);
    free(c->subject);
    free(c->subject_cn);
    free(c->subject_o);
    free(c->subject_email);
    free(c->description);
    if (c->pub)
        kt_pubkey_free(c->pub);
    free(c);
}

void kt_x509_serial_hex(const struct kt_x509 *c, char *out, size_t cap)
{
    kt_x509_serial_hex_of(c->serial, out, cap);
}

void kt_x509_serial_hex_of(kt_span serial, char *out, size_t cap)
{
    static const char hx[] = "0123456789abcdef";
    uint8_t neg[64];
    if (cap == 0)
        return;
    kt_span m = kt_integer_magnitude(serial);
    size_t w = 0;
    if (serial.len && (serial.p[0] & 0x80) && m.len <= sizeof(neg)) {
        /* negative (two's complement): print "-" and the magnitude, as OpenSSL does */
        unsigned carry = 1;
        for (size_t i = m.len; i-- > 0;) {
            unsigned v = (uint8_t)~m.p[i] + carry;
            neg[i] = (uint8_t)v;
            carry = v >> 8;
        }
        m.p = neg;
        while (m.len > 1 && m.p[0] == 0)
            m.p++, m.len--;
        if (cap > 2)
            out[w++] = '-';
    }
    bool lead = true;
    for (size_t i = 0; i < m.len && w + 2 < cap; i++) {
        if (lead && m.p[i] < 16) {
            out[w++] = hx[m.p[i]];
        } else {
            out[w++] = hx[m.p[i] >> 4];
            out[w++] = hx[m.p[i] & 15];
        }
        lead = m.p[i] == 0 && lead;
    }
    if (w == 0 && cap > 1)
        out[w++] = '0';
    out[w] = 0;
}

size_t kt_x509_element_len(const uint8_t *buf, size_t len)
{
    kt_der d;
    kt_span whole;
    kt_der_init(&d, buf, len, KT_DER_STRICT, NULL);
    if (kt_der_get_element(&d, KT_TAG_SEQUENCE, &whole, NULL) < 0)
        return 0;
    return whole.len;
}
