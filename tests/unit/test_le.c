/* test_le.c - the little-endian byte cursor (util/le.h): reads, bounds,
 * windows, offsets and the field-and-offset error. */
#include <stdint.h>
#include <string.h>

#include "kt_test.h"
#include "util/le.h"

static const uint8_t buf[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
                              0x09, 0x0a, 0x0b, 0x0c, 0xfe, 0xff, 0x80, 0x00};

static void loads(void)
{
    CHECK_EQ_INT(kt_le16(buf), 0x0201, "le16");
    CHECK_EQ_INT(kt_le32(buf), 0x04030201, "le32");
    CHECK(kt_le64(buf) == 0x0807060504030201ull, "le64");
    CHECK_EQ_INT(kt_le16(buf + 12), 0xfffe, "le16 high bytes");
    CHECK(kt_le32(buf + 12) == 0x0080fffeu, "le32 high bytes");
    kt_le c;
    uint32_t v = 0;
    kt_le_init(&c, buf + 12, 4, NULL);
    CHECK(kt_le_u32be(&c, &v, "sig_len") == 0 && v == 0xfeff8000u, "u32be %x", v);
    CHECK_EQ_INT(kt_le_u32be(&c, &v, "sig_len"), -EBADMSG, "u32be past the end");
}

/* Each read from a cursor at `at` over `n` bytes: ok, value, bytes consumed. */
static void reads(void)
{
    static const struct {
        size_t at, n, width; /* width 1, 2, 4, 8 */
        int rc;
        uint64_t want;
    } cases[] = {
        {0, 16, 1, 0, 0x01},
        {0, 16, 2, 0, 0x0201},
        {0, 16, 4, 0, 0x04030201},
        {0, 16, 8, 0, 0x0807060504030201ull},
        {8, 8, 8, 0, 0x0080fffe0c0b0a09ull},
        {12, 4, 4, 0, 0x0080fffe},
        {12, 3, 4, -EBADMSG, 0},
        {15, 1, 2, -EBADMSG, 0},
        {16, 0, 1, -EBADMSG, 0},
        {9, 7, 8, -EBADMSG, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        kt_le c, whole;
        struct kt_error e = {0};
        kt_le_init(&whole, buf, sizeof(buf), &e);
        CHECK_EQ_INT(kt_le_window(&whole, cases[i].at, cases[i].n, &c, "case"), 0, "window");
        uint64_t v = 0;
        int rc;
        switch (cases[i].width) {
        case 1: { uint8_t x; rc = kt_le_u8(&c, &x, "f"); v = x; break; }
        case 2: { uint16_t x; rc = kt_le_u16(&c, &x, "f"); v = x; break; }
        case 4: { uint32_t x; rc = kt_le_u32(&c, &x, "f"); v = x; break; }
        default: rc = kt_le_u64(&c, &v, "f"); break;
        }
        char name[64];
        snprintf(name, sizeof(name), "case %zu rc", i);
        CHECK_EQ_INT(rc, cases[i].rc, name);
        if (rc == 0) {
            CHECK(v == cases[i].want, "case %zu: %llx want %llx", i, (unsigned long long)v,
                  (unsigned long long)cases[i].want);
            CHECK_EQ_INT(kt_le_offset(&c), cases[i].at + cases[i].width, "offset advanced");
            CHECK_EQ_INT(kt_le_left(&c), cases[i].n - cases[i].width, "left");
        } else {
            /* nothing consumed; the error names the field and the offset */
            CHECK_EQ_INT(kt_le_offset(&c), cases[i].at, "nothing consumed");
            CHECK_EQ_INT(e.offset, cases[i].at, "error offset");
            CHECK(strstr(e.what, "f: truncated") != NULL, "message: %s", e.what);
        }
    }
}

static void windows_and_subs(void)
{
    kt_le c, w, s;
    struct kt_error e = {0};
    kt_le_init(&c, buf, sizeof(buf), &e);
    CHECK_EQ_INT(kt_le_window(&c, 16, 0, &w, "empty at end"), 0, "empty window at the end");
    CHECK_EQ_INT(kt_le_window(&c, 4, 12, &w, "tail"), 0, "window to the end");
    CHECK_EQ_INT(kt_le_window(&c, 4, 13, &w, "SizeOfThing"), -EBADMSG, "window past the end");
    CHECK(strstr(e.what, "SizeOfThing") != NULL, "window error names the field: %s", e.what);
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_le_window(&c, SIZE_MAX, 2, &w, "x"), -EBADMSG, "offset overflow");
    CHECK_EQ_INT(kt_le_window(&c, 2, SIZE_MAX, &w, "x"), -EBADMSG, "size overflow");
    /* a child cursor keeps absolute offsets and cannot read past its end */
    CHECK_EQ_INT(kt_le_skip(&c, 3, "skip"), 0, "skip");
    CHECK_EQ_INT(kt_le_sub(&c, 4, &s, "sub"), 0, "sub");
    CHECK_EQ_INT(kt_le_offset(&c), 7, "parent after sub");
    CHECK_EQ_INT(kt_le_offset(&s), 3, "child offset is absolute");
    uint32_t v;
    CHECK_EQ_INT(kt_le_u32(&s, &v, "v"), 0, "read the child");
    CHECK(v == 0x07060504u, "child value %x", v);
    uint8_t b;
    CHECK_EQ_INT(kt_le_u8(&s, &b, "v"), -EBADMSG, "child is bounded");
    CHECK_EQ_INT(kt_le_sub(&c, 10, &s, "sub"), -EBADMSG, "sub past the end");
    CHECK_EQ_INT(kt_le_offset(&c), 7, "failed sub consumes nothing");
    const uint8_t *p;
    CHECK_EQ_INT(kt_le_bytes(&c, 9, &p, "rest"), 0, "bytes to the end");
    CHECK(p == buf + 7 && kt_le_left(&c) == 0, "bytes point into the input");
    /* a NULL input is an empty one; no kt_error is fine */
    kt_le_init(&c, NULL, 100, NULL);
    CHECK_EQ_INT(kt_le_left(&c), 0, "NULL input is empty");
    CHECK_EQ_INT(kt_le_u8(&c, &b, NULL), -EBADMSG, "read from empty, err NULL");
}

