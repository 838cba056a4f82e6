/* test_sbat.c - shim's SBAT rules: .sbat CSV, SbatLevel payloads, the
 * revocation comparison, .sbat/.sbatlevel sections found in generated PEs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_test.h"
#include "pe/pe.h"
#include "ktrust/verify.h" /* kt_sbat_level_close */
#include "sbat/sbat.h"

static int parse_str(const char *s, struct kt_sbat *out, struct kt_error *e)
{
    memset(e, 0, sizeof(*e));
    return kt_sbat_parse((const uint8_t *)s, strlen(s), 100, out, e);
}

static int level_str(const char *s, size_t len, struct kt_sbat_level *l)
{
    struct kt_error e = {0};
    return kt_sbat_level_parse((const uint8_t *)s, len, l, &e);
}

static void test_csv(void)
{
    struct kt_sbat s;
    struct kt_error e;
    char b[64];
    /* BOM, CRLF, empty lines, extra columns dropped */
    CHECK_EQ_INT(parse_str("\xef\xbb\xbfsbat,1,SBAT Version,sbat,1,u\r\n\n"
                           "grub,5,F,grub,2.06,u2,extra,more\n",
                           &s, &e),
                 0, "bom+crlf");
    CHECK_EQ_INT(s.n, 2, "records");
    CHECK_EQ_STR(kt_sbat_col(&s.entries[0], KT_SBAT_URL, b, sizeof(b)), "u", "crlf dropped");
    CHECK_EQ_STR(kt_sbat_col(&s.entries[1], KT_SBAT_URL, b, sizeof(b)), "u2", "extra dropped");
    CHECK_EQ_INT(s.entries[1].generation, 5, "generation");
    CHECK_EQ_INT(s.entries[0].offset, 103, "offset past the BOM");
    kt_sbat_free(&s);
    /* real shim 16.1 reads .sbat only up to its first NUL (tests/boot:
     * sbat_after_nul, sbat_nul_line_start): a bad record after it is never
     * seen, nor a good one */
    static const char nul[] = "a,1,v,p,1,u\n\0bad\n";
    memset(&e, 0, sizeof(e));
    CHECK_EQ_INT(kt_sbat_parse((const uint8_t *)nul, sizeof(nul), 0, &s, &e), 0,
                 "a record after a NUL is not read");
    CHECK_EQ_INT(s.n, 1, "one record before the NUL");
    kt_sbat_free(&s);
    static const char nul2[] = "a,1,v,p,1,u\0\0\0grub,1,v,p,1,u";
    memset(&e, 0, sizeof(e));
    CHECK_EQ_INT(kt_sbat_parse((const uint8_t *)nul2, sizeof(nul2) - 1, 0, &s, &e), 0, "nul2");
    CHECK_EQ_INT(s.n, 1, "the NUL ends the data");
    kt_sbat_free(&s);
    /* zero records is fine */
    CHECK_EQ_INT(parse_str("", &s, &e), 0, "empty");
    CHECK_EQ_INT(s.n, 0, "no records");
    kt_sbat_free(&s);
    /* fewer than six columns, empty columns, trailing comma */
    CHECK_EQ_INT(parse_str("sbat,1,x,y,z\n", &s, &e), -EBADMSG, "five columns");
    CHECK(strstr(e.what, "5 columns") != NULL, "what: %s", e.what);
    CHECK_EQ_INT(e.offset, 100, "offset of the record");
    CHECK_EQ_INT(parse_str("ok,1,v,p,1,u\ngrub,,v,p,1,u\n", &s, &e), -EBADMSG, "empty col");
    CHECK_EQ_INT(e.offset, 100 + 13 + 5, "offset of the empty column");
    CHECK_EQ_INT(parse_str("grub,1,v,p,1,\n", &s, &e), -EBADMSG, "trailing comma");
    CHECK_EQ_INT(parse_str("grub,1,v,p,1", &s, &e), -EBADMSG, "five, no newline");
    CHECK_EQ_INT(parse_str("grub,1,v,p,1,u", &s, &e), 0, "six, no newline");
    kt_sbat_free(&s);
}

