/* PKCS#7 parse / verify / trust on messages generated with openssl cms, and
 * on the corpus' Authenticode signatures. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/load.h"
#include "policy/verify.h"
#include "kt_test.h"
#include "pkcs7/pkcs7.h"

static char dir[256];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(cmd, sizeof(cmd), "cd %s && ( ", dir);
    vsnprintf(cmd + n, sizeof(cmd) - (size_t)n, fmt, ap);
    va_end(ap);
    strncat(cmd, " ) >/dev/null 2>&1", sizeof(cmd) - strlen(cmd) - 1);
    return system(cmd);
}

static unsigned char *slurp(const char *name, size_t *len)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return kt_test_slurp(p, len);
}

static const char *EXT_CA = "printf 'basicConstraints=critical,CA:TRUE\\nkeyUsage=keyCertSign\\n"
                            "subjectKeyIdentifier=hash\\nauthorityKeyIdentifier=keyid\\n' > ca.ext";
static const char *EXT_LEAF = "printf 'basicConstraints=CA:FALSE\\nkeyUsage=digitalSignature\\n"
                              "subjectKeyIdentifier=hash\\nauthorityKeyIdentifier=keyid\\n' > leaf.ext";

static void make_fixtures(void)
{
    sh("%s && %s", EXT_CA, EXT_LEAF);
    sh("openssl req -x509 -newkey rsa:2048 -nodes -keyout root.key -out root.pem -days 3650 "
       "-subj '/CN=Unit Root' -addext basicConstraints=critical,CA:TRUE");
    sh("openssl req -newkey rsa:2048 -nodes -keyout inter.key -out inter.csr -subj '/CN=Unit Inter' && "
       "openssl x509 -req -in inter.csr -CA root.pem -CAkey root.key -CAcreateserial -days 3650 "
       "-extfile ca.ext -out inter.pem");
    sh("openssl req -newkey rsa:2048 -nodes -keyout leaf.key -out leaf.csr -subj '/CN=Unit Leaf/O=Org' && "
       "openssl x509 -req -in leaf.csr -CA inter.pem -CAkey inter.key -CAcreateserial -days 3650 "
       "-extfile leaf.ext -out leaf.pem");
    sh("openssl x509 -in root.pem -outform DER -out root.der && openssl x509 -in inter.pem -outform DER -out inter.der"
       " && openssl x509 -in leaf.pem -outform DER -out leaf.der && cat inter.pem root.pem > chain.pem");
    sh("head -c 5000 /dev/urandom > data.bin");
    /* attached, attributes, issuer+serial */
    sh("openssl cms -sign -binary -nodetach -outform DER -signer leaf.pem -inkey leaf.key "
       "-certfile chain.pem -in data.bin -out attr.p7");
    /* detached, no attributes, SKID */
    sh("openssl cms -sign -binary -noattr -keyid -outform DER -md sha512 -signer leaf.pem -inkey leaf.key "
       "-in data.bin -out noattr_keyid.p7");
    /* streamed BER with a constructed OCTET STRING */
    sh("openssl cms -sign -binary -nodetach -stream -outform DER -signer leaf.pem -inkey leaf.key "
       "-certfile chain.pem -in data.bin -out ber.p7");
}

static struct kt_keyrings *rings_with(const char *ring, const char *der_file)
{
    struct kt_keyrings *k = NULL;
    if (kt_keyrings_new(&k) < 0)
        return NULL;
    if (der_file) {
        size_t n;
        unsigned char *d = slurp(der_file, &n);
        struct kt_error e = {0};
        int rc = d ? kt_keyring_add(k, kt_keyrings_get(k, ring), d, n, der_file, KT_ADD_EXPLICIT,
                                    NULL, &e)
                   : -ENOENT;
        CHECK(rc == 0, "add %s to %s: %d %s", der_file, ring, rc, e.what);
        free(d);
    }
    return k;
}

