/* test_x509.c - X.509 parsing: the kernel's description rules (table of
 * generated certificates whose descriptions the live kernel confirmed, see
 * tests/cli/x509_kernel_diff.sh), extensions, self-signatures, chains,
 * PEM/DER input, and truncation/corruption of real certificates at every
 * byte (never a crash, always -EBADMSG for a truncation). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_test.h"
#include "x509/x509.h"
#include "util/fmt.h"

static char dir[256];

static unsigned char *load(const char *name, size_t *len)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    unsigned char *b = kt_test_slurp(p, len);
    if (!b)
        fprintf(stderr, "cannot read %s\n", p);
    return b;
}

/* Parse a file from the fixture dir; *buf keeps the bytes alive. */
static struct kt_x509 *parse(const char *name, unsigned char **buf)
{
    size_t len;
    struct kt_x509 *c = NULL;
    struct kt_error e = {0};
    *buf = load(name, &len);
    if (!*buf)
        return NULL;
    int rc = kt_x509_parse(*buf, len, &c, &e);
    CHECK(rc == 0, "%s: parse rc %d: %s at %zu", name, rc, e.what, e.offset);
    return rc == 0 ? c : NULL;
}

static void test_descriptions(void)
{
    static const struct {
        const char *file, *want;
    } cases[] = {
        {"nokid.der", "Nokid: No Key Identifiers: 7a9a88f1"},
        {"serial00.der", "Leading Zero Serial: 0080c0ffee"},   /* raw serial: 00 kept */
        {"cnprefix.der", "Acme Signing Key: 2a"},              /* CN starts with O */
        {"seven.der", "Example Signing Service: 2b"},          /* first 7 bytes equal */
        {"sevenspace.der", "Exampl Signing: 2c"},              /* "Exampl " = 7 bytes */
        {"sixonly.der", "Exampl-Widgets: Exampl Signing: 32"}, /* only 6 equal */
        {"shortcn.der", "Acme: Acm: 33"},                      /* CN shorter than O */
        {"onlyo.der", "Only Organisation: 2d"},
        {"onlycn.der", "Only Common Name: 2e"},
        {"email.der", "keys@example.org: 2f"},
        {"neither.der", ": 30"},
        {"twocn.der", "Org: Second CN: 31"},                   /* the last CN counts */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unsigned char *b;
        struct kt_x509 *c = parse(cases[i].file, &b);
        if (c)
            CHECK_EQ_STR(c->description, cases[i].want, cases[i].file);
        kt_x509_free(c);
        free(b);
    }
    /* with a SKID the id is the SKID */
    static const struct {
        const char *file, *name;
    } skid_cases[] = {
        {"rsa2048.der", "Acme Corp: Vendor Key: "},
        {"rsa3072.der", "Acme Corp Module Signing: "},
        {"ed25519.der", "Edwards: Ed25519 Key: "},
    };
    for (size_t i = 0; i < sizeof(skid_cases) / sizeof(skid_cases[0]); i++) {
        unsigned char *b;
        struct kt_x509 *c = parse(skid_cases[i].file, &b);
        if (c) {
            char want[256], hex[129];
            CHECK(c->skid.len == 20, "%s: skid len %zu", skid_cases[i].file, c->skid.len);
            snprintf(want, sizeof(want), "%s%s", skid_cases[i].name,
                     kt_hex(c->skid.p, c->skid.len < 64 ? c->skid.len : 64, hex));
            CHECK_EQ_STR(c->description, want, skid_cases[i].file);
        }
        kt_x509_free(c);
        free(b);
    }
}

/* Hand-crafted corners (tests/fixtures/craft_certs.py); every expectation
 * here is what the live kernel did with the same certificate. */