/* #23 item 1: records split at CR as shim splits them, only six columns
 * read, generations read with shim's atoi */
static void test_csv_shim(void)
{
    struct kt_sbat s;
    struct kt_error e;
    char b[64];
    /* CR-only line ends: two records (before: one, grub hidden in column 6) */
    CHECK_EQ_INT(parse_str("sbat,1,SBAT Version,sbat,1,u\rgrub,4,F,grub,2,u\r", &s, &e), 0,
                 "CR only");
    CHECK_EQ_INT(s.n, 2, "CR only: two records");
    CHECK_EQ_STR(s.n == 2 ? kt_sbat_col(&s.entries[1], KT_SBAT_COMPONENT, b, sizeof(b)) : "",
                 "grub", "CR only: grub");
    CHECK_EQ_INT(s.n == 2 ? s.entries[1].generation : 0, 4, "CR only: grub 4");
    CHECK_EQ_STR(kt_sbat_col(&s.entries[0], KT_SBAT_URL, b, sizeof(b)), "u", "no CR in the URL");
    kt_sbat_free(&s);
    /* a CR inside a line starts a record */
    CHECK_EQ_INT(parse_str("grub,5,F,grub,2,u\rgrub,4,x,y,z,w\n", &s, &e), 0, "CR inside");
    CHECK_EQ_INT(s.n, 2, "CR inside: two records");
    CHECK_EQ_INT(s.n == 2 ? s.entries[1].offset : 0, 118, "CR inside: offset");
    kt_sbat_free(&s);
    /* runs of CR and LF make no records */
    CHECK_EQ_INT(parse_str("\r\r\n\ngrub,4,x,y,z,w\n\r\n", &s, &e), 0, "runs");
    CHECK_EQ_INT(s.n, 1, "runs: one record");
    kt_sbat_free(&s);
    /* only six columns read: a trailing comma or an empty seventh is fine */
    CHECK_EQ_INT(parse_str("grub,5,F,grub,2,u,\n", &s, &e), 0, "trailing comma after six");
    CHECK_EQ_STR(kt_sbat_col(&s.entries[0], KT_SBAT_URL, b, sizeof(b)), "u", "sixth");
    kt_sbat_free(&s);
    CHECK_EQ_INT(parse_str("grub,5,F,grub,2,u,,x,\n", &s, &e), 0, "empty seventh");
    CHECK_EQ_INT(s.entries[0].ncols, 6, "six kept");
    kt_sbat_free(&s);
    CHECK_EQ_INT(parse_str("grub,5,F,grub,2,\n", &s, &e), -EBADMSG, "empty sixth");
    /* generations: shim's atoi */
    CHECK_EQ_INT(parse_str("grub, 5,F,grub,2,u\ngrub.x,\t07,F,g,2,u\n", &s, &e), 0, "atoi");
    CHECK_EQ_INT(s.entries[0].generation, 5, "\" 5\" is 5");
    CHECK_EQ_INT(s.entries[1].generation, 7, "\"\\t07\" is 7");
    kt_sbat_free(&s);
}