static void test_parse_attached(void)
{
    size_t n, dn;
    unsigned char *buf = slurp("attr.p7", &n), *data = slurp("data.bin", &dn);
    struct kt_pkcs7 *m = NULL;
    struct kt_error e = {0};
    CHECK(buf && data, "fixtures");
    if (!buf || !data)
        return;
    int rc = kt_pkcs7_parse(buf, n, &m, &e);
    CHECK_EQ_INT(rc, 0, "parse attached");
    if (rc == 0) {
        CHECK_EQ_INT(m->content_type, KT_OID_DATA, "content type data");
        CHECK(m->has_content && m->content.len == dn && memcmp(m->content.p, data, dn) == 0,
              "content is the data");
        CHECK(m->content.p >= buf && m->content.p < buf + n, "content is zero-copy");
        CHECK_EQ_INT(m->n_certs, 3, "three certificates");
        CHECK_EQ_INT(m->n_signers, 1, "one signer");
        struct kt_pkcs7_signer *s = &m->signers[0];
        CHECK(s->issuer_raw.len > 0 && s->serial.len > 0 && s->skid.len == 0, "issuer+serial id");
        CHECK_EQ_INT(s->digest_alg, KT_HASH_SHA256, "sha256 default");
        CHECK(s->has_auth_attrs && s->auth_attrs.p[0] == 0xa0, "auth attrs kept raw with [0] tag");
        CHECK(kt_pkcs7_find_attr(s->auth, s->n_auth, KT_OID_SIGNING_TIME) != NULL, "signingTime listed");
        CHECK(s->has_signing_time && s->signing_time > 1700000000, "signingTime parsed");
        CHECK_EQ_INT(s->message_digest.len, 32, "messageDigest");
        CHECK_EQ_INT(s->attr_content_type, KT_OID_DATA, "contentType attribute");
        CHECK_EQ_INT(s->n_unauth, 0, "no unauthenticated attributes");
        /* no keys: signature checks, nobody vouches */
        rc = kt_pkcs7_verify(m, NULL, 0, NULL, &e);
        CHECK_EQ_INT(rc, 0, "verify without keyrings");
        CHECK(s->signer_cert == m->certs[0] || s->signer_cert != NULL, "signer found in message");
        CHECK_EQ_INT(s->chain_len, 3, "chain leaf->inter->root");
        rc = kt_pkcs7_validate_trust(m, NULL, KT_VERIFY_PURPOSE_MODULE, &e);
        CHECK_EQ_INT(rc, -ENOKEY, "no keyrings -> ENOKEY");
        /* trusted root in builtin */
        struct kt_keyrings *k = rings_with("builtin", "root.der");
        e = (struct kt_error){0};
        CHECK_EQ_INT(kt_pkcs7_verify(m, NULL, 0, k, &e), 0, "verify");
        CHECK_EQ_INT(kt_pkcs7_validate_trust(m, k, KT_VERIFY_PURPOSE_MODULE, &e), 0, "trusted via root");
        CHECK(s->trusted_by && s->trusted_by->cert && strstr(s->trusted_by->cert->description, "Unit Root"),
              "trusted_by root");
        /* the module purpose refuses authenticated attributes */
        e = (struct kt_error){0};
        CHECK_EQ_INT(kt_pkcs7_check_purpose(m, KT_VERIFY_PURPOSE_MODULE, &e), -EKEYREJECTED, "module purpose");
        CHECK_EQ_INT(kt_pkcs7_check_purpose(m, KT_VERIFY_PURPOSE_UEFI, &e), -EKEYREJECTED, "uefi purpose wants msIndirectData");
        /* blacklisting the intermediate rejects */
        kt_blacklist_add_hash(k, "tbs", KT_HASH_SHA256, m->certs[1]->tbs_sha256, "test");
        kt_blacklist_add_hash(k, "tbs", KT_HASH_SHA256, m->certs[2]->tbs_sha256, "test");
        kt_blacklist_add_hash(k, "tbs", KT_HASH_SHA256, m->certs[0]->tbs_sha256, "test");
        e = (struct kt_error){0};
        CHECK_EQ_INT(kt_pkcs7_validate_trust(m, k, KT_VERIFY_PURPOSE_MODULE, &e), -EKEYREJECTED, "blacklisted -> rejected");
        kt_keyrings_free(k);
        /* trusted intermediate in builtin: any link may be the anchor */
        k = rings_with("builtin", "inter.der");
        e = (struct kt_error){0};
        kt_pkcs7_verify(m, NULL, 0, k, &e);
        CHECK_EQ_INT(kt_pkcs7_validate_trust(m, k, KT_VERIFY_PURPOSE_MODULE, &e), 0, "trusted via intermediate");
        kt_keyrings_free(k);
        /* a platform key vouches for UEFI, not for modules */
        k = rings_with("platform", "root.der");
        e = (struct kt_error){0};
        kt_pkcs7_verify(m, NULL, 0, k, &e);
        CHECK_EQ_INT(kt_pkcs7_validate_trust(m, k, KT_VERIFY_PURPOSE_MODULE, &e), -ENOKEY, "platform: not for modules");
        e = (struct kt_error){0};
        CHECK_EQ_INT(kt_pkcs7_validate_trust(m, k, KT_VERIFY_PURPOSE_UEFI, &e), 0, "platform: for UEFI");
        kt_keyrings_free(k);
        /* wrong detached data */
        data[0] ^= 1;
        e = (struct kt_error){0};
        CHECK_EQ_INT(kt_pkcs7_verify(m, data, dn, NULL, &e), -EKEYREJECTED, "data differs from content");
        data[0] ^= 1;
        /* supplied digest variant */
        uint8_t dg[32];
        kt_digest(KT_HASH_SHA256, data, dn, dg);
        struct kt_pkcs7_digest d = {KT_HASH_SHA256, dg};
        e = (struct kt_error){0};
        CHECK_EQ_INT(kt_pkcs7_verify_digests(m, &d, 1, NULL, &e), 0, "verify with supplied digest");
        dg[5] ^= 1;
        e = (struct kt_error){0};
        CHECK_EQ_INT(kt_pkcs7_verify_digests(m, &d, 1, NULL, &e), -EKEYREJECTED, "bad supplied digest");
        struct kt_pkcs7_digest d384 = {KT_HASH_SHA384, dg};
        e = (struct kt_error){0};
        CHECK_EQ_INT(kt_pkcs7_verify_digests(m, &d384, 1, NULL, &e), -ENOPKG, "no matching digest");
    }
    kt_pkcs7_free(m);
    /* flip a byte of the signature value (the last bytes of the message) */
    buf[n - 1] ^= 0x55;
    m = NULL;
    e = (struct kt_error){0};
    if (kt_pkcs7_parse(buf, n, &m, &e) == 0) {
        struct kt_keyrings *k = rings_with("builtin", "root.der");
        int rc2 = kt_pkcs7_verify(m, NULL, 0, k, &e);
        CHECK_EQ_INT(rc2, -EKEYREJECTED, "flipped signature byte");
        CHECK(strstr(e.what, "signature") != NULL, "reason names the signature: %s", e.what);
        e = (struct kt_error){0};
        CHECK_EQ_INT(kt_pkcs7_validate_trust(m, k, KT_VERIFY_PURPOSE_MODULE, &e), -EKEYREJECTED, "trust keeps the rejection");
        kt_keyrings_free(k);
    } else {
        CHECK(0, "parse after signature flip: %s", e.what);
    }
    kt_pkcs7_free(m);
    free(buf);
    free(data);
}

