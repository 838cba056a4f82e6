/* test_esl.c - EFI signature lists: efitools interoperability both ways,
 * the real efivars of the corpus, and malformed lists. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crypto/crypto.h"
#include "esl/esl.h"
#include "kt_test.h"
#include "util/fmt.h"

static char tmp[256];

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    return system(cmd);
}

static unsigned char *slurpf(size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static unsigned char *slurpf(size_t *len, const char *fmt, ...)
{
    char path[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof(path), fmt, ap);
    va_end(ap);
    return kt_test_slurp(path, len);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Collect entries. */
struct coll {
    size_t n, n_x509, n_sha256, n_tbs;
    struct kt_esl_entry e[128];
};
static int collect(void *ctx, const struct kt_esl_entry *e)
{
    struct coll *c = ctx;
    if (c->n < 128)
        c->e[c->n] = *e;
    c->n++;
    c->n_x509 += e->type == KT_ESL_X509;
    c->n_sha256 += e->type == KT_ESL_SHA256;
    c->n_tbs += e->type == KT_ESL_X509_SHA256 || e->type == KT_ESL_X509_SHA384 ||
                e->type == KT_ESL_X509_SHA512;
    return 0;
}

static const uint8_t owner[16] = {0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x33, 0x33,
                                  0x44, 0x44, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55};
#define OWNER_STR "11111111-2222-3333-4444-555555555555"

static void efitools_to_kt(const unsigned char *a, size_t alen)
{
    /* cert-to-efi-sig-list (PEM in) -> kt_esl_foreach */
    CHECK(run("cert-to-efi-sig-list -g " OWNER_STR " %s/a.pem %s/a.esl >/dev/null 2>&1", tmp,
              tmp) == 0,
          "cert-to-efi-sig-list");
    size_t len;
    unsigned char *esl = slurpf(&len, "%s/a.esl", tmp);
    CHECK(esl != NULL, "read a.esl");
    if (!esl)
        return;
    struct coll c = {0};
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_esl_foreach(esl, len, collect, &c, &e), 0, "parse efitools ESL");
    CHECK_EQ_INT(c.n, 1, "one entry");
    CHECK(c.e[0].type == KT_ESL_X509, "type x509");
    CHECK(c.e[0].data.len == alen && !memcmp(c.e[0].data.p, a, alen), "same DER");
    CHECK(!memcmp(c.e[0].owner, owner, 16), "owner GUID");
    CHECK_EQ_INT(c.e[0].offset, 44, "data offset");
    CHECK(kt_esl_looks_like(esl, len), "looks like ESL");
    /* and our builder writes the very same bytes */
    kt_span s = {a, alen};
    uint8_t *mine;
    size_t mlen;
    CHECK_EQ_INT(kt_esl_build_x509(&s, 1, owner, &mine, &mlen), 0, "build");
    CHECK(mlen == len && !memcmp(mine, esl, len), "builder output == cert-to-efi-sig-list");
    free(mine);

    /* a signed update (EFI_VARIABLE_AUTHENTICATION_2) is unwrapped */
    CHECK(run("cd %s && sign-efi-sig-list -k a.key -c a.pem db a.esl a.auth >/dev/null 2>&1",
              tmp) == 0,
          "sign-efi-sig-list");
    size_t alen2;
    unsigned char *auth = slurpf(&alen2, "%s/a.auth", tmp);
    if (auth) {
        struct coll c2 = {0};
        struct kt_error e2 = {0};
        CHECK(alen2 > len + 40, "auth is bigger");
        CHECK_EQ_INT(kt_esl_foreach(auth, alen2, collect, &c2, &e2), 0, "parse .auth");
        CHECK_EQ_INT(c2.n, 1, ".auth: one entry");
        CHECK(c2.n && c2.e[0].data.len == alen && !memcmp(c2.e[0].data.p, a, alen),
              ".auth: same DER");
        CHECK(c2.n && c2.e[0].offset == alen2 - len + 44, ".auth: absolute offset");
        CHECK(kt_esl_looks_like(auth, alen2), ".auth looks like ESL");
        free(auth);
    } else {
        CHECK(0, "no a.auth");
    }

    /* efivarfs form: a 4-byte attribute word in front */
    unsigned char *var = malloc(len + 4);
    memcpy(var, "\x07\x00\x00\x00", 4);
    memcpy(var + 4, esl, len);
    struct coll c3 = {0};
    CHECK_EQ_INT(kt_esl_foreach(var, len + 4, collect, &c3, NULL), 0, "efivarfs prefix");
    CHECK(c3.n == 1 && c3.e[0].offset == 48, "prefix skipped, offset 48");
    free(var);
    free(esl);
}