static void test_crafted(void)
{
    static const struct {
        const char *file;
        int rc;
        const char *desc;
    } cases[] = {
        {"craft-plain.der", 0, "Edge Cases: Crafted: 1111111111111111111111111111111111111111"},
        {"craft-empty-skid.der", -EBADMSG, NULL},
        {"craft-dup-skid.der", -EBADMSG, NULL},
        {"craft-long-skid.der", -EBADMSG, NULL},
        {"craft-skid-128.der", 0, "Edge Cases: Crafted: 80" /* + 128 x 33, checked below */},
        {"craft-crit-false.der", 0, "Edge Cases: Crafted: 1111111111111111111111111111111111111111"},
        {"craft-negative-serial.der", 0, "Edge Cases: Crafted: 800102"},
        {"craft-zero-serial.der", 0, "Edge Cases: Crafted: 00"},
        {"craft-no-version.der", 0, "Edge Cases: Crafted: 01"},
        {"craft-akid-half.der", -EKEYREJECTED, NULL},
        {"craft-akid-other.der", 0, "Edge Cases: Crafted: 1111111111111111111111111111111111111111"},
        {"craft-dup-akid-order.der", 0, "Edge Cases: Crafted: 1111111111111111111111111111111111111111"},
        {"craft-dup-akid-order2.der", -EKEYREJECTED, NULL},
        {"craft-alg-mismatch.der", -EBADMSG, NULL},
        {"craft-alg-ecdsa-on-rsa.der", -EKEYREJECTED, NULL},
        {"craft-bmp-cn.der", 0, "Org: : 01"},
        {"craft-t61-latin1.der", 0, "Soci\xe9t\xe9: Caf\xe9 Key: 01"},
        {"craft-ia5-email-only.der", 0, "only@example.org: 01"},
        {"craft-nul-in-cn.der", 0, "NulOrg: Before: 01"},
        {"craft-empty-cn.der", 0, "Has O: 01"},
        {"craft-univ-string.der", 0, ": 01"},
        {"craft-empty-name.der", -EBADMSG, NULL},
        {"craft-empty-subject.der", -EBADMSG, NULL},
        {"craft-empty-issuer.der", -EBADMSG, NULL},
        {"craft-empty-exts.der", -EBADMSG, NULL},
        {"craft-utc-no-seconds.der", -EBADMSG, NULL},
        {"craft-gen-time.der", -EBADMSG, NULL},
        {"craft-gen-time-1949.der", -EBADMSG, NULL},
        {"craft-gen-time-frac.der", -EBADMSG, NULL},
        {"craft-gen-time-2050.der", 0, "Edge Cases: Crafted: 01"},
        {"craft-utc-leap-second.der", 0, "Edge Cases: Crafted: 01"},
        {"craft-utc-2400.der", 0, "Edge Cases: Crafted: 01"},
        {"craft-utc-feb29-nonleap.der", -EBADMSG, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len;
        unsigned char *b = load(cases[i].file, &len);
        CHECK(b != NULL, "%s", cases[i].file);
        if (!b)
            continue;
        struct kt_x509 *c = NULL;
        struct kt_error e = {0};
        int rc = kt_x509_parse(b, len, &c, &e);
        CHECK(rc == cases[i].rc, "%s: rc %d want %d (%s)", cases[i].file, rc, cases[i].rc, e.what);
        if (rc < 0)
            CHECK(e.code == rc && e.what[0], "%s: detail", cases[i].file);
        if (rc == 0 && cases[i].desc) {
            if (strstr(cases[i].file, "skid-128"))
                CHECK(c->skid.len == 129 && c->skid.p[0] == 0x80 && c->skid.p[128] == 0x33 &&
                          strncmp(c->description, cases[i].desc, strlen(cases[i].desc)) == 0,
                      "skid-128: %zu", c->skid.len);
            else
                CHECK_EQ_STR(c->description, cases[i].desc, cases[i].file);
        }
        if (rc == 0 && strstr(cases[i].file, "utc-2400")) /* 2025-01-01 24:00 = 01-02 00:00 */
            CHECK_EQ_INT(c->not_before, 1735776000, "hour 24");
        kt_x509_free(c);
        free(b);
    }
    size_t len;
    unsigned char *b = load("craft-alg-unknown.der", &len);
    if (b) {
        struct kt_x509 *c = NULL;
        struct kt_error e = {0};
        CHECK_EQ_INT(kt_x509_parse(b, len, &c, &e), 0, "unknown signature algorithm parses");
        if (c) {
            CHECK(c->sig_alg.unsupported && c->self_signed && c->sig_unsupported, "unknown alg flags");
            kt_x509_free(c);
        }
        free(b);
    }
}

static void test_fields(void)
{
    unsigned char *b1, *b2, *b3, *b4;
    struct kt_x509 *ca = parse("ca.der", &b1);
    struct kt_x509 *leaf = parse("leaf-rsa.der", &b2);
    struct kt_x509 *lis = parse("leaf-issuer.der", &b3);
    struct kt_x509 *other = parse("rsa2048.der", &b4);
    if (ca && leaf && lis && other) {
        CHECK(ca->version == 3, "version %d", ca->version);
        CHECK(ca->self_signed && !ca->sig_unsupported, "ca self-signed");
        CHECK(ca->has_basic_constraints && ca->is_ca && ca->path_len == -1, "ca basicConstraints");
        CHECK(ca->has_key_usage && ca->key_usage == ((1u << 5) | (1u << 6)), "ca keyUsage %x",
              ca->key_usage);
        CHECK(!leaf->self_signed, "leaf not self-signed");
        CHECK(leaf->has_eku && (leaf->eku & KT_EKU_CODE_SIGNING) &&
                  (leaf->eku & KT_EKU_MODULE_SIGNING) && !(leaf->eku & KT_EKU_OTHER),
              "leaf eku %x", leaf->eku);
        CHECK(leaf->has_key_usage && leaf->key_usage == 1, "leaf keyUsage %x", leaf->key_usage);
        CHECK(!leaf->is_ca, "leaf not CA");
        CHECK(kt_span_eq(leaf->akid_keyid, ca->skid), "leaf akid == ca skid");
        CHECK(kt_span_eq(leaf->akid_issuer, ca->issuer_raw), "leaf akid directoryName");
        CHECK(leaf->akid_serial.len == 1 && leaf->akid_serial.p[0] == 1, "leaf akid serial");
        CHECK_EQ_STR(leaf->subject_cn, "Leaf Signer", "leaf CN");
        CHECK_EQ_STR(leaf->subject_o, "Test CA Org", "leaf O");
        CHECK_EQ_STR(leaf->issuer, "O=Test CA Org, CN=Test CA Root", "leaf issuer");
        char s[64];
        kt_x509_serial_hex(leaf, s, sizeof(s));
        CHECK_EQ_STR(s, "1001", "serial hex");
        CHECK(kt_x509_is_issued_by(leaf, ca), "leaf issued by ca (keyid)");
        CHECK(!kt_x509_is_issued_by(leaf, other), "leaf not issued by other");
        CHECK(kt_x509_is_issued_by(lis, ca), "issuer+serial AKID");
        CHECK(lis->akid_keyid.len == 0 && lis->skid.len == 0, "leaf-issuer has no key ids");
        CHECK(!kt_x509_is_issued_by(lis, other), "issuer+serial AKID: not other");
        CHECK_EQ_INT(kt_x509_check_signature(leaf, ca->pub), 0, "leaf verifies with CA key");
        CHECK_EQ_INT(kt_x509_check_signature(lis, ca->pub), 0, "leaf-issuer verifies");
        CHECK_EQ_INT(kt_x509_check_signature(leaf, other->pub), -EKEYREJECTED, "wrong key");
        CHECK(leaf->key_algo == KT_PKEY_RSA && leaf->key_bits == 2048, "leaf key");
    }
    kt_x509_free(ca), kt_x509_free(leaf), kt_x509_free(lis), kt_x509_free(other);
    free(b1), free(b2), free(b3), free(b4);

    static const struct {
        const char *file;
        enum kt_pkey_algo algo;
        unsigned bits;
        const char *sig;
    } keys[] = {
        {"rsa3072.der", KT_PKEY_RSA, 3072, "sha384WithRSAEncryption"},
        {"rsa4096.der", KT_PKEY_RSA, 4096, "sha512WithRSAEncryption"},
        {"rsa-sha1.der", KT_PKEY_RSA, 2048, "sha1WithRSAEncryption"},
        {"rsa-pss.der", KT_PKEY_RSA, 2048, "RSASSA-PSS"},
        {"ec256.der", KT_PKEY_ECDSA, 256, "ecdsa-with-SHA256"},
        {"ec384.der", KT_PKEY_ECDSA, 384, "ecdsa-with-SHA384"},
        {"ed25519.der", KT_PKEY_ED25519, 0, "Ed25519"},
    };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        unsigned char *b;
        struct kt_x509 *c = parse(keys[i].file, &b);
        if (c) {
            CHECK(c->key_algo == keys[i].algo && c->pub, "%s: key algo", keys[i].file);
            if (keys[i].bits)
                CHECK_EQ_INT(c->key_bits, keys[i].bits, keys[i].file);
            CHECK_EQ_STR(kt_sigalg_name(&c->sig_alg), keys[i].sig, keys[i].file);
            /* self-signed and verified (a failure would have been EKEYREJECTED) */
            CHECK(c->self_signed && !c->sig_unsupported, "%s: self-signature verified",
                  keys[i].file);
        }
        kt_x509_free(c);
        free(b);
    }

    /* names in other string types, decoded to UTF-8 */
    unsigned char *b;
    struct kt_x509 *c = parse("bmp.der", &b);
    if (c) {
        CHECK_EQ_STR(c->subject_cn, "Schl\xc3\xbc" "ssel \xe6\xbc\xa2\xe5\xad\x97", "BMPString CN");
        CHECK_EQ_STR(c->subject_o, "\xc3\x96l AG", "T61String O");
    }
    kt_x509_free(c), free(b);
    c = parse("utf8.der", &b);
    if (c)
        CHECK_EQ_STR(c->subject_cn, "Gr\xc3\xbc\xc3\x9f" "e aus K\xc3\xb6ln \xe6\xbc\xa2\xe5\xad\x97 \xf0\x9f\x98\x80",
                     "UTF8String CN");
    kt_x509_free(c), free(b);
    c = parse("y2100.der", &b);
    if (c)
        CHECK(c->not_after > 4102444800LL, "GeneralizedTime past 2100: %lld", (long long)c->not_after);
    kt_x509_free(c), free(b);
    c = parse("critext.der", &b);
    if (c)
        CHECK(c->unknown_critical, "unknown critical extension flagged");
    kt_x509_free(c), free(b);
    c = parse("rsa2048.der", &b);
    if (c)
        CHECK(!c->unknown_critical, "no unknown critical extension");
    kt_x509_free(c), free(b);
    size_t len;
    b = load("md5.der", &len);
    if (b) {
        struct kt_error e = {0};
        int rc = kt_x509_parse(b, len, &c, &e);
        CHECK_EQ_INT(rc, 0, "md5 parses");
        if (rc == 0) {
            CHECK(c->sig_alg.unsupported && c->self_signed && c->sig_unsupported, "md5 unsupported");
            CHECK_EQ_INT(kt_x509_check_signature(c, c->pub), -ENOPKG, "md5 check -> ENOPKG");
            kt_x509_free(c);
        }
        free(b);
    }
}