static void test_level_shim(void)
{
    struct kt_sbat_level l;
    struct kt_error e = {0};
    /* "grub, 5" is 5 (before: 0) */
    const char *lv = "sbat,1,2025021800\ngrub, 5\n";
    CHECK_EQ_INT(level_str(lv, strlen(lv), &l), 0, "grub, 5");
    CHECK_EQ_INT(l.n == 2 ? l.entries[1].generation : 0, 5, "level grub, 5 is 5");
    kt_sbat_level_free(&l);
    /* CR-only level */
    lv = "sbat,1,2025021800\rgrub,5\r";
    CHECK_EQ_INT(level_str(lv, strlen(lv), &l), 0, "CR level");
    CHECK_EQ_INT(l.n, 2, "CR level: two lines");
    CHECK_EQ_STR(l.stamp, "2025021800", "CR level: stamp");
    kt_sbat_level_free(&l);
    /* three columns read: a fourth and what follows are not looked at,
     * an empty third is refused (as shim's parse_sbat_var_data) */
    lv = "sbat,1,2025021800\ngrub,5,x,\n";
    CHECK_EQ_INT(level_str(lv, strlen(lv), &l), 0, "fourth column");
    kt_sbat_level_free(&l);
    lv = "sbat,1,2025021800\ngrub,5,\n";
    CHECK_EQ_INT(kt_sbat_level_parse((const uint8_t *)lv, strlen(lv), &l, &e), -EBADMSG,
                 "empty third");
    /* #23 item 8: the efivarfs attribute word by its value: 0x23 is '#' */
    static const char d23[] = "\x23\x00\x00\x00sbat,1,2024040900\ngrub,4\n";
    CHECK_EQ_INT(level_str(d23, sizeof(d23) - 1, &l), 0, "0x23 dump");
    CHECK_EQ_STR(l.stamp, "2024040900", "0x23 dump: stamp");
    CHECK(l.has_attributes && l.attributes == 0x23 && l.payload_off == 4, "0x23 attributes");
    CHECK_EQ_INT(l.n, 2, "0x23 dump: entries");
    kt_sbat_level_free(&l);
    static const char d07[] = "\x07\x00\x00\x00sbat,1,2024040900\n";
    CHECK_EQ_INT(level_str(d07, sizeof(d07) - 1, &l), 0, "0x07 dump");
    CHECK(l.has_attributes && l.attributes == 7, "0x07 attributes");
    kt_sbat_level_free(&l);
    /* a word with other bits is no attribute word: read as text, refused */
    static const char d40[] = "\x43\x00\x00\x00sbat,1,2024040900\n";
    CHECK_EQ_INT(level_str(d40, sizeof(d40) - 1, &l), -EBADMSG, "0x43 is not a dump");
    lv = "sbat,1,2024040900\n";
    CHECK_EQ_INT(level_str(lv, strlen(lv), &l), 0, "text");
    CHECK(!l.has_attributes && l.payload_off == 0, "text: no attributes");
    kt_sbat_level_free(&l);
}

/* shim's preserve_sbat_uefi_variable; the first cases are shim's own
 * test-sbat.c test_preserve_sbat_uefi_variable_* (their expected values) */
static int keeps(const char *cur, size_t len, const char *cand)
{
    struct kt_sbat_level l;
    char why[160];
    if (level_str(cur, len, &l) < 0) {
        /* a variable shim cannot parse as a level: only the raw rule counts */
        memset(&l, 0, sizeof(l));
        l.text = (uint8_t *)calloc(1, len + 1);
        if (!l.text)
            return -1;
        memcpy(l.text, cur, len);
        l.text_len = len;
        if (len >= 4 && (uint8_t)cur[1] == 0 && (uint8_t)cur[2] == 0 && (uint8_t)cur[3] == 0) {
            l.has_attributes = true;
            l.attributes = (uint8_t)cur[0];
            l.payload_off = 4;
        }
    }
    int r = kt_sbat_level_preserve(&l, cand, why, sizeof(why));
    kt_sbat_level_free(&l);
    return r;
}
#define KEEPS(cur, cand) keeps(cur, sizeof(cur), cand)