static void test_detached_keyid(void)
{
    size_t n, dn;
    unsigned char *buf = slurp("noattr_keyid.p7", &n), *data = slurp("data.bin", &dn);
    struct kt_pkcs7 *m = NULL;
    struct kt_error e = {0};
    if (!buf || !data || kt_pkcs7_parse(buf, n, &m, &e) < 0) {
        CHECK(0, "parse noattr_keyid: %s", e.what);
        free(buf);
        free(data);
        return;
    }
    CHECK(!m->has_content, "detached");
    struct kt_pkcs7_signer *s = &m->signers[0];
    CHECK(s->skid.len == 20 && s->issuer_raw.len == 0, "SKID signer id");
    CHECK_EQ_INT(s->digest_alg, KT_HASH_SHA512, "sha512");
    CHECK(!s->has_auth_attrs, "no attributes");
    CHECK_EQ_INT(kt_pkcs7_verify(m, NULL, 0, NULL, &e), -EBADMSG, "detached needs data");
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_pkcs7_check_purpose(m, KT_VERIFY_PURPOSE_MODULE, &e), 0, "module purpose ok");
    /* one certificate in the message, the signer; but a signer named by
     * SKID is never matched against the message's certificates
     * (pkcs7_find_key): without keyrings nothing is checked and trust
     * finds no key */
    CHECK_EQ_INT(kt_pkcs7_verify(m, data, dn, NULL, &e), 0, "verify detached");
    CHECK(!s->signer_cert && s->verify_rc == -ENOKEY, "SKID signer not matched in the message");
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_pkcs7_validate_trust(m, NULL, KT_VERIFY_PURPOSE_MODULE, &e), -ENOKEY,
                 "no keyrings: untrusted");
    struct kt_keyrings *root = rings_with("builtin", "root.der");
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_pkcs7_verify(m, data, dn, root, &e), 0, "verify with the root trusted");
    CHECK_EQ_INT(kt_pkcs7_validate_trust(m, root, KT_VERIFY_PURPOSE_MODULE, &e), -ENOKEY,
                 "SKID signer does not chain to a trusted root");
    kt_keyrings_free(root);
    /* the leaf itself as a builtin key: found by its SKID, verified, trusted */
    struct kt_keyrings *k = rings_with("builtin", "leaf.der");
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_pkcs7_verify(m, data, dn, k, &e), 0, "verify with the leaf key");
    CHECK(s->signer_key && s->verify_rc == 0, "signer verified with the keyring key");
    CHECK_EQ_INT(kt_pkcs7_validate_trust(m, k, KT_VERIFY_PURPOSE_MODULE, &e), 0, "leaf itself trusted");
    data[100] ^= 1;
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_pkcs7_verify(m, data, dn, k, &e), -EKEYREJECTED, "modified data");
    kt_keyrings_free(k);
    kt_pkcs7_free(m);
    free(buf);
    free(data);
}