static void kt_to_efitools(const unsigned char *a, size_t alen, const unsigned char *b,
                           size_t blen)
{
    kt_span certs[2] = {{a, alen}, {b, blen}};
    uint8_t *out;
    size_t olen;
    CHECK_EQ_INT(kt_esl_build_x509(certs, 2, owner, &out, &olen), 0, "build 2");
    CHECK_EQ_INT(olen, 2 * (28 + 16) + alen + blen, "built size");
    char path[512];
    snprintf(path, sizeof(path), "%s/two.esl", tmp);
    FILE *f = fopen(path, "wb");
    fwrite(out, 1, olen, f);
    fclose(f);
    CHECK(run("cd %s && sig-list-to-certs two.esl two >/dev/null 2>&1", tmp) == 0,
          "sig-list-to-certs");
    size_t l0, l1;
    unsigned char *d0 = slurpf(&l0, "%s/two-0.der", tmp), *d1 = slurpf(&l1, "%s/two-1.der", tmp);
    CHECK(d0 && l0 == alen && !memcmp(d0, a, alen), "sig-list-to-certs gives a.der back");
    CHECK(d1 && l1 == blen && !memcmp(d1, b, blen), "sig-list-to-certs gives b.der back");
    free(d0);
    free(d1);
    struct coll c = {0};
    CHECK_EQ_INT(kt_esl_foreach(out, olen, collect, &c, NULL), 0, "reparse");
    CHECK(c.n == 2 && c.e[1].list_index == 1 && c.e[1].entry_index == 0, "two lists");
    free(out);
    /* empty */
    CHECK_EQ_INT(kt_esl_build_x509(NULL, 0, NULL, &out, &olen), 0, "build 0");
    CHECK(olen == 0, "empty output");
    free(out);
}