/* Flip bytes in a real certificate's known places. */
static void test_bad(void)
{
    size_t len;
    unsigned char *b = load("rsa2048.der", &len);
    if (!b)
        return;
    struct kt_x509 *c;
    struct kt_error e = {0};
    /* broken self-signature */
    b[len - 5] ^= 1;
    CHECK_EQ_INT(kt_x509_parse(b, len, &c, &e), -EKEYREJECTED, "bad self-signature");
    b[len - 5] ^= 1;
    /* outer signatureAlgorithm differs from the TBS one: sha256WithRSA -> sha384WithRSA */
    static const unsigned char oid[] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b};
    unsigned char *first = memmem(b, len, oid, sizeof(oid));
    unsigned char *second = first ? memmem(first + 1, len - (size_t)(first + 1 - b), oid, sizeof(oid)) : NULL;
    CHECK(second != NULL, "two signature OIDs");
    if (second) {
        second[8] = 0x0c;
        memset(&e, 0, sizeof(e));
        CHECK_EQ_INT(kt_x509_parse(b, len, &c, &e), -EBADMSG, "sigalg mismatch");
        CHECK(strstr(e.what, "signatureAlgorithm") && e.offset == (size_t)(second - b) - 4,
              "mismatch detail: %s at %zu", e.what, e.offset);
        second[8] = 0x0b;
    }
    /* version 4: [0] { INTEGER 3 } */
    CHECK(b[8] == 0xa0 && b[10] == 0x02 && b[12] == 0x02, "version field where expected");
    b[12] = 3;
    memset(&e, 0, sizeof(e));
    CHECK_EQ_INT(kt_x509_parse(b, len, &c, &e), -EBADMSG, "version 4");
    CHECK(e.offset == 8, "version detail offset %zu", e.offset);
    b[12] = 2;
    /* trailing data */
    unsigned char *t = malloc(len + 1);
    memcpy(t, b, len);
    t[len] = 0;
    memset(&e, 0, sizeof(e));
    CHECK_EQ_INT(kt_x509_parse(t, len + 1, &c, &e), -EBADMSG, "trailing byte");
    CHECK(e.offset == len, "trailing byte offset %zu", e.offset);
    free(t);
    CHECK_EQ_INT(kt_x509_parse(b, len, &c, &e), 0, "restored certificate parses");
    if (c)
        kt_x509_free(c);
    free(b);
}

