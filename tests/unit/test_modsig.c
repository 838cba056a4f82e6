/* Module signature trailer parsing, decompression limits, corpus modules. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kt_test.h"
#include "modsig/modsig.h"
#include "policy/verify.h"

/* body || sig || struct || magic, with the struct's fields given */
static size_t build(uint8_t *out, size_t body, size_t sig, const uint8_t ms[12])
{
    memset(out, 0xaa, body);
    memset(out + body, 0x30, sig);
    memcpy(out + body + sig, ms, 12);
    memcpy(out + body + sig + 12, KT_MODSIG_MAGIC, KT_MODSIG_MAGIC_LEN);
    return body + sig + 12 + KT_MODSIG_MAGIC_LEN;
}

static void test_trailer(void)
{
    static uint8_t buf[4096];
    struct kt_modsig_info in;
    struct kt_error e = {0};
    struct {
        const char *name;
        size_t body, sig;
        uint8_t ms[12];
        int want;
    } cases[] = {
        {"ok", 100, 50, {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 50}, 0},
        {"empty body", 0, 50, {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 50}, -EBADMSG},
        {"sig_len past start", 10, 50, {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 61}, -EBADMSG},
        {"sig_len huge", 10, 50, {0, 0, 2, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}, -EBADMSG},
        {"id_type 1", 100, 50, {0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 50}, -ENOPKG},
        {"algo set", 100, 50, {1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 50}, -EBADMSG},
        {"hash set", 100, 50, {0, 4, 2, 0, 0, 0, 0, 0, 0, 0, 0, 50}, -EBADMSG},
        {"signer_len set", 100, 50, {0, 0, 2, 3, 0, 0, 0, 0, 0, 0, 0, 50}, -EBADMSG},
        {"key_id_len set", 100, 50, {0, 0, 2, 0, 3, 0, 0, 0, 0, 0, 0, 50}, -EBADMSG},
        {"pad set", 100, 50, {0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 50}, -EBADMSG},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = build(buf, cases[i].body, cases[i].sig, cases[i].ms);
        e = (struct kt_error){0};
        int rc = kt_modsig_parse(buf, n, &in, &e);
        CHECK(rc == cases[i].want, "%s: got %d want %d (%s)", cases[i].name, rc, cases[i].want, e.what);
        if (rc < 0)
            CHECK(e.what[0] && e.offset != KT_NO_OFFSET && e.offset < n, "%s: detail with offset", cases[i].name);
        if (rc == 0) {
            CHECK_EQ_INT(in.module_len, cases[i].body, "module_len");
            CHECK(in.sig.p == buf + cases[i].body && in.sig.len == cases[i].sig, "sig span");
        }
    }
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_modsig_parse(buf, 100, &in, &e), -ENODATA, "no magic -> ENODATA");
    CHECK_EQ_INT(kt_modsig_parse(buf, 0, &in, &e), -ENODATA, "empty -> ENODATA");
    CHECK_EQ_INT(kt_modsig_parse((const uint8_t *)KT_MODSIG_MAGIC, KT_MODSIG_MAGIC_LEN, &in, &e),
                 -EBADMSG, "magic only -> EBADMSG");
}