static void test_preserve(void)
{
    /* shim's test-sbat.c (sizeof: its NUL counts in sbatsize there too) */
    CHECK_EQ_INT(KEEPS("sbat,1,2021030218\ncomponent,2,\n", "sbat,1,2021030218\ncomponent,2,\n"),
                 1, "good");
    CHECK_EQ_INT(KEEPS("sbat,2,2022030218\ncomponent,2,\n", "sbat,1,2021030218\ncomponent,2,\n"),
                 1, "version newer");
    CHECK_EQ_INT(KEEPS("sbat,10,2022030218\ncomponent,2,\n", "sbat,2,2021030218\ncomponent,2,\n"),
                 1, "version newer longer");
    CHECK_EQ_INT(KEEPS("sbat,1,2021030218\ncomponent,2,\n", "sbat,2,2022030218\ncomponent,2,\n"),
                 0, "version older");
    CHECK_EQ_INT(KEEPS("sbat,2,2021030218\ncomponent,2,\n", "sbat,10,2022030218\ncomponent,2,\n"),
                 0, "version older longer");
    CHECK_EQ_INT(KEEPS("sbat,1,2021030218\ncomponent,2,\n",
                       "sbat,1,2025030218\ncomponent,5,\ncomponent,3"),
                 0, "newer candidate");
    CHECK_EQ_INT(KEEPS("sbat,1,2025030218\ncomponent,2,\ncomponent,3", "sbat,1,2020030218\ncomponent,1,\n"),
                 1, "older candidate");
    CHECK_EQ_INT(KEEPS("bad_sig,1,2021030218\ncomponent,2,\n", "sbat,1,2021030218\n"), 0, "bad sig");
    CHECK_EQ_INT(KEEPS("sba", "sbat,1,2021030218\n"), 0, "bad short");
    /* bad attributes: an SbatLevel dump with RT (0x07) is replaced; 0x03
     * and 0x23 are kept; the SbatLevelRT mirror (0x06) is taken as shim's */
    CHECK_EQ_INT(KEEPS("\x07\0\0\0sbat,1,2099010100\n", "sbat,1,2024040900\n"), 0, "attr 0x07");
    CHECK_EQ_INT(KEEPS("\x03\0\0\0sbat,1,2099010100\n", "sbat,1,2024040900\n"), 1, "attr 0x03");
    CHECK_EQ_INT(KEEPS("\x23\0\0\0sbat,1,2099010100\n", "sbat,1,2024040900\n"), 1, "attr 0x23");
    CHECK_EQ_INT(KEEPS("\x06\0\0\0sbat,1,2099010100\n", "sbat,1,2024040900\n"), 1, "mirror 0x06");
    CHECK_EQ_INT(KEEPS("\x27\0\0\0sbat,1,2099010100\n", "sbat,1,2024040900\n"), 0, "attr 0x27");
    /* where shim differs from comparing date stamps as numbers: */
    const char *v;
    /* a newer version column wins over an older date */
    v = "sbat,2,2020010100\n";
    CHECK_EQ_INT(keeps(v, strlen(v), "sbat,1,2024040900\n"), 1, "version 2 kept");
    /* the date stamp compared byte-wise over ten bytes */
    v = "sbat,1,2025\nshim,4\ngrub,5\n";
    CHECK_EQ_INT(keeps(v, strlen(v), "sbat,1,2024040900\n"), 1, "\"2025\\n...\" not below");
    v = "sbat,1,02099010100\n";
    CHECK_EQ_INT(keeps(v, strlen(v), "sbat,1,2024040900\n"), 0, "a leading zero sorts low");
    /* shorter than "sbat,1,2021030218\n": replaced whatever its date */
    v = "sbat,1,2099010100";
    CHECK_EQ_INT(keeps(v, strlen(v), "sbat,1,2024040900\n"), 0, "17 bytes");
    v = "sbat,1,2024040900\n";
    CHECK_EQ_INT(keeps(v, strlen(v), "sbat,1,2024040900\n"), 1, "equal kept");
    v = "sbat,1,2024040800\nshim,9\n";
    CHECK_EQ_INT(keeps(v, strlen(v), "sbat,1,2024040900\n"), 0, "older replaced");
}

static void test_atoi(void)
{
    kt_span a = {(const uint8_t *)"65541", 5}, b = {(const uint8_t *)"5abc", 4},
            c = {(const uint8_t *)"abc", 3}, d = {(const uint8_t *)"-3", 2};
    CHECK_EQ_INT(kt_sbat_atoi16(a), 5, "wraps at 16 bits");
    CHECK_EQ_INT(kt_sbat_atoi16(b), 5, "stops at a letter");
    CHECK_EQ_INT(kt_sbat_atoi16(c), 0, "no digits");
    CHECK_EQ_INT(kt_sbat_atoi16(d), 0, "no sign");
    kt_span f = {(const uint8_t *)" \t 0012x", 8}, g = {(const uint8_t *)" +5", 3},
            h = {(const uint8_t *)"\n5", 2};
    CHECK_EQ_INT(kt_sbat_atoi16(f), 12, "spaces, tabs and zeros skipped");
    CHECK_EQ_INT(kt_sbat_atoi16(g), 0, "no sign after spaces");
    CHECK_EQ_INT(kt_sbat_atoi16(h), 0, "only spaces and tabs skipped");
}

