/* PE parsing, certificate tables and Authenticode image digests on the
 * corpus.  Oracles: `pesign -h -i FILE` (sha256 image hash, recorded below)
 * and uthenticode's expected digests (corpus README). */
#include <stdio.h>
#include <string.h>

#include "kt_test.h"
#include "crypto/crypto.h"
#include "pe/pe.h"
#include "util/file.h"
#include "util/fmt.h"

struct digest_case {
    const char *file;
    int rc;               /* expected kt_pe_parse result */
    size_t n_certs;
    const char *sha256;   /* pesign -h */
    const char *sha1, *md5;
};

static const struct digest_case cases[] = {
    {"debian/grubx64.efi.signed", 0, 1,
     "a68f6d71ebddaa19751ff8d729f67d11b0df8e4c49400c3e7e90de16119e1265", NULL, NULL},
    {"debian/mmx64.efi.signed", 0, 1,
     "0acfb229cd4f28f785811feed45dcea07d0bdaeb9e231793371c659980c0fe51", NULL, NULL},
    {"debian/shimx64.efi.signed", 0, 2,
     "80a66d53a945d2286fcadd780fae1c225aa732079cd67b5225dc78aaab4e2ff8", NULL, NULL},
    {"debian/vmlinuz-6.1.0-57-amd64", 0, 1,
     "61e79ca0acd7e9f18984bea7b44650801ed54fd95a8786c16c583b86acf9d538", NULL, NULL},
    {"windows/7za-x64-unsigned.exe", 0, 0,
     "b2263b6ae672cea26aaab932a70d508fe435541710d19c67e4f6486b7a622a2a", NULL, NULL},
    {"windows/signtool-electron-windows-sign-1.2.2.exe", 0, 1,
     "6f40d40f80257f00b0c632abf8e0175a811a5dee84d4efa2db4cc2b50a5dc816", NULL, NULL},
    {"peers/uthenticode/32/pegoat.exe", 0, 0,
     "6b7fa3e8298f33bc47f4abb9c845930b1eacc0dad96503cfa52d4ea18ddc89f0", NULL, NULL},
    {"peers/uthenticode/32/pegoat-authenticode.exe", 0, 1,
     "ea013992f99840f76dcac225dd1262edcec3254511b250a6d1e98d99fc48f815",
     "6663dd7c24fa84fce7f16e0b02689952c06cfa22", "64c29391b57679b2973ac562cf64685d"},
    {"peers/uthenticode/32/pegoat-authenticode_duplicated.exe", 0, 2,
     "ea013992f99840f76dcac225dd1262edcec3254511b250a6d1e98d99fc48f815",
     "6663dd7c24fa84fce7f16e0b02689952c06cfa22", "64c29391b57679b2973ac562cf64685d"},
    {"peers/uthenticode/64/pegoat-authenticode.exe", 0, 1,
     "5c823491c5991914aec971d9456d93d6cf2b8ee7e0ed7abc0b77031d8ec073c0",
     "2559e91a60953a5e16f9650f5f88953a2cca5425", "ea0235b77d552633c5a38974cef0e2b5"},
    {"peers/uthenticode/32/pegoat-authenticode-nested.exe", 0, 1,
     "f10c2600304ec64414a97e10cb19dd4c755f9e7079f85feb38ee7ff9f938db99", NULL, NULL},
    {"peers/uthenticode/64/pegoat-authenticode-nested.exe", 0, 1,
     "ddc5b39c4292120745eb86a67eaa331032cc05a0dafaf6e28ec9aa0f189c408d", NULL, NULL},
    {"peers/uthenticode/A_SSLippery_Slope.exe", 0, 1,
     "0f7ec8d14ccde438174cd9f25ebe9ddcced47576a5049a459b4f610333ed0f90", NULL, NULL},
    /* stuffing: the table overlaps .rsrc and data follows it */
    {"peers/uthenticode/YourPhone.exe", -ELIBBAD, 0, NULL, NULL, NULL},
};

int main(void)
{
    const char *corpus = kt_test_require_corpus();
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct digest_case *c = &cases[i];
        char path[8400];
        snprintf(path, sizeof(path), "%s/%s", corpus, c->file);
        struct kt_file f;
        struct kt_error err = {0};
        int rc = kt_file_open(path, &f, &err);
        CHECK(rc == 0, "%s: open: %s", c->file, err.what);
        if (rc)
            continue;
        struct kt_pe *pe = NULL;
        rc = kt_pe_parse(f.data, f.len, &pe, &err);
        CHECK_EQ_INT(rc, c->rc, c->file);
        if (rc == 0) {
            struct kt_pe_cert certs[KT_PE_MAX_CERTS];
            size_t n = 99;
            rc = kt_pe_cert_table(pe, certs, KT_PE_MAX_CERTS, &n, &err);
            CHECK(rc == 0, "%s: cert table: %s", c->file, err.what);
            CHECK_EQ_INT(n, c->n_certs, c->file);
            enum kt_hash hs[3] = {KT_HASH_SHA256, KT_HASH_SHA1, KT_HASH_MD5};
            uint8_t d[3][KT_HASH_MAX_SIZE];
            rc = kt_pe_image_digest(pe, hs, 3, d, &err);
            CHECK(rc == 0, "%s: digest: %s", c->file, err.what);
            char hex[129];
            CHECK_EQ_STR(kt_hex(d[0], 32, hex), c->sha256, c->file);
            if (c->sha1)
                CHECK_EQ_STR(kt_hex(d[1], 20, hex), c->sha1, c->file);
            if (c->md5)
                CHECK_EQ_STR(kt_hex(d[2], 16, hex), c->md5, c->file);
            kt_pe_free(pe);
        } else {
            CHECK(err.what[0] && err.offset != KT_NO_OFFSET, "%s: detail with offset", c->file);
            printf("%s: %s (at offset %zu)\n", c->file, err.what, err.offset);
        }
        kt_file_close(&f);
    }
    /* shim's .vendor_cert section: the header the corpus README describes */
    {
        char path[8400];
        snprintf(path, sizeof(path), "%s/debian/shimx64.efi.signed", corpus);
        struct kt_file f;
        struct kt_pe *pe = NULL;
        CHECK(kt_file_open(path, &f, NULL) == 0, "open shim");
        CHECK(kt_pe_parse(f.data, f.len, &pe, NULL) == 0, "parse shim");
        kt_span vc = {0};
        CHECK(pe && kt_pe_find_section(pe, ".vendor_cert", &vc) == 0, "shim .vendor_cert");
        CHECK(vc.len >= 16, ".vendor_cert size");
        if (vc.len >= 16) {
            uint32_t v[4];
            memcpy(v, vc.p, 16);
            CHECK_EQ_INT(v[0], 930, "authorized size");
            CHECK_EQ_INT(v[1], 8664, "deauthorized size");
            CHECK_EQ_INT(v[2], 16, "authorized offset");
            CHECK_EQ_INT(v[3], 946, "deauthorized offset");
            uint8_t h[32];
            char hex[65];
            kt_digest(KT_HASH_SHA256, vc.p + 16, 930, h);
            CHECK_EQ_STR(kt_hex(h, 32, hex),
                         "079646974bce09b1f04da67bd722d1fb0947ae4c4010bccdbba52d5b23cbf1a2",
                         "Debian Secure Boot CA");
        }
        CHECK(pe && kt_pe_find_section(pe, ".nosuch", &vc) == -ENOENT, "missing section");
        kt_pe_free(pe);
        kt_file_close(&f);
    }
    KT_TEST_END();
}