/* kt_le_seek: forward to an absolute offset within the window, never back. */
static void seeks(void)
{
    kt_le c, w;
    struct kt_error e = {0};
    uint16_t v;
    kt_le_init(&c, buf, sizeof(buf), &e);
    CHECK_EQ_INT(kt_le_window(&c, 4, 8, &w, "hdr"), 0, "window [4, 12)");
    CHECK_EQ_INT(kt_le_seek(&w, 6, "f"), 0, "seek forward");
    CHECK_EQ_INT(kt_le_offset(&w), 6, "at the absolute offset");
    CHECK_EQ_INT(kt_le_left(&w), 6, "left after the seek");
    CHECK_EQ_INT(kt_le_u16(&w, &v, "f"), 0, "read after the seek");
    CHECK_EQ_INT(v, 0x0807, "value at 6");
    CHECK_EQ_INT(kt_le_seek(&w, 8, "f"), 0, "seek to where it is");
    CHECK_EQ_INT(kt_le_seek(&w, 12, "f"), 0, "seek to the end of the window");
    CHECK_EQ_INT(kt_le_left(&w), 0, "nothing left");
    CHECK_EQ_INT(kt_le_seek(&w, 13, "SizeOfThing"), -EBADMSG, "seek past the window");
    CHECK(strstr(e.what, "SizeOfThing: truncated") != NULL, "past: %s", e.what);
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_le_seek(&w, 5, "back"), -EBADMSG, "seek backwards");
    CHECK(strstr(e.what, "back: offset 5 is behind") != NULL, "back: %s", e.what);
    CHECK_EQ_INT(e.offset, 12, "error at the cursor");
    CHECK_EQ_INT(kt_le_offset(&w), 12, "a failed seek moves nothing");
}

int main(void)
{
    loads();
    reads();
    windows_and_subs();
    seeks();
    KT_TEST_END();
}