/* Every proper prefix must fail with -EBADMSG and an offset inside the
 * input; every single-byte corruption must not crash or leak. */
static void truncate_all(const char *label, const unsigned char *der, size_t len)
{
    int bad_rc = 0, bad_off = 0;
    for (size_t n = 0; n < len; n++) {
        unsigned char *p = malloc(n ? n : 1); /* exact size: ASan sees over-reads */
        memcpy(p, der, n);
        struct kt_x509 *c = NULL;
        struct kt_error e = {0};
        int rc = kt_x509_parse(p, n, &c, &e);
        if (rc != -EBADMSG)
            bad_rc++;
        if (rc == -EBADMSG && (e.code != -EBADMSG || (e.offset != KT_NO_OFFSET && e.offset > n)))
            bad_off++;
        if (rc == 0)
            kt_x509_free(c);
        free(p);
    }
    CHECK(bad_rc == 0, "%s: %d truncations did not give EBADMSG", label, bad_rc);
    CHECK(bad_off == 0, "%s: %d truncations without a good detail", label, bad_off);
    unsigned char *p = malloc(len);
    int ok = 0;
    for (size_t i = 0; i < len; i++) {
        memcpy(p, der, len);
        p[i] ^= (unsigned char)(0x55 + i);
        struct kt_x509 *c = NULL;
        struct kt_error e = {0};
        if (kt_x509_parse(p, len, &c, &e) == 0) {
            ok++;
            kt_x509_free(c);
        } else {
            CHECK(e.code != 0 && e.what[0], "%s: corruption at %zu: no detail", label, i);
        }
    }
    free(p);
    printf("%s: %zu truncations, %zu corruptions (%d still parse)\n", label, len, len, ok);
}

