/* test_esl_vendor_cert.c - shim's .vendor_cert section: the corpus shim and
 * generated sections. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/crypto.h"
#include "esl/esl.h"
#include "kt_test.h"
#include "x509/x509.h"
#include "util/fmt.h"

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Just enough PE section-table reading for the test (the real PE parser
 * lives in src/pe/). */
static int find_section(const uint8_t *img, size_t len, const char *name, size_t *off,
                        size_t *size)
{
    if (len < 0x40)
        return -1;
    size_t pe = le32(img + 0x3c);
    if (pe + 24 > len || memcmp(img + pe, "PE\0\0", 4))
        return -1;
    size_t nsec = le16(img + pe + 6), opt = le16(img + pe + 20);
    size_t tab = pe + 24 + opt;
    for (size_t i = 0; i < nsec && tab + 40 * (i + 1) <= len; i++) {
        const uint8_t *s = img + tab + 40 * i;
        char nm[64] = {0};
        memcpy(nm, s, 8);
        if (nm[0] == '/') { /* long name: offset into the COFF string table */
            size_t symtab = le32(img + pe + 12), nsyms = le32(img + pe + 16);
            size_t str = symtab + nsyms * 18 + (size_t)atoi(nm + 1);
            if (symtab && str < len)
                snprintf(nm, sizeof(nm), "%.*s", (int)(len - str < 63 ? len - str : 63),
                         (const char *)img + str);
        }
        if (!strcmp(nm, name)) {
            size_t vsize = le32(s + 8), raw = le32(s + 16), ptr = le32(s + 20);
            *off = ptr;
            *size = vsize < raw ? vsize : raw;
            return ptr + *size <= len ? 0 : -1;
        }
    }
    return -1;
}

struct counts {
    size_t n, sha256, x509, other;
};
static int count(void *ctx, const struct kt_esl_entry *e)
{
    struct counts *c = ctx;
    c->n++;
    c->sha256 += e->type == KT_ESL_SHA256;
    c->x509 += e->type == KT_ESL_X509;
    c->other += e->type != KT_ESL_SHA256 && e->type != KT_ESL_X509;
    return 0;
}

static void corpus_shim(void)
{
    const char *corpus = kt_test_require_corpus();
    char path[4200];
    snprintf(path, sizeof(path), "%s/debian/shimx64.efi.signed", corpus);
    size_t len;
    unsigned char *img = kt_test_slurp(path, &len);
    CHECK(img != NULL, "read shim");
    if (!img)
        return;
    size_t off = 0, size = 0;
    CHECK(find_section(img, len, ".vendor_cert", &off, &size) == 0, "find .vendor_cert");
    struct kt_vendor_cert vc;
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_vendor_cert_parse((kt_span){img + off, size}, off, &vc, &e), 0,
                 "parse .vendor_cert");
    CHECK_EQ_INT(vc.authorized.len, 930, "authorized size");
    CHECK_EQ_INT(vc.deauthorized.len, 8664, "deauthorized size");
    CHECK_EQ_INT(vc.authorized_offset, off + 16, "authorized offset");
    CHECK_EQ_INT(vc.deauthorized_offset, off + 946, "deauthorized offset");
    CHECK(!vc.authorized_is_esl, "authorized is one DER certificate");
    uint8_t h[32];
    char hex[65];
    kt_digest(KT_HASH_SHA256, vc.authorized.p, vc.authorized.len, h);
    kt_hex(h, 32, hex);
    CHECK_EQ_STR(hex, "079646974bce09b1f04da67bd722d1fb0947ae4c4010bccdbba52d5b23cbf1a2",
                 "Debian Secure Boot CA fingerprint");
    struct kt_x509 *c = NULL;
    if (kt_x509_parse(vc.authorized.p, vc.authorized.len, &c, NULL) == 0) {
        CHECK_EQ_STR(c->subject_cn, "Debian Secure Boot CA", "subject CN");
        kt_x509_free(c);
    } else {
        CHECK(0, "kt_x509_parse of the vendor certificate");
    }
    struct counts n = {0};
    CHECK_EQ_INT(kt_esl_foreach(vc.deauthorized.p, vc.deauthorized.len, count, &n, NULL), 0,
                 "vendor dbx parses");
    /* 8664 bytes of SHA256 entries: each list 28 + 48 * k */
    CHECK(n.n > 0 && n.sha256 + n.x509 == n.n, "vendor dbx: %zu entries (%zu sha256, %zu x509)",
          n.n, n.sha256, n.x509);
    /* 8664 = 114 lists of (28-byte header + one 16+32-byte SHA256 entry) */
    CHECK_EQ_INT(n.n, 114, "vendor dbx entries");
    printf("corpus shim vendor dbx: %zu entries (%zu sha256, %zu x509)\n", n.n, n.sha256,
           n.x509);
    free(img);
}