static void test_decompress(void)
{
    /* a gzip bomb in miniature: 4 MiB of zeros, limit 1 MiB */
    size_t big = 4u << 20;
    uint8_t *zeros = calloc(1, big);
    uLongf clen = compressBound(big) + 32;
    uint8_t *gz = malloc(clen);
    z_stream z;
    memset(&z, 0, sizeof(z));
    deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    z.next_in = zeros;
    z.avail_in = (uInt)big;
    z.next_out = gz;
    z.avail_out = (uInt)clen;
    deflate(&z, Z_FINISH);
    size_t gzlen = z.total_out;
    deflateEnd(&z);
    CHECK_EQ_INT(kt_modsig_detect(gz, gzlen), KT_MODSIG_GZIP, "gzip detected");
    const uint8_t *out;
    size_t olen;
    uint8_t *owned = NULL;
    enum kt_modsig_comp comp;
    struct kt_error e = {0};
    int rc = kt_modsig_decompress(gz, gzlen, 1u << 20, &out, &olen, &owned, &comp, &e);
    CHECK_EQ_INT(rc, -E2BIG, "over the limit -> E2BIG");
    CHECK(strstr(e.what, "limit") != NULL, "clear message: %s", e.what);
    CHECK(owned == NULL, "nothing leaked to the caller");
    e = (struct kt_error){0};
    rc = kt_modsig_decompress(gz, gzlen, 8u << 20, &out, &olen, &owned, &comp, &e);
    CHECK(rc == 0 && olen == big && out[12345] == 0, "under the limit decompresses (%d %s)", rc, e.what);
    free(owned);
    owned = NULL;
    e = (struct kt_error){0};
    rc = kt_modsig_decompress(gz, gzlen / 2, 0, &out, &olen, &owned, &comp, &e);
    CHECK_EQ_INT(rc, -EBADMSG, "truncated gzip");
    static const uint8_t plain[] = "\x7f" "ELF....";
    rc = kt_modsig_decompress(plain, sizeof(plain), 0, &out, &olen, &owned, &comp, &e);
    CHECK(rc == 0 && out == plain && owned == NULL && comp == KT_MODSIG_NONE, "plain passes through");
    static const uint8_t badxz[] = {0xfd, '7', 'z', 'X', 'Z', 0, 1, 2, 3, 4, 5, 6, 7, 8};
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_modsig_decompress(badxz, sizeof(badxz), 0, &out, &olen, &owned, &comp, &e),
                 -EBADMSG, "corrupt xz");
    static const uint8_t badzst[] = {0x28, 0xb5, 0x2f, 0xfd, 9, 9, 9, 9, 9, 9};
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_modsig_decompress(badzst, sizeof(badzst), 0, &out, &olen, &owned, &comp, &e),
                 -EBADMSG, "corrupt zstd");
    free(gz);
    free(zeros);
}

static void test_corpus(const char *corpus)
{
    char path[4200];
    snprintf(path, sizeof(path), "%.4000s/debian/modules", corpus);
    DIR *d = opendir(path);
    CHECK(d != NULL, "open %s", path);
    if (!d)
        return;
    struct dirent *de;
    int n = 0, ok = 0;
    while ((de = readdir(d))) {
        if (!strstr(de->d_name, ".ko"))
            continue;
        char p[8400];
        snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
        size_t len;
        unsigned char *buf = kt_test_slurp(p, &len);
        if (!buf)
            continue;
        n++;
        struct kt_modsig_result r;
        memset(&r, 0, sizeof(r));
        struct kt_error e = {0};
        int rc = kt_modsig_verify(buf, len, NULL, &r, &e);
        char serial[64] = "";
        if (r.msg && r.msg->n_signers == 1) {
            const struct kt_pkcs7_signer *s = &r.msg->signers[0];
            kt_span m = kt_integer_magnitude(s->serial);
            if (m.len <= 31)
                kt_hex(m.p, m.len, serial);
            char issuer[256];
            if (rc == -ENOKEY && r.has_sig && r.msg->n_certs == 0 && !r.msg->has_content &&
                s->digest_alg == KT_HASH_SHA256 && !s->has_auth_attrs &&
                strcmp(serial, "5ee11331142993a99cd5035b98534874661bdee5") == 0 &&
                strcmp(kt_pkcs7_name_string(s->issuer_raw, issuer, sizeof(issuer)),
                       "CN=Build time autogenerated kernel key") == 0 &&
                s->sig_alg.pkey == KT_PKEY_RSA)
                ok++;
        }
        kt_modsig_result_free(&r);
        free(buf);
    }
    closedir(d);
    CHECK_EQ_INT(n, 41, "41 corpus modules");
    CHECK_EQ_INT(ok, 41, "each: no certs, sha256, RSA, signer id from the README, ENOKEY without keys");
}

int main(void)
{
    test_trailer();
    test_decompress();
    const char *corpus = kt_test_corpus();
    if (corpus)
        test_corpus(corpus);
    else if (getenv("CI"))
        CHECK(0, "corpus not found but CI is set");
    else
        printf("corpus not found: corpus modules skipped\n");
    KT_TEST_END();
}