struct collect {
    int n;
    size_t offs[8], lens[8];
    unsigned char *first;
};
static int collect_cb(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    struct collect *c = ctx;
    if (c->n < 8) {
        c->offs[c->n] = off;
        c->lens[c->n] = len;
    }
    if (c->n == 0) {
        c->first = malloc(len);
        memcpy(c->first, der, len);
    }
    c->n++;
    return 0;
}

static void test_foreach(const char *corpus)
{
    char path[4200];
    size_t len;
    struct collect col = {0};
    struct kt_error e = {0};
    snprintf(path, sizeof(path), "%s/trust/microsoft-uefi-ca-2011.pem", corpus);
    unsigned char *pem = kt_test_slurp(path, &len);
    CHECK(pem != NULL, "read %s", path);
    if (!pem)
        return;
    CHECK_EQ_INT(kt_certs_foreach(pem, len, collect_cb, &col, &e), 0, "corpus PEM");
    CHECK_EQ_INT(col.n, 1, "one certificate");
    if (col.first) {
        struct kt_x509 *c;
        size_t dlen = col.lens[0];
        CHECK_EQ_INT(kt_x509_parse(col.first, dlen, &c, &e), 0, "MS UEFI CA 2011 parses");
        if (e.code == 0) {
            char hex[65];
            CHECK_EQ_STR(c->description,
                         "Microsoft Corporation UEFI CA 2011: 13adbf4309bd82709c8cd54f316ed522988a1bd4",
                         "MS UEFI CA description");
            CHECK_EQ_STR(kt_hex(c->sha256, 32, hex),
                         "48e99b991f57fc52f76149599bff0a58c47154229b9f8d603ac40d3500248507",
                         "MS UEFI CA sha256");
            kt_x509_free(c);
        }
        truncate_all("microsoft-uefi-ca-2011", col.first, dlen);
        free(col.first);
    }
    free(pem);

    /* a bundle, DER lists, junk */
    unsigned char *b = load("bundle.pem", &len);
    memset(&col, 0, sizeof(col));
    if (b) {
        CHECK_EQ_INT(kt_certs_foreach(b, len, collect_cb, &col, &e), 0, "bundle");
        CHECK_EQ_INT(col.n, 3, "bundle count");
        free(col.first);
        /* corrupt the base64 of the second certificate */
        char *second = strstr(strstr((char *)b, "-----END") + 1, "-----BEGIN CERTIFICATE-----\n");
        if (second) {
            size_t at = (size_t)(second - (char *)b) + 28 + 10;
            b[at] = '!';
            memset(&col, 0, sizeof(col));
            memset(&e, 0, sizeof(e));
            CHECK_EQ_INT(kt_certs_foreach(b, len, collect_cb, &col, &e), -EBADMSG, "bad base64");
            CHECK(e.offset == at, "bad base64 offset %zu want %zu", e.offset, at);
            CHECK_EQ_INT(col.n, 1, "first cert seen before the bad one");
            free(col.first);
        }
        free(b);
    }
    size_t l1, l2;
    unsigned char *d1 = load("ca.der", &l1), *d2 = load("rsa2048.der", &l2);
    if (d1 && d2) {
        unsigned char *cat = malloc(l1 + l2);
        memcpy(cat, d1, l1);
        memcpy(cat + l1, d2, l2);
        memset(&col, 0, sizeof(col));
        CHECK_EQ_INT(kt_certs_foreach(cat, l1 + l2, collect_cb, &col, &e), 0, "DER list");
        CHECK(col.n == 2 && col.offs[1] == l1 && col.lens[1] == l2, "DER list split");
        CHECK_EQ_INT(kt_x509_element_len(cat, l1 + l2), l1, "element_len");
        CHECK_EQ_INT(kt_x509_element_len(cat, 3), 0, "element_len truncated");
        free(col.first);
        truncate_all("generated rsa2048", d2, l2);
        free(cat);
    }
    free(d1), free(d2);
    static const char junk[] = "hello, world\n";
    memset(&e, 0, sizeof(e));
    CHECK_EQ_INT(kt_certs_foreach((const uint8_t *)junk, sizeof(junk) - 1, collect_cb, &col, &e),
                 -EBADMSG, "junk");
    static const char key[] = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
    memset(&e, 0, sizeof(e));
    CHECK_EQ_INT(kt_certs_foreach((const uint8_t *)key, sizeof(key) - 1, collect_cb, &col, &e),
                 -ENODATA, "PEM without a certificate");
    static const char noend[] = "-----BEGIN CERTIFICATE-----\nAAAA\n";
    memset(&e, 0, sizeof(e));
    CHECK_EQ_INT(kt_certs_foreach((const uint8_t *)noend, sizeof(noend) - 1, collect_cb, &col, &e),
                 -EBADMSG, "PEM without END");
}

