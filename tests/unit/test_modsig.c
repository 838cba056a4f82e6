/* Module signature trailer parsing, decompression limits, corpus modules. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kt_test.h"
#include "modsig/modsig.h"
#include "policy/keyrings.h"
#include "policy/load.h"
#include "policy/verify.h"
#include "util/fmt.h"

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

static size_t gzip_of(const uint8_t *in, size_t len, uint8_t **out)
{
    uLongf cap = compressBound(len) + 64;
    *out = malloc(cap);
    z_stream z;
    memset(&z, 0, sizeof(z));
    deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (uint8_t *)in;
    z.avail_in = (uInt)len;
    z.next_out = *out;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    size_t n = z.total_out;
    deflateEnd(&z);
    return n;
}

/* kt_modsig_prepare (keep) + kt_modsig_finish give kt_modsig_verify_set's
 * verdict although the file's bytes are overwritten in between (scan reuses
 * its read buffer); a tampered module prepared this way is still rejected,
 * and a compressed one keeps nothing of its decompressed bytes. */
static void check_prepared(const uint8_t *file, size_t len, const struct kt_trust_set *ts,
                           int want, const char *name)
{
    struct kt_modsig_result a, b;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    struct kt_error ea = {0}, eb = {0};
    int ra = kt_modsig_verify_set(file, len, ts, &a, &ea);
    uint8_t *copy = malloc(len);
    memcpy(copy, file, len);
    int rp = kt_modsig_prepare(copy, len, true, &b, &eb);
    memset(copy, 0xa5, len); /* the buffer is reused for the next file */
    free(copy);
    int rb = kt_modsig_finish(&b, ts, &eb);
    CHECK(ra == want, "%s: verify_set %d, want %d (%s)", name, ra, want, ea.what);
    CHECK(rb == ra, "%s: prepare+finish %d (prepare %d), verify_set %d (%s)", name, rb, rp, ra,
          eb.what);
    CHECK(strcmp(ea.what, eb.what) == 0, "%s: same reason: '%s' / '%s'", name, ea.what, eb.what);
    CHECK(ea.offset == eb.offset, "%s: same offset", name);
    CHECK(a.comp == b.comp && a.module_size == b.module_size, "%s: same module facts", name);
    if (a.msg && b.msg)
        CHECK(a.msg->signers[0].trusted_by == b.msg->signers[0].trusted_by &&
                  a.msg->signers[0].verdict == b.msg->signers[0].verdict,
              "%s: same signer result", name);
    kt_modsig_result_free(&a);
    kt_modsig_result_free(&b);
}

static void test_prepared(const char *corpus)
{
    char path[4200];
    struct kt_keyrings *k = NULL;
    CHECK_EQ_INT(kt_keyrings_new(&k), 0, "keyrings");
    snprintf(path, sizeof(path), "%.4000s/debian/vmlinuz-6.1.0-57-amd64", corpus);
    size_t klen;
    unsigned char *kimg = kt_test_slurp(path, &klen);
    CHECK(kimg != NULL, "read %s", path);
    if (!k || !kimg)
        return;
    size_t added = 0;
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_keyrings_add_kernel_keys(k, kimg, klen, "vmlinuz", true, &added, &e), 0,
                 "kernel keys");
    free(kimg);
    struct kt_trust_set ts;
    kt_trust_set_for(k, KT_VERIFY_PURPOSE_MODULE, &ts);
    snprintf(path, sizeof(path), "%.4000s/debian/modules/crc7.ko", corpus);
    size_t len;
    unsigned char *m = kt_test_slurp(path, &len);
    CHECK(m != NULL, "read %s", path);
    if (m) {
        check_prepared(m, len, &ts, 0, "crc7.ko");
        check_prepared(m, len, NULL, -ENOKEY, "crc7.ko, no keys");
        m[len / 3] ^= 0x01; /* the body: the digest changes */
        check_prepared(m, len, &ts, -EKEYREJECTED, "crc7.ko, tampered body");
        m[len / 3] ^= 0x01;
        m[len - 28 - 12 - 20] ^= 0x01; /* inside the RSA signature */
        check_prepared(m, len, &ts, -EKEYREJECTED, "crc7.ko, tampered signature");
        m[len - 28 - 12 - 20] ^= 0x01;
        uint8_t *gz;
        size_t gzlen = gzip_of(m, len, &gz);
        check_prepared(gz, gzlen, &ts, 0, "crc7.ko.gz");
        check_prepared(gz, gzlen / 2, &ts, -EBADMSG, "crc7.ko.gz, truncated");
        free(gz);
        check_prepared(m, len - 1, &ts, -ENODATA, "crc7.ko, magic cut");
        free(m);
    }
    kt_keyrings_free(k);
}

int main(void)
{
    test_trailer();
    test_decompress();
    const char *corpus = kt_test_corpus();
    if (corpus) {
        test_corpus(corpus);
        test_prepared(corpus);
    }
    else if (getenv("CI"))
        CHECK(0, "corpus not found but CI is set");
    else
        printf("corpus not found: corpus modules skipped\n");
    KT_TEST_END();
}