static void hashes(void)
{
    const char *efi = "/usr/lib/efitools/x86_64-linux-gnu/HelloWorld.efi";
    if (access(efi, R_OK) != 0) {
        printf("note: %s missing, hash-to-efi-sig-list case skipped\n", efi);
        return;
    }
    CHECK(run("hash-to-efi-sig-list %s %s/h.esl >/dev/null 2>&1", efi, tmp) == 0,
          "hash-to-efi-sig-list");
    size_t len;
    unsigned char *esl = slurpf(&len, "%s/h.esl", tmp);
    struct coll c = {0};
    CHECK_EQ_INT(kt_esl_foreach(esl, len, collect, &c, NULL), 0, "parse hash list");
    CHECK(c.n == 1 && c.e[0].type == KT_ESL_SHA256 && c.e[0].data.len == 32, "one sha256");
    if (c.n != 1) {
        free(esl);
        return;
    }
    /* oracle: pesign's Authenticode digest of the same file */
    char cmd[600], line[256] = "", hex[65];
    snprintf(cmd, sizeof(cmd), "pesign -h -i %s 2>/dev/null", efi);
    FILE *p = popen(cmd, "r");
    if (p) {
        if (!fgets(line, sizeof(line), p))
            line[0] = 0;
        pclose(p);
    }
    kt_hex(c.e[0].data.p, 32, hex);
    CHECK(strstr(line, hex) != NULL, "digest %s == pesign's (%s)", hex, line);
    /* our builder, same digest and owner: byte-identical */
    const uint8_t *dg[1] = {c.e[0].data.p};
    uint8_t *mine;
    size_t mlen;
    CHECK_EQ_INT(kt_esl_build_hashes(KT_ESL_SHA256, dg, 1, c.e[0].owner, &mine, &mlen), 0,
                 "build hashes");
    CHECK(mlen == len && !memcmp(mine, esl, len), "builder == hash-to-efi-sig-list");
    free(mine);
    free(esl);

    /* the other way: 3 digests -> sig-list-to-certs -> .hash files */
    uint8_t d[3][32];
    for (int i = 0; i < 3; i++)
        kt_digest(KT_HASH_SHA256, &i, sizeof(i), d[i]);
    const uint8_t *dp[3] = {d[0], d[1], d[2]};
    CHECK_EQ_INT(kt_esl_build_hashes(KT_ESL_SHA256, dp, 3, owner, &mine, &mlen), 0, "build 3");
    CHECK_EQ_INT(mlen, 28 + 3 * 48, "one list of 3");
    char path[512];
    snprintf(path, sizeof(path), "%s/h3.esl", tmp);
    FILE *f = fopen(path, "wb");
    fwrite(mine, 1, mlen, f);
    fclose(f);
    CHECK(run("cd %s && sig-list-to-certs h3.esl h3 >/dev/null 2>&1", tmp) == 0,
          "sig-list-to-certs hashes");
    for (int i = 0; i < 3; i++) {
        size_t hl;
        unsigned char *h = slurpf(&hl, "%s/h3-%d.hash", tmp, i);
        CHECK(h && hl == 32 && !memcmp(h, d[i], 32), "hash %d round trip", i);
        free(h);
    }
    free(mine);
    /* X509_SHA256 (tbs) lists: hash + 16-byte time */
    CHECK_EQ_INT(kt_esl_build_hashes(KT_ESL_X509_SHA384, dp, 1, NULL, &mine, &mlen), 0,
                 "build x509_sha384");
    CHECK_EQ_INT(mlen, 28 + 16 + 48 + 16, "x509_sha384 size");
    struct coll c2 = {0};
    CHECK_EQ_INT(kt_esl_foreach(mine, mlen, collect, &c2, NULL), 0, "reparse x509_sha384");
    CHECK(c2.n == 1 && c2.e[0].type == KT_ESL_X509_SHA384 && c2.e[0].data.len == 48, "tbs");
    free(mine);
    CHECK_EQ_INT(kt_esl_build_hashes(KT_ESL_X509, dp, 1, NULL, &mine, &mlen), -EINVAL,
                 "x509 is not a hash type");
}