static void test_level_and_check(void)
{
    struct kt_sbat img;
    struct kt_sbat_level l;
    struct kt_error e = {0};
    const struct kt_sbat_entry *ie, *le;
    CHECK_EQ_INT(parse_str("sbat,1,SBAT Version,sbat,1,u\ngrub,4,F,grub,2.06,u\n"
                           "grub.debian,4,D,grub2,2.06,u\n",
                           &img, &e),
                 0, "image");
    const char *lv = "sbat,1,2025021800\nshim,4\ngrub,5\n";
    CHECK_EQ_INT(level_str(lv, strlen(lv), &l), 0, "level");
    CHECK_EQ_STR(l.stamp, "2025021800", "stamp");
    CHECK_EQ_INT(l.n, 3, "level entries");
    memset(&e, 0, sizeof(e));
    CHECK_EQ_INT(kt_sbat_check(&img, &l, &ie, &le, &e), -EKEYREJECTED, "revoked");
    CHECK_EQ_STR(e.what, "revoked by SBAT: grub 4 < 5 (level 2025021800)", "reason");
    CHECK(ie == &img.entries[1] && le == &l.entries[2], "deciding entries");
    kt_sbat_level_free(&l);
    /* equal generation passes; names the level does not carry pass */
    lv = "sbat,1,2024010900\nshim,4\ngrub,4\ngrub.peimage,2\n";
    CHECK_EQ_INT(level_str(lv, strlen(lv), &l), 0, "level 2");
    CHECK_EQ_INT(kt_sbat_check(&img, &l, &ie, &le, NULL), 0, "equal passes");
    kt_sbat_level_free(&l);
    /* only the first level entry of a name counts */
    lv = "sbat,1,1\ngrub,3\ngrub,9\n";
    CHECK_EQ_INT(level_str(lv, strlen(lv), &l), 0, "dup level");
    CHECK_EQ_INT(kt_sbat_check(&img, &l, &ie, &le, NULL), 0, "first entry wins");
    kt_sbat_level_free(&l);
    /* 16-bit arithmetic: 65541 is 5, so grub 4 is revoked */
    lv = "sbat,1,1\ngrub,65541\n";
    CHECK_EQ_INT(level_str(lv, strlen(lv), &l), 0, "big level");
    CHECK_EQ_INT(kt_sbat_check(&img, &l, &ie, &le, NULL), -EKEYREJECTED, "65541 is 5");
    kt_sbat_level_free(&l);
    /* the `sbat,1` line is an ordinary component */
    lv = "sbat,2,1\n";
    CHECK_EQ_INT(level_str(lv, strlen(lv), &l), 0, "sbat,2");
    CHECK_EQ_INT(kt_sbat_check(&img, &l, &ie, &le, NULL), -EKEYREJECTED, "sbat 1 < 2");
    kt_sbat_level_free(&l);
    /* empty level: nothing revoked; efivarfs prefix skipped */
    CHECK_EQ_INT(level_str("", 0, &l), 0, "empty level");
    CHECK_EQ_INT(kt_sbat_check(&img, &l, &ie, &le, NULL), 0, "empty revokes nothing");
    kt_sbat_level_free(&l);
    static const char dump[] = "\x06\x00\x00\x00sbat,1,2021030218\n";
    CHECK_EQ_INT(level_str(dump, sizeof(dump) - 1, &l), 0, "efivarfs dump");
    CHECK_EQ_STR(l.stamp, "2021030218", "dump stamp");
    CHECK_EQ_INT(l.n, 1, "dump entries");
    kt_sbat_level_free(&l);
    /* a level line with one column is refused */
    memset(&e, 0, sizeof(e));
    lv = "sbat,1,1\ngrub\n";
    CHECK_EQ_INT(kt_sbat_level_parse((const uint8_t *)lv, strlen(lv), &l, &e), -EBADMSG,
                 "one column");
    CHECK_EQ_INT(e.offset, 9, "one column offset");
    /* built-ins */
    CHECK(strstr(kt_sbat_builtin("automatic"), "2024040900") != NULL, "automatic");
    CHECK(strstr(kt_sbat_builtin("latest"), "2025051000") != NULL, "latest");
    CHECK(strstr(kt_sbat_builtin("original"), "2021030218") != NULL, "original");
    CHECK(kt_sbat_builtin("newest") == NULL, "unknown");
    kt_sbat_free(&img);
    CHECK_EQ_INT(kt_sbat_fold(0, -EKEYREJECTED), -EKEYREJECTED, "fold trusted");
    CHECK_EQ_INT(kt_sbat_fold(-ENOKEY, -EKEYREJECTED), -EKEYREJECTED, "fold untrusted");
    CHECK_EQ_INT(kt_sbat_fold(-EKEYREJECTED, -EBADMSG), -EKEYREJECTED, "fold rejected");
    CHECK_EQ_INT(kt_sbat_fold(-ENOKEY, 0), -ENOKEY, "fold pass");
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* a PE with one section `name` holding `data`; *hdr = its section header */
static uint8_t *build(const char *name, const void *data, size_t n, size_t *len, uint8_t **hdr)
{
    kt_span part = {data, n};
    uint8_t *img = NULL;
    if (kt_pe_build_section(name, &part, 1, KT_PE_MACHINE_X64, &img, len) < 0)
        return NULL;
    struct kt_pe *pe;
    struct kt_error e = {0};
    if (kt_pe_parse(img, *len, &pe, &e) < 0) {
        free(img);
        return NULL;
    }
    *hdr = NULL;
    for (size_t i = 0; i < pe->n_sections; i++)
        if (!strcmp(pe->sections[i].name, name))
            *hdr = img + pe->sections[i].header_off;
    kt_pe_free(pe);
    return img;
}

static int sbat_of(const uint8_t *img, size_t len, struct kt_sbat *s, struct kt_error *e)
{
    struct kt_pe *pe;
    memset(e, 0, sizeof(*e));
    int rc = kt_pe_parse(img, len, &pe, e);
    if (rc < 0)
        return rc;
    rc = kt_sbat_from_pe(pe, s, e);
    kt_pe_free(pe);
    return rc;
}

static void test_sections(void)
{
    static const char csv[] = "sbat,1,SBAT Version,sbat,1,u\ngrub,3,F,grub,2,u\n";
    size_t len;
    uint8_t *hdr;
    struct kt_sbat s;
    struct kt_error e;
    uint8_t *img = build(".sbat", csv, sizeof(csv) - 1, &len, &hdr);
    CHECK(img && hdr, "built");
    if (!img || !hdr)
        return;
    CHECK_EQ_INT(sbat_of(img, len, &s, &e), 0, "plain");
    CHECK(s.present && s.n == 2, "two entries, present %d n %zu", s.present, s.n);
    kt_sbat_free(&s);
    /* SizeOfRawData below VirtualSize: ignored, as shim does */
    uint32_t raw = (uint32_t)(hdr[16] | hdr[17] << 8 | hdr[18] << 16 | (uint32_t)hdr[19] << 24);
    put32(hdr + 8, raw + 1);
    CHECK_EQ_INT(sbat_of(img, len, &s, &e), 0, "vsize > raw");
    CHECK(!s.present && s.n == 0, "ignored");
    kt_sbat_free(&s);
    put32(hdr + 8, sizeof(csv) - 1);
    /* relocations on the section */
    hdr[32] = 1;
    CHECK_EQ_INT(sbat_of(img, len, &s, &e), -ELIBBAD, "relocations");
    CHECK(strstr(e.what, "relocations") != NULL, "what: %s", e.what);
    hdr[32] = 0;
    put32(hdr + 24, 0x10);
    CHECK_EQ_INT(sbat_of(img, len, &s, &e), -ELIBBAD, "PointerToRelocations");
    put32(hdr + 24, 0);
    /* a second .sbat: rename the .text section header before it */
    uint8_t *text = hdr - 40;
    CHECK(!memcmp(text, ".text", 5), "the section before is .text");
    memcpy(text, ".sbat\0\0\0", 8);
    CHECK_EQ_INT(sbat_of(img, len, &s, &e), -ELIBBAD, "two .sbat");
    CHECK(strstr(e.what, "two .sbat") != NULL, "what: %s", e.what);
    /* #23: a .sbat shim ignores (SizeOfRawData < VirtualSize) does not
     * count: the later one is the image's .sbat (before: "two .sbat") */
    uint32_t traw = (uint32_t)(text[16] | text[17] << 8 | text[18] << 16 | (uint32_t)text[19] << 24);
    uint32_t tvs = (uint32_t)(text[8] | text[9] << 8 | text[10] << 16 | (uint32_t)text[11] << 24);
    put32(text + 8, traw + 1);
    CHECK_EQ_INT(sbat_of(img, len, &s, &e), 0, "an ignored .sbat first");
    CHECK(s.present && s.n == 2, "the second is read: present %d n %zu", s.present, s.n);
    kt_sbat_free(&s);
    /* but one that counts, then an ignored one: shim refuses on finding
     * the second before it looks at its sizes */
    put32(text + 8, tvs);
    put32(hdr + 8, raw + 1);
    CHECK_EQ_INT(sbat_of(img, len, &s, &e), -ELIBBAD, "counted, then ignored");
    free(img);
    /* a bad record in the section is -EBADMSG at its file offset */
    static const char badcsv[] = "sbat,1,x\n";
    img = build(".sbat", badcsv, sizeof(badcsv) - 1, &len, &hdr);
    CHECK(img != NULL, "built bad");
    if (img) {
        CHECK_EQ_INT(sbat_of(img, len, &s, &e), -EBADMSG, "bad csv");
        uint32_t ptr = (uint32_t)(hdr[20] | hdr[21] << 8 | hdr[22] << 16 | (uint32_t)hdr[23] << 24);
        CHECK_EQ_INT(e.offset, ptr, "file offset of the record");
        free(img);
    }
}

static void test_sbatlevel_section(void)
{
    uint8_t sec[80] = {0};
    const char *a = "sbat,1,2025021800\nshim,4\ngrub,5\n", *l = "sbat,1,2025051000\nshim,4\n";
    put32(sec + 4, 8);
    memcpy(sec + 12, a, strlen(a) + 1);
    uint32_t loff = (uint32_t)(8 + strlen(a) + 1);
    put32(sec + 8, loff);
    memcpy(sec + 4 + loff, l, strlen(l) + 1);
    size_t total = 4 + loff + strlen(l) + 1, len;
    uint8_t *hdr;
    uint8_t *img = build(".sbatlevel", sec, total, &len, &hdr);
    CHECK(img != NULL, "built .sbatlevel");
    if (!img)
        return;
    struct kt_pe *pe;
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_pe_parse(img, len, &pe, &e), 0, "parse");
    const uint8_t *t;
    size_t n;
    CHECK_EQ_INT(kt_sbat_level_from_shim(pe, "automatic", &t, &n, &e), 0, "automatic");
    CHECK(n == strlen(a) && !memcmp(t, a, n), "automatic text");
    CHECK_EQ_INT(kt_sbat_level_from_shim(pe, "latest", &t, &n, &e), 0, "latest");
    CHECK(n == strlen(l) && !memcmp(t, l, n), "latest text");
    CHECK_EQ_INT(kt_sbat_level_from_shim(pe, "reset", &t, &n, &e), -EINVAL, "bad which");
    kt_pe_free(pe);
    /* an offset past the section, then a version that is not 0 */
    uint32_t raw_off = (uint32_t)(hdr[20] | hdr[21] << 8 | hdr[22] << 16 | (uint32_t)hdr[23] << 24);
    put32(img + raw_off + 8, 5000);
    CHECK_EQ_INT(kt_pe_parse(img, len, &pe, &e), 0, "parse 2");
    memset(&e, 0, sizeof(e));
    CHECK_EQ_INT(kt_sbat_level_from_shim(pe, "latest", &t, &n, &e), -EBADMSG, "bad offset");
    CHECK_EQ_INT(e.offset, raw_off + 8, "bad offset at");
    put32(img + raw_off, 1);
    memset(&e, 0, sizeof(e));
    CHECK_EQ_INT(kt_sbat_level_from_shim(pe, "automatic", &t, &n, &e), -EBADMSG, "version");
    kt_pe_free(pe);
    free(img);
}

