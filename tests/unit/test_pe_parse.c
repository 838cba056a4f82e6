/* PE structure rules on images built in memory: the minimal PE32+ builder,
 * section lookup, and every malformation the parser and the certificate
 * table walk must refuse with -ELIBBAD and an offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_test.h"
#include "crypto/crypto.h"
#include "pe/mscode.h"
#include "pe/pe.h"

static const uint8_t cert_a[] = {0x30, 0x03, 0x02, 0x01, 0x01};
static const uint8_t cert_b[] = {0x30, 0x04, 0x04, 0x02, 0xaa, 0xbb};
/* a stand-in PKCS#7 element: the table walk only reads its ASN.1 header */
static const uint8_t p7[] = {0x30, 0x0b, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02};

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct img {
    uint8_t *b;
    size_t len;
};

/* the builder's image (2 sections) */
static struct img build(void)
{
    kt_span certs[2] = {{cert_a, sizeof(cert_a)}, {cert_b, sizeof(cert_b)}};
    struct img im = {0};
    int rc = kt_pe_build_keylist(certs, 2, KT_PE_MACHINE_X64, &im.b, &im.len);
    CHECK(rc == 0, "build: %d", rc);
    return im;
}

static size_t certdir(const uint8_t *b) { return get32(b + 0x3c) + 24 + 112 + 4 * 8; }
static size_t sechdr(const uint8_t *b, int i) { return get32(b + 0x3c) + 24 + 240 + 40 * (size_t)i; }

/* append a certificate table of `entries` (already laid out) */
static struct img sign(struct img im, const uint8_t *tab, size_t tab_len)
{
    im.b = realloc(im.b, im.len + tab_len);
    memcpy(im.b + im.len, tab, tab_len);
    put32(im.b + certdir(im.b), (uint32_t)im.len);
    put32(im.b + certdir(im.b) + 4, (uint32_t)tab_len);
    im.len += tab_len;
    return im;
}

/* one WIN_CERTIFICATE with the stand-in PKCS#7, padded to 8 */
static size_t entry(uint8_t *out, uint32_t len_field, uint16_t rev, uint16_t type)
{
    memset(out, 0, 32);
    put32(out, len_field);
    out[4] = (uint8_t)rev;
    out[5] = (uint8_t)(rev >> 8);
    out[6] = (uint8_t)type;
    out[7] = (uint8_t)(type >> 8);
    memcpy(out + 8, p7, sizeof(p7));
    return (8 + sizeof(p7) + 7) & ~(size_t)7;
}

static int parse_rc(struct img im, size_t *ncerts, struct kt_error *e)
{
    struct kt_pe *pe;
    memset(e, 0, sizeof(*e));
    int rc = kt_pe_parse(im.b, im.len, &pe, e);
    if (rc < 0)
        return rc;
    struct kt_pe_cert certs[KT_PE_MAX_CERTS];
    size_t n = 0;
    rc = kt_pe_cert_table(pe, certs, KT_PE_MAX_CERTS, &n, e);
    if (ncerts)
        *ncerts = n;
    kt_pe_free(pe);
    return rc;
}

struct bad_case {
    const char *name;
    void (*mutate)(struct img *im);
};

static void m_no_mz(struct img *im) { im->b[0] = 'X'; }
static void m_lfanew(struct img *im) { put32(im->b + 0x3c, 0xfffffff0u); }
static void m_pesig(struct img *im) { im->b[get32(im->b + 0x3c) + 1] = 'X'; }
static void m_magic(struct img *im) { im->b[get32(im->b + 0x3c) + 24] = 0x07; }
static void m_ndirs(struct img *im) { put32(im->b + get32(im->b + 0x3c) + 24 + 108, 200); }
static void m_nsect(struct img *im) { im->b[get32(im->b + 0x3c) + 6] = 0xff; }
static void m_sect_past_end(struct img *im) { put32(im->b + sechdr(im->b, 1) + 16, 0x100000); }
static void m_overlap(struct img *im) { put32(im->b + sechdr(im->b, 1) + 20, 0x300); }
static void m_hdrsize(struct img *im) { put32(im->b + get32(im->b + 0x3c) + 24 + 60, 0x7fffffff); }
static void m_table_past_end(struct img *im) { put32(im->b + certdir(im->b) + 4, 0x10000); }
static void m_table_overlaps(struct img *im) { put32(im->b + certdir(im->b), 0x500); }
static void m_trailing(struct img *im)
{
    im->b = realloc(im->b, im->len + 16);
    memset(im->b + im->len, 0, 16);
    im->len += 16;
}
static void m_truncated(struct img *im) { im->len -= 8; }