static void corpus_vars(void)
{
    const char *corpus = kt_test_require_corpus();
    size_t len;
    unsigned char *db = slurpf(&len, "%s/peers/shim-efivars/efivars-0/"
                                     "db-d719b2cb-3d3a-4596-a3bc-dad00e67656f", corpus);
    struct coll c = {0};
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_esl_foreach(db, len, collect, &c, &e), 0, "efivars-0 db");
    CHECK_EQ_INT(c.n_x509, 6, "six X509 entries");
    CHECK_EQ_INT(c.n, 11, "db entries (6 x509 + 5 sha256)");
    size_t lists = 0;
    int found_ms = 0;
    for (size_t i = 0; i < c.n && i < 128; i++) {
        if (c.e[i].type == KT_ESL_X509) {
            lists++;
            uint8_t h[32];
            char hex[65];
            kt_digest(KT_HASH_SHA256, c.e[i].data.p, c.e[i].data.len, h);
            kt_hex(h, 32, hex);
            if (!strcmp(hex, "48e99b991f57fc52f76149599bff0a58c47154229b9f8d603ac40d3500248507"))
                found_ms = 1;
            CHECK_EQ_INT(c.e[i].list_index, lists - 1, "one X509 per list");
        }
    }
    CHECK(found_ms, "Microsoft Corporation UEFI CA 2011 in db");
    free(db);

    unsigned char *dbx = slurpf(&len, "%s/peers/shim-efivars/efivars-0/"
                                      "dbx-d719b2cb-3d3a-4596-a3bc-dad00e67656f", corpus);
    struct coll c2 = {0};
    CHECK_EQ_INT(kt_esl_foreach(dbx, len, collect, &c2, NULL), 0, "dbx");
    CHECK_EQ_INT(c2.n_sha256, 77, "77 SHA256 hashes");
    CHECK_EQ_INT(c2.n, 77, "nothing else");
    free(dbx);

    static const struct {
        const char *name;
        int rc;
        size_t n;
    } v1[] = {
        {"KEK-8be4df61-93ca-11d2-aa0d-00e098032b8c", 0, 2},
        {"MokList-605dab50-e046-4300-abb6-3dd810dd8b23", 0, 1},
        {"MokListRT-605dab50-e046-4300-abb6-3dd810dd8b23", 0, 1},
        {"MokListX-605dab50-e046-4300-abb6-3dd810dd8b23", 0, 1},
        {"MokListXRT-605dab50-e046-4300-abb6-3dd810dd8b23", 0, 1},
        {"PK-8be4df61-93ca-11d2-aa0d-00e098032b8c", 0, 1},
        {"dbx-d719b2cb-3d3a-4596-a3bc-dad00e67656f", 0, 77},
        {"SbatLevel-605dab50-e046-4300-abb6-3dd810dd8b23", -EBADMSG, 0},
        {"SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c", -EBADMSG, 0},
    };
    for (size_t i = 0; i < sizeof(v1) / sizeof(v1[0]); i++) {
        unsigned char *b = slurpf(&len, "%s/peers/shim-efivars/efivars-1/%s", corpus, v1[i].name);
        CHECK(b != NULL, "read %s", v1[i].name);
        if (!b)
            continue;
        struct coll c3 = {0};
        struct kt_error e3 = {0};
        int rc = kt_esl_foreach(b, len, collect, &c3, &e3);
        CHECK(rc == v1[i].rc, "%s: rc %d want %d (%s)", v1[i].name, rc, v1[i].rc, e3.what);
        if (rc == 0)
            CHECK(c3.n == v1[i].n, "%s: %zu entries, want %zu", v1[i].name, c3.n, v1[i].n);
        else
            CHECK(e3.offset != KT_NO_OFFSET && e3.what[0], "%s: error detail", v1[i].name);
        CHECK(kt_esl_looks_like(b, len) == (rc == 0), "%s: looks_like", v1[i].name);
        free(b);
    }
    /* a broken list is still recognised as one (so its error is precise) */
    {
        uint8_t bl[40] = {0};
        memcpy(bl, kt_esl_guid_x509, 16);
        bl[16] = 0xff; /* list size past the end */
        CHECK(kt_esl_looks_like(bl, sizeof(bl)), "broken list still looks like an ESL");
        CHECK(!kt_esl_looks_like((const uint8_t *)"-----BEGIN CERTIFICATE-----\n", 28), "PEM");
    }
}

/* A one-entry SHA256 list to break in various ways. */
static size_t sha_list(uint8_t *b)
{
    memset(b, 0, 200);
    memcpy(b, kt_esl_guid_sha256, 16);
    put32(b + 16, 28 + 2 * 48);
    put32(b + 20, 0);
    put32(b + 24, 48);
    return 28 + 2 * 48;
}

static int count_entry(void *ctx, const struct kt_esl_entry *e)
{
    (void)e;
    ++*(int *)ctx;
    return 0;
}