/* ktrust/sbat.h: the same rules through the public handles */
static void test_public_api(void)
{
    static const char csv[] = "sbat,1,SBAT Version,sbat,1,https://x/\n"
                              "grub,3,Free Software Foundation,grub,2.06,https://y/\n";
    size_t len;
    uint8_t *hdr;
    uint8_t *img = build(".sbat", csv, sizeof(csv) - 1, &len, &hdr);
    CHECK(img != NULL, "built a PE with .sbat");
    if (!img)
        return;
    struct kt_sbat *s = NULL;
    struct kt_error e = KT_ERROR_INIT;
    CHECK_EQ_INT(kt_sbat_open_image(img, len, &s, &e), 0, "open image");
    CHECK(kt_sbat_present(s), "present");
    CHECK_EQ_INT(kt_sbat_count(s), 2, "two entries");
    const struct kt_sbat_entry *grub = kt_sbat_entry_at(s, 1);
    size_t n;
    const char *p = kt_sbat_entry_col(grub, KT_SBAT_VERSION, &n);
    CHECK(n == 4 && !memcmp(p, "2.06", 4), "version column");
    CHECK_EQ_INT(kt_sbat_entry_generation(grub), 3, "generation");
    CHECK(kt_sbat_entry_offset(grub) > kt_sbat_entry_offset(kt_sbat_entry_at(s, 0)),
          "offsets in the file");
    CHECK(kt_sbat_entry_at(s, 2) == NULL, "past the end");

    static const char lvl[] = "sbat,1,2024010100\ngrub,4\n";
    struct kt_sbat_level *l = NULL;
    CHECK_EQ_INT(kt_sbat_level_open_buf((const uint8_t *)lvl, sizeof(lvl) - 1, "SbatLevelRT",
                                        &l, &e),
                 0, "level from a buffer");
    CHECK_EQ_STR(kt_sbat_level_stamp(l), "2024010100", "stamp");
    CHECK_EQ_STR(kt_sbat_level_source(l), "SbatLevelRT", "source");
    CHECK_EQ_INT(kt_sbat_level_count(l), 2, "level entries");
    const struct kt_sbat_entry *ie = NULL, *le = NULL;
    CHECK_EQ_INT(kt_sbat_check_level(s, l, &ie, &le, &e), -EKEYREJECTED, "grub 3 < 4: revoked");
    CHECK(ie == grub && le == kt_sbat_level_entry_at(l, 1), "the deciding pair");
    CHECK(strstr(e.what, "grub 3 < 4") != NULL, "detail: %s", e.what);
    kt_sbat_level_close(l);

    struct kt_error e2 = KT_ERROR_INIT;
    CHECK_EQ_INT(kt_sbat_level_open_buf((const uint8_t *)"sbat,1,x\ngrub\n", 14, NULL, &l, &e2),
                 -EBADMSG, "a level line without a generation");
    CHECK(l == NULL, "nothing on failure");

    struct kt_sbat *c = NULL;
    CHECK_EQ_INT(kt_sbat_open_csv((const uint8_t *)csv, sizeof(csv) - 1, 0, &c, &e2), 0, "csv");
    CHECK(kt_sbat_present(c) && kt_sbat_count(c) == 2, "csv entries");
    kt_sbat_close(c);
    kt_sbat_close(s);
    CHECK_EQ_INT(kt_sbat_open_image((const uint8_t *)csv, sizeof(csv) - 1, &s, &e2), -ELIBBAD,
                 "not a PE");
    CHECK(s == NULL, "no handle for a non-PE");
    free(img);
}

int main(void)
{
    test_csv();
    test_csv_shim();
    test_atoi();
    test_level_shim();
    test_preserve();
    test_level_and_check();
    test_sections();
    test_sbatlevel_section();
    test_public_api();
    KT_TEST_END();
}