static void test_ber(void)
{
    size_t n, dn;
    unsigned char *buf = slurp("ber.p7", &n), *data = slurp("data.bin", &dn);
    struct kt_pkcs7 *m = NULL;
    struct kt_error e = {0};
    CHECK(buf && n > 2 && buf[1] == 0x80, "indefinite length at the top");
    if (!buf || !data || kt_pkcs7_parse(buf, n, &m, &e) < 0) {
        CHECK(0, "parse ber: %s", e.what);
        free(buf);
        free(data);
        return;
    }
    CHECK(m->content.len == dn && memcmp(m->content.p, data, dn) == 0,
          "constructed OCTET STRING gathered");
    CHECK(m->content_copy != NULL, "gathered into an owned copy");
    CHECK_EQ_INT(kt_pkcs7_verify(m, NULL, 0, NULL, &e), 0, "verify ber");
    kt_pkcs7_free(m);
    free(buf);
    free(data);
}

/* Every truncation and many single-byte corruptions fail cleanly. */
static void test_malformed(void)
{
    size_t n;
    unsigned char *buf = slurp("attr.p7", &n);
    if (!buf)
        return;
    int bad_trunc = 0;
    for (size_t cut = 0; cut < n; cut += (cut < 200 ? 1 : 37)) {
        struct kt_pkcs7 *m = NULL;
        struct kt_error e = {0};
        int rc = kt_pkcs7_parse(buf, cut, &m, &e);
        if (rc != -EBADMSG || m != NULL || !e.what[0] || (e.offset != KT_NO_OFFSET && e.offset > cut))
            bad_trunc++;
        kt_pkcs7_free(m);
    }
    CHECK_EQ_INT(bad_trunc, 0, "every truncation is EBADMSG with a detail and an offset inside");
    unsigned char *c = malloc(n);
    int crashes = 0;
    for (size_t i = 0; i < n; i += 7) {
        memcpy(c, buf, n);
        c[i] ^= 0xff;
        struct kt_pkcs7 *m = NULL;
        struct kt_error e = {0};
        int rc = kt_pkcs7_parse(c, n, &m, &e);
        if (rc == 0) {
            rc = kt_pkcs7_verify(m, NULL, 0, NULL, &e);
            if (rc == 0)
                kt_pkcs7_validate_trust(m, NULL, KT_VERIFY_PURPOSE_MODULE, &e);
        } else if (!e.what[0]) {
            crashes++;
        }
        kt_pkcs7_free(m);
    }
    CHECK_EQ_INT(crashes, 0, "corruptions fail with a detail");
    free(c);
    /* not signedData */
    static const uint8_t env[] = {0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7,
                                  0x0d, 0x01, 0x07, 0x03, 0xa0, 0x00};
    struct kt_pkcs7 *m = NULL;
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_pkcs7_parse(env, sizeof(env), &m, &e), -ENOPKG, "envelopedData -> ENOPKG");
    CHECK_EQ_INT(e.offset, 2, "offset of the content type");
    free(buf);
}

/* Authenticode: the corpus signtool.exe's PKCS#7 (content msIndirectData,
 * an RFC 3161 token among the unauthenticated attributes). */