static void generated(void)
{
    /* authorized: an ESL with one SHA256 entry; deauthorized: an ESL */
    uint8_t dg[32] = {1, 2, 3};
    const uint8_t *dp[1] = {dg};
    uint8_t *esl;
    size_t elen;
    if (kt_esl_build_hashes(KT_ESL_SHA256, dp, 1, NULL, &esl, &elen) != 0)
        return;
    uint8_t sec[512] = {0};
    size_t base = 0x1000;
    put32(sec, (uint32_t)elen);
    put32(sec + 4, (uint32_t)elen);
    put32(sec + 8, 16);
    put32(sec + 12, (uint32_t)(16 + elen));
    memcpy(sec + 16, esl, elen);
    memcpy(sec + 16 + elen, esl, elen);
    size_t slen = 16 + 2 * elen;
    struct kt_vendor_cert vc;
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_vendor_cert_parse((kt_span){sec, slen}, base, &vc, &e), 0, "esl/esl");
    CHECK(vc.authorized_is_esl, "authorized ESL detected");
    CHECK_EQ_INT(vc.deauthorized_offset, base + 16 + elen, "deauthorized offset");

    struct {
        const char *name;
        size_t field;
        uint32_t value;
        size_t want_off;
    } bad[] = {
        {"authorized size past end", 0, 0xffffffff, 0},
        {"authorized offset past end", 8, 0x7fffffff, 0},
        {"deauthorized size past end", 4, (uint32_t)slen, 4},
        {"deauthorized offset past end", 12, 0xfffffff0, 4},
        {"authorized overlaps header", 8, 4, 0},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint8_t s2[512];
        memcpy(s2, sec, sizeof(s2));
        put32(s2 + bad[i].field, bad[i].value);
        e = (struct kt_error){0};
        CHECK(kt_vendor_cert_parse((kt_span){s2, slen}, base, &vc, &e) == -EBADMSG, "%s",
              bad[i].name);
        CHECK(e.offset == base + bad[i].want_off, "%s: offset %zu (%s)", bad[i].name, e.offset,
              e.what);
    }
    /* authorized part that is neither DER nor ESL */
    uint8_t s3[512];
    memcpy(s3, sec, sizeof(s3));
    memset(s3 + 16, 0xee, elen);
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_vendor_cert_parse((kt_span){s3, slen}, base, &vc, &e), -EBADMSG, "garbage");
    CHECK_EQ_INT(e.offset, base + 16, "garbage offset");
    /* deauthorized ESL with a bad SignatureSize: offset inside the file */
    memcpy(s3, sec, sizeof(s3));
    put32(s3 + 16 + elen + 24, 0);
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_vendor_cert_parse((kt_span){s3, slen}, base, &vc, &e), -EBADMSG, "bad dbx");
    CHECK_EQ_INT(e.offset, base + 16 + elen + 24, "bad dbx offset");
    /* short section, empty parts */
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_vendor_cert_parse((kt_span){sec, 15}, base, &vc, &e), -EBADMSG, "short");
    uint8_t empty[16] = {0};
    CHECK_EQ_INT(kt_vendor_cert_parse((kt_span){empty, 16}, base, &vc, NULL), 0, "empty parts");
    CHECK(vc.authorized.len == 0 && vc.deauthorized.len == 0, "both empty");
    free(esl);
}

int main(void)
{
    generated();
    corpus_shim();
    KT_TEST_END();
}