static const struct bad_case bad[] = {
    {"no MZ", m_no_mz},
    {"e_lfanew past end", m_lfanew},
    {"no PE signature", m_pesig},
    {"bad optional header magic", m_magic},
    {"NumberOfRvaAndSizes too large", m_ndirs},
    {"section table past end", m_nsect},
    {"section data past end", m_sect_past_end},
    {"overlapping sections", m_overlap},
    {"SizeOfHeaders past end", m_hdrsize},
    {"certificate table past end", m_table_past_end},
    {"certificate table overlaps sections", m_table_overlaps},
    {"data after the certificate table", m_trailing},
    {"file truncated inside the table", m_truncated},
};

int main(void)
{
    struct kt_error e;
    /* the builder's output parses, with the right shape */
    struct img im = build();
    struct kt_pe *pe = NULL;
    CHECK(kt_pe_parse(im.b, im.len, &pe, &e) == 0, "parse built image: %s", e.what);
    if (pe) {
        CHECK(pe->pe32plus, "PE32+");
        CHECK_EQ_INT(pe->machine, 0x8664, "machine");
        CHECK_EQ_INT(pe->subsystem, 10, "subsystem EFI application");
        CHECK_EQ_INT(pe->n_sections, 2, "sections");
        CHECK_EQ_INT(pe->cert_len, 0, "unsigned");
        CHECK_EQ_INT(pe->checksum, kt_pe_compute_checksum(im.b, im.len, pe->checksum_off),
                     "checksum");
        kt_span kl;
        CHECK(kt_pe_find_section(pe, ".keylist", &kl) == 0, ".keylist present");
        CHECK_EQ_INT(kl.len, sizeof(cert_a) + sizeof(cert_b), ".keylist length");
        CHECK(kl.len == 11 && memcmp(kl.p, cert_a, 5) == 0 && memcmp(kl.p + 5, cert_b, 6) == 0,
              ".keylist content");
        kt_span tx;
        CHECK(kt_pe_find_section(pe, ".text", &tx) == 0 && tx.len == 11 && tx.p[0] == 0x48,
              ".text stub");
        size_t n = 9;
        struct kt_pe_cert c[4];
        CHECK(kt_pe_cert_table(pe, c, 4, &n, &e) == 0 && n == 0, "no entries");
        kt_pe_free(pe);
    }
    {
        uint8_t *b;
        size_t len;
        kt_span one = {cert_a, sizeof(cert_a)};
        CHECK(kt_pe_build_keylist(&one, 1, KT_PE_MACHINE_AA64, &b, &len) == 0, "aa64 build");
        CHECK(kt_pe_parse(b, len, &pe, &e) == 0 && pe->machine == 0xaa64, "aa64 parse");
        kt_pe_free(pe);
        free(b);
        CHECK(kt_pe_build_keylist(&one, 0, KT_PE_MACHINE_X64, &b, &len) == -EINVAL, "no certs");
        CHECK(kt_pe_build_keylist(&one, 1, (enum kt_pe_machine)0x1234, &b, &len) == -EINVAL,
              "bad machine");
    }

    /* a well-formed table: one and two entries, exact and rounded lengths */
    uint8_t tab[64];
    size_t l1 = entry(tab, 8 + sizeof(p7), 0x0200, 2);
    size_t l2 = entry(tab + l1, (uint32_t)(8 + sizeof(p7) + 3), 0x0200, 2);
    struct img s1 = sign(build(), tab, l1);
    size_t n = 0;
    CHECK_EQ_INT(parse_rc(s1, &n, &e), 0, "one entry");
    CHECK_EQ_INT(n, 1, "one entry count");
    struct img s2 = sign(build(), tab, l1 + l2);
    CHECK_EQ_INT(parse_rc(s2, &n, &e), 0, "two entries");
    CHECK_EQ_INT(n, 2, "two entries count");

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct img x = sign(build(), tab, l1);
        bad[i].mutate(&x);
        int rc = parse_rc(x, NULL, &e);
        CHECK(rc == -ELIBBAD, "%s: rc %d, want -ELIBBAD", bad[i].name, rc);
        CHECK(e.what[0] && e.offset != KT_NO_OFFSET, "%s: detail with offset", bad[i].name);
        free(x.b);
    }

    /* entry-level malformations */
    struct {
        const char *name;
        uint32_t len;
        uint16_t rev, type;
        int pad_byte; /* -1: none; else the index of a non-zero padding byte */
        int dir_extra;
    } ent[] = {
        {"wrong revision", 8 + sizeof(p7), 0x0100, 2, -1, 0},
        {"wrong type", 8 + sizeof(p7), 0x0200, 1, -1, 0},
        {"zero-length entry", 0, 0x0200, 2, -1, 0},
        {"length shorter than the PKCS#7", 12, 0x0200, 2, -1, 0},
        {"non-zero padding (stuffing)", 8 + sizeof(p7), 0x0200, 2, 8 + (int)sizeof(p7) + 1, 0},
        {"length past the table", 200, 0x0200, 2, -1, 0},
        {"stuffed bytes inside dwLength", 8 + sizeof(p7) + 8, 0x0200, 2, -1, 8},
        {"sizes do not add up", 8 + sizeof(p7), 0x0200, 2, -1, 4},
    };
    for (size_t i = 0; i < sizeof(ent) / sizeof(ent[0]); i++) {
        uint8_t t[64] = {0};
        size_t l = entry(t, ent[i].len, ent[i].rev, ent[i].type) + (size_t)ent[i].dir_extra;
        if (ent[i].pad_byte >= 0)
            t[ent[i].pad_byte] = 0x41;
        struct img x = sign(build(), t, l);
        int rc = parse_rc(x, NULL, &e);
        CHECK(rc == -ELIBBAD, "%s: rc %d, want -ELIBBAD", ent[i].name, rc);
        CHECK(e.what[0] && e.offset != KT_NO_OFFSET, "%s: detail with offset", ent[i].name);
        free(x.b);
    }

    /* the image digest skips CheckSum and the certificate directory entry:
     * changing either leaves it unchanged; a section byte changes it */
    {
        enum kt_hash hs[2] = {KT_HASH_SHA256, KT_HASH_SHA1};
        uint8_t d0[2][KT_HASH_MAX_SIZE], d1[2][KT_HASH_MAX_SIZE];
        struct img u = build();
        CHECK(kt_pe_parse(u.b, u.len, &pe, &e) == 0, "parse");
        CHECK(kt_pe_image_digest(pe, hs, 2, d0, &e) == 0, "digest");
        uint8_t one[32];
        kt_digest(KT_HASH_SHA256, u.b, 1, one);
        kt_pe_free(pe);
        struct img sg = sign(build(), tab, l1);
        put32(sg.b + get32(sg.b + 0x3c) + 24 + 64, 0xdeadbeef);
        CHECK(kt_pe_parse(sg.b, sg.len, &pe, &e) == 0, "parse signed");
        CHECK(kt_pe_image_digest(pe, hs, 2, d1, &e) == 0, "digest signed");
        CHECK(memcmp(d0[0], d1[0], 32) == 0 && memcmp(d0[1], d1[1], 20) == 0,
              "digest ignores checksum, cert directory and table");
        kt_pe_free(pe);
        sg.b[0x400] ^= 1;
        CHECK(kt_pe_parse(sg.b, sg.len, &pe, &e) == 0, "parse flipped");
        CHECK(kt_pe_image_digest(pe, hs, 2, d1, &e) == 0, "digest flipped");
        CHECK(memcmp(d0[0], d1[0], 32) != 0, "section byte changes the digest");
        kt_pe_free(pe);
        /* the digest equals a plain hash of the image minus the skipped fields */
        size_t co = get32(u.b + 0x3c) + 24 + 64, cd = certdir(u.b);
        uint8_t *flat = malloc(u.len);
        size_t fl = 0;
        memcpy(flat, u.b, co);
        fl = co;
        memcpy(flat + fl, u.b + co + 4, cd - co - 4);
        fl += cd - co - 4;
        memcpy(flat + fl, u.b + cd + 8, u.len - cd - 8);
        fl += u.len - cd - 8;
        uint8_t want[32];
        kt_digest(KT_HASH_SHA256, flat, fl, want);
        CHECK(memcmp(want, d0[0], 32) == 0, "digest = hash of the image without skipped fields");
        free(flat);
        free(u.b);
        free(sg.b);
    }

    /* kt_pe_digest_covers: the bytes the digest hashes, and only those */
    {
        struct img sg = sign(build(), tab, l1);
        CHECK(kt_pe_parse(sg.b, sg.len, &pe, &e) == 0, "parse signed (covers)");
        if (pe) {
            size_t co = get32(sg.b + 0x3c) + 24 + 64;
            CHECK_EQ_INT(kt_pe_digest_covers(pe, 0, co, NULL), 1, "headers up to CheckSum");
            CHECK_EQ_INT(kt_pe_digest_covers(pe, co + 2, 1, NULL), 0, "CheckSum not covered");
            CHECK_EQ_INT(kt_pe_digest_covers(pe, certdir(sg.b), 8, NULL), 0,
                         "cert directory not covered");
            CHECK_EQ_INT(kt_pe_digest_covers(pe, pe->sections[0].raw_off,
                                             pe->sections[0].raw_size + pe->sections[1].raw_size,
                                             NULL),
                         1, "two adjacent sections");
            CHECK_EQ_INT(kt_pe_digest_covers(pe, pe->cert_off - 2, 2, NULL), 1, "up to the table");
            CHECK_EQ_INT(kt_pe_digest_covers(pe, pe->cert_off - 2, 3, NULL), 0, "into the table");
            CHECK_EQ_INT(kt_pe_digest_covers(pe, pe->cert_off, 1, NULL), 0, "certificate table");
            CHECK_EQ_INT(kt_pe_digest_covers(pe, sg.len, 1, NULL), 0, "past the end");
            kt_pe_free(pe);
        }
        free(sg.b);
    }

    /* a section table the digest does not cover: the first section (UPX
     * style, inside SizeOfHeaders) ends before it, the next starts after */
    {
        struct img x = build();
        put32(x.b + sechdr(x.b, 0) + 16, 0x40);  /* SizeOfRawData */
        put32(x.b + sechdr(x.b, 0) + 20, 0x80);  /* PointerToRawData */
        CHECK(sechdr(x.b, 0) > 0xc0, "the section table lies after the first section");
        int rc = parse_rc(x, NULL, &e);
        CHECK(rc == -ELIBBAD && strstr(e.what, "section table"),
              "uncovered section table: rc %d (%s)", rc, e.what);
        free(x.b);
    }

    /* mscode: a minimal SpcIndirectDataContent, and its refusals */
    {
        /* SEQ{ SEQ{ OID 1.3.6.1.4.1.311.2.1.15, SEQ{ BIT STRING 00, [0]{ [2]{ [0] "" } } } },
         *      SEQ{ SEQ{ OID sha256, NULL }, OCTET STRING (32) } } -- content only */
        uint8_t mc[200];
        size_t k = 0;
        const uint8_t head[] = {0x30, 0x17, 0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82,
                                0x37, 0x02, 0x01, 0x0f, 0x30, 0x09, 0x03, 0x01, 0x00, 0xa0,
                                0x04, 0xa2, 0x02, 0x80, 0x00};
        memcpy(mc, head, sizeof(head));
        k = sizeof(head);
        const uint8_t dig[] = {0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                               0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20};
        memcpy(mc + k, dig, sizeof(dig));
        k += sizeof(dig);
        memset(mc + k, 0x5a, 32);
        k += 32;
        struct kt_mscode m;
        CHECK(kt_mscode_parse(mc, k, NULL, &m, &e) == 0, "mscode parses: %s", e.what);
        CHECK_EQ_INT(m.digest_alg, KT_HASH_SHA256, "mscode alg");
        CHECK_EQ_INT(m.digest.len, 32, "mscode digest len");
        CHECK_EQ_INT(m.data_type, KT_OID_MS_PE_IMAGE_DATA, "mscode type");
        /* digest one byte short: -EBADMSG */
        uint8_t sh[200];
        memcpy(sh, mc, k);
        sh[sizeof(head) + 1] = 0x30;
        sh[sizeof(head) + 18] = 0x1f;
        memset(&e, 0, sizeof(e));
        CHECK_EQ_INT(kt_mscode_parse(sh, k - 1, NULL, &m, &e), -EBADMSG, "short digest");
        /* another data type (SPC_CAB_DATA ...2.1.25): -ENOPKG */
        memcpy(sh, mc, k);
        sh[13] = 0x19;
        memset(&e, 0, sizeof(e));
        CHECK_EQ_INT(kt_mscode_parse(sh, k, NULL, &m, &e), -ENOPKG, "other data type");
        /* the old pesign OID ...2.1.21 is accepted */
        memcpy(sh, mc, k);
        sh[13] = 0x15;
        CHECK_EQ_INT(kt_mscode_parse(sh, k, NULL, &m, &e), 0, "individual SP key purpose");
        /* truncations never crash and fail */
        int all_fail = 1;
        for (size_t t = 0; t < k; t++) {
            memset(&e, 0, sizeof(e));
            if (kt_mscode_parse(mc, t, NULL, &m, &e) == 0)
                all_fail = 0;
        }
        CHECK(all_fail, "every truncation fails");
    }
    free(im.b);
    free(s1.b);
    free(s2.b);
    KT_TEST_END();
}