static void test_authenticode(const char *corpus)
{
    char p[4200];
    snprintf(p, sizeof(p), "%.4000s/windows/signtool-electron-windows-sign-1.2.2.exe", corpus);
    size_t n;
    unsigned char *f = kt_test_slurp(p, &n);
    CHECK(f != NULL, "read %s", p);
    if (!f)
        return;
    /* the certificate table by hand: e_lfanew, PE32+ optional header, directory 4 */
    uint32_t pe = f[0x3c] | f[0x3d] << 8 | f[0x3e] << 16 | (uint32_t)f[0x3f] << 24;
    size_t opt = pe + 24;
    uint16_t magic = (uint16_t)(f[opt] | f[opt + 1] << 8);
    size_t dd = opt + (magic == 0x20b ? 112 : 96) + 4 * 8;
    uint32_t off = f[dd] | f[dd + 1] << 8 | f[dd + 2] << 16 | (uint32_t)f[dd + 3] << 24;
    uint32_t sz = f[dd + 4] | f[dd + 5] << 8 | f[dd + 6] << 16 | (uint32_t)f[dd + 7] << 24;
    CHECK(off + (size_t)sz <= n && sz > 8, "certificate table inside the file");
    if (off + (size_t)sz > n || sz <= 8) {
        free(f);
        return;
    }
    struct kt_pkcs7 *m = NULL;
    struct kt_error e = {0};
    int rc = kt_pkcs7_parse(f + off + 8, sz - 8, &m, &e);
    CHECK_EQ_INT(rc, 0, "parse Authenticode PKCS#7");
    if (rc == 0) {
        CHECK_EQ_INT(m->content_type, KT_OID_MS_INDIRECT_DATA, "msIndirectData");
        CHECK(m->content_tlv.len > 2 && m->content_tlv.p[0] == 0x30, "inner content is a SEQUENCE");
        CHECK(m->content.p > m->content_tlv.p && m->content.p + m->content.len == m->content_tlv.p + m->content_tlv.len,
              "content is the SEQUENCE's content without tag and length");
        CHECK_EQ_INT(m->n_certs, 2, "signer and its issuer in the message");
        const struct kt_pkcs7_signer *s = &m->signers[0];
        CHECK(kt_pkcs7_find_attr(s->unauth, s->n_unauth, KT_OID_MS_RFC3161_TIMESTAMP) != NULL,
              "RFC 3161 token reachable");
        CHECK(kt_pkcs7_find_attr(s->auth, s->n_auth, KT_OID_MS_SP_OPUS_INFO) != NULL,
              "SpcSpOpusInfo reachable");
        rc = kt_pkcs7_verify(m, NULL, 0, NULL, &e);
        CHECK_EQ_INT(rc, 0, "messageDigest over the SpcIndirectDataContent and signature verify");
        CHECK(s->signer_cert && strstr(s->signer_cert->subject, "Microsoft Corporation"), "signer");
        CHECK_EQ_INT(s->chain_len, 2, "chain signer -> PCA 2010");
        CHECK_EQ_INT(kt_pkcs7_check_purpose(m, KT_VERIFY_PURPOSE_UEFI, &e), 0, "uefi purpose");
        CHECK_EQ_INT(kt_pkcs7_check_purpose(m, KT_VERIFY_PURPOSE_KEXEC, &e), 0, "kexec purpose");
        /* the kernel's parser: msIndirectData without authenticated attributes */
        m->signers[0].has_auth_attrs = false;
        e = (struct kt_error){0};
        CHECK_EQ_INT(kt_pkcs7_check_purpose(m, KT_VERIFY_PURPOSE_KEXEC, &e), -EBADMSG,
                     "kexec: no authenticated attributes -> malformed");
        CHECK(strstr(e.what, "authenticated attributes") != NULL, "... and says why: %s", e.what);
    }
    kt_pkcs7_free(m);
    free(f);
}

int main(void)
{
    const char *corpus = kt_test_corpus();
    snprintf(dir, sizeof(dir), "%s/kt-pkcs7-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    make_fixtures();
    test_parse_attached();
    test_detached_keyid();
    test_ber();
    test_malformed();
    if (corpus)
        test_authenticode(corpus);
    else if (getenv("CI"))
        CHECK(0, "corpus not found but CI is set");
    else
        printf("corpus not found: Authenticode case skipped\n");
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cleanup failed\n");
    KT_TEST_END();
}