static void malformed(void)
{
    /* an empty list with no buffer at all (shim's .vendor_cert without a
     * dbx): nothing, and no pointer arithmetic on NULL (a fuzz find) */
    int n_empty = 0;
    struct kt_error ee = {0};
    CHECK_EQ_INT(kt_esl_foreach(NULL, 0, count_entry, &n_empty, &ee), 0,
                 "empty list without a buffer");
    CHECK_EQ_INT(n_empty, 0, "... has no entries");
    uint8_t b[400];
    struct {
        const char *name;
        size_t field, len_delta;
        uint32_t value;
        size_t want_off;
    } cases[] = {
        {"SignatureSize 0", 24, 0, 0, 24},
        {"SignatureSize not dividing", 24, 0, 47, 24},
        {"SignatureSize wrong for sha256", 24, 0, 96 / 2 + 0, 0},
        {"SignatureSize 16", 24, 0, 16, 24},
        {"SignatureSize 0x7fffffff", 24, 0, 0x7fffffff, 24},
        {"SignatureSize 0xffffffff", 24, 0, 0xffffffff, 24},
        {"list size past end", 16, 0, 28 + 3 * 48, 16},
        {"list size 0x7fffffff", 16, 0, 0x7fffffff, 16},
        {"list size 0xffffffff", 16, 0, 0xffffffff, 16},
        {"list size below header", 16, 0, 27, 16},
        {"header size odd", 20, 0, 1, 20},
        {"header size 0xffffffff", 20, 0, 0xffffffff, 20},
        {"header size past list", 20, 0, 200, 20},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len = sha_list(b);
        if (!strcmp(cases[i].name, "SignatureSize wrong for sha256")) {
            /* 2 entries of 48 = 1 of 96: divides, but wrong for SHA256 */
            put32(b + 24, 96);
            cases[i].want_off = 24;
        } else {
            put32(b + cases[i].field, cases[i].value);
        }
        for (int pre = 0; pre < 2; pre++) { /* bare, and after a valid list */
            uint8_t in[400];
            size_t off = 0;
            if (pre) {
                off = sha_list(in);
            }
            memcpy(in + off, b, len);
            struct kt_error e = {0};
            struct coll c = {0};
            int rc = kt_esl_foreach(in, off + len, collect, &c, &e);
            CHECK(rc == -EBADMSG, "%s: rc %d", cases[i].name, rc);
            CHECK(e.offset == off + cases[i].want_off, "%s: offset %zu want %zu (%s)",
                  cases[i].name, e.offset, off + cases[i].want_off, e.what);
            CHECK(c.n == (pre ? 2u : 0u), "%s: entries before the bad list", cases[i].name);
        }
    }
    /* truncated header after a good list */
    size_t len = sha_list(b);
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_esl_foreach(b, len + 10, NULL, NULL, &e), -EBADMSG, "10 trailing bytes");
    CHECK_EQ_INT(e.offset, len, "offset of trailing bytes");
    /* X509 entry that is not a certificate */
    memset(b, 0, sizeof(b));
    memcpy(b, kt_esl_guid_x509, 16);
    put32(b + 16, 28 + 16 + 8);
    put32(b + 24, 16 + 8);
    memcpy(b + 44, "\x30\x82\x10\x00xxxx", 8);
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_esl_foreach(b, 52, NULL, NULL, &e), -EBADMSG, "x509 too long");
    CHECK_EQ_INT(e.offset, 44, "x509 offset");
    /* empty input and callback abort */
    CHECK_EQ_INT(kt_esl_foreach(NULL, 0, NULL, NULL, NULL), 0, "empty");
    CHECK(!kt_esl_looks_like(b, 10), "short is not an ESL");
    /* every truncation of a valid two-list input fails cleanly or succeeds */
    uint8_t two[400];
    size_t l1 = sha_list(two);
    memcpy(two + l1, two, l1);
    for (size_t n = 0; n <= 2 * l1; n++) {
        struct kt_error e2 = {0};
        int rc = kt_esl_foreach(two, n, NULL, NULL, &e2);
        int want = (n == 0 || n == l1 || n == 2 * l1) ? 0 : -EBADMSG;
        CHECK(rc == want, "truncated at %zu: rc %d", n, rc);
    }
}

int main(void)
{
    const char *src = getenv("KT_SRC");
    snprintf(tmp, sizeof(tmp), "/tmp/kt-esl.XXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    malformed();
    if (run("bash %s/tests/fixtures/make_kimage.sh %s certs", src ? src : ".", tmp) != 0) {
        CHECK(0, "fixture generation failed");
    } else {
        size_t alen, blen;
        unsigned char *a = slurpf(&alen, "%s/a.der", tmp), *b = slurpf(&blen, "%s/b.der", tmp);
        efitools_to_kt(a, alen);
        kt_to_efitools(a, alen, b, blen);
        hashes();
        free(a);
        free(b);
    }
    run("rm -rf %s", tmp);
    corpus_vars();
    KT_TEST_END();
}