/* The one serial formatter (x509 show, PKCS#7 signer ids): hex of the
 * INTEGER without leading zeros, a negative one as "-" and its magnitude
 * (as openssl x509 -serial prints, in lowercase). */
static void test_serial_hex(void)
{
    static const struct {
        const char *der; /* the INTEGER content, hex */
        const char *want;
    } cases[] = {
        {"01", "1"},         {"00", "0"},           {"0a1b", "a1b"},     {"00ff", "ff"},
        {"1001", "1001"},    {"00000102", "102"},   {"ff", "-1"},        {"80", "-80"},
        {"ff7f", "-81"},     {"fe", "-2"},          {"8000", "-8000"},   {"f0", "-10"},
        {"5ee11331142993a99cd5035b98534874661bdee5", "5ee11331142993a99cd5035b98534874661bdee5"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t b[64];
        size_t n = strlen(cases[i].der) / 2;
        for (size_t j = 0; j < n; j++)
            sscanf(cases[i].der + 2 * j, "%2hhx", &b[j]);
        char out[160];
        kt_x509_serial_hex_of((kt_span){b, n}, out, sizeof(out));
        CHECK_EQ_STR(out, cases[i].want, cases[i].der);
    }
}

int main(void)
{
    const char *corpus = kt_test_require_corpus();
    const char *src = getenv("KT_SRC");
    snprintf(dir, sizeof(dir), "%s/kt-test-x509.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "bash '%s/tests/fixtures/gen_certs.sh' '%s'", src ? src : ".", dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "gen_certs.sh failed\n");
        return 1;
    }
    snprintf(cmd, sizeof(cmd), "python3 '%s/tests/fixtures/craft_certs.py' '%s' '%s/rsa2048.key'",
             src ? src : ".", dir, dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "craft_certs.py failed\n");
        return 1;
    }
    test_descriptions();
    test_fields();
    test_serial_hex();
    test_crafted();
    test_bad();
    test_foreach(corpus);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    KT_TEST_END();
}
