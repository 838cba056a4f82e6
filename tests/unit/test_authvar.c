/* test_authvar.c - EFI_VARIABLE_AUTHENTICATION_2 headers, the signed-bytes
 * layout, SVN records and GUID text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "authvar/authvar.h"
#include "esl/esl_svn.h"
#include "kt_test.h"

static const uint8_t pkcs7_guid[16] = {0x9d, 0xd2, 0xaf, 0x4a, 0xdf, 0x68, 0xee, 0x49,
                                       0x8a, 0xa9, 0x34, 0x7d, 0x37, 0x56, 0x65, 0xa7};

/* time, WIN_CERTIFICATE around a fake SignedData (SEQUENCE { INTEGER 1 }), payload */
static size_t build(uint8_t *b, const uint8_t *p7, size_t p7len, const char *payload)
{
    static const uint8_t t[16] = {0xea, 0x07, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    memcpy(b, t, 16);
    uint32_t len = (uint32_t)(24 + p7len);
    for (int i = 0; i < 4; i++)
        b[16 + i] = (uint8_t)(len >> (8 * i));
    b[20] = 0x00;
    b[21] = 0x02;
    b[22] = 0xf1;
    b[23] = 0x0e;
    memcpy(b + 24, pkcs7_guid, 16);
    memcpy(b + 40, p7, p7len);
    memcpy(b + 40 + p7len, payload, strlen(payload));
    return 40 + p7len + strlen(payload);
}

int main(void)
{
    uint8_t b[256];
    static const uint8_t raw[] = {0x30, 0x03, 0x02, 0x01, 0x01};
    static const uint8_t ci[] = {0x30, 0x0b, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86,
                                 0xf7, 0x0d, 0x01, 0x07, 0x02};
    struct kt_authvar v;
    struct kt_error e = {0};
    size_t n = build(b, raw, sizeof(raw), "PAYLOAD");
    CHECK(kt_authvar_looks_like(b, n), "looks like");
    CHECK_EQ_INT(kt_authvar_parse(b, n, &v, &e), 0, "parse");
    CHECK_EQ_INT(v.time.year, 2026, "year");
    CHECK_EQ_INT(v.timestamp, 1767323045, "2026-01-02T03:04:05Z (date -u +%s)");
    CHECK(!v.content_info_wrapped, "raw SignedData");
    CHECK_EQ_INT(v.payload_offset, 45, "payload offset");
    CHECK(v.payload.len == 7 && !memcmp(v.payload.p, "PAYLOAD", 7), "payload");
    /* signed bytes: "db" UTF-16LE, GUID, attributes, time, payload */
    uint8_t *sb;
    size_t sl;
    CHECK_EQ_INT(kt_authvar_signed(&v, "db", kt_authvar_vendor("db"), 0x67, &sb, &sl), 0, "signed");
    CHECK_EQ_INT(sl, 4 + 16 + 4 + 16 + 7, "signed length");
    CHECK(!memcmp(sb, "d\0b\0", 4), "name UTF-16LE, no NUL");
    CHECK(sb[4] == 0xcb && sb[5] == 0xb2 && sb[19] == 0x6f, "image security database GUID");
    CHECK(sb[20] == 0x67 && sb[21] == 0 && sb[22] == 0 && sb[23] == 0, "attributes LE");
    CHECK(!memcmp(sb + 24, b, 16) && !memcmp(sb + 40, "PAYLOAD", 7), "time and payload");
    free(sb);
    CHECK(kt_authvar_vendor("KEK")[0] == 0x61, "global GUID for KEK");
    CHECK(kt_authvar_vendor("MokList") == NULL, "not a secure-boot database");
    /* ContentInfo-wrapped */
    n = build(b, ci, sizeof(ci), "");
    CHECK_EQ_INT(kt_authvar_parse(b, n, &v, &e), 0, "parse wrapped");
    CHECK(v.content_info_wrapped, "wrapped");
    CHECK_EQ_INT(v.payload.len, 0, "empty payload (a delete)");
    /* PKCS#7 not filling CertData */
    uint8_t pad[6];
    memcpy(pad, raw, 5);
    pad[5] = 0;
    n = build(b, pad, 6, "");
    memset(&e, 0, sizeof(e));
    CHECK_EQ_INT(kt_authvar_parse(b, n, &v, &e), -EBADMSG, "a byte after the PKCS#7");
    CHECK_EQ_INT(e.offset, 45, "its offset");
    /* EFI_TIME: daylight, an out-of-range day, all-zero allowed */
    n = build(b, raw, sizeof(raw), "");
    b[14] = 1;
    memset(&e, 0, sizeof(e));
    CHECK_EQ_INT(kt_authvar_parse(b, n, &v, &e), -EBADMSG, "daylight");
    CHECK_EQ_INT(e.offset, 14, "daylight offset");
    b[14] = 0;
    b[3] = 32;
    CHECK_EQ_INT(kt_authvar_parse(b, n, &v, &e), -EBADMSG, "day 32");
    memset(b, 0, 16);
    CHECK_EQ_INT(kt_authvar_parse(b, n, &v, &e), 0, "all-zero time");
    /* no header at all */
    memset(&e, 0, sizeof(e));
    CHECK_EQ_INT(kt_authvar_parse((const uint8_t *)"short", 5, &v, &e), -ENODATA, "short");

    /* SVN record */
    uint8_t data[32] = {1};
    static const uint8_t app[16] = {0x61, 0x2b, 0x13, 0x9d, 0xd5, 0x59, 0x88, 0x43,
                                    0xab, 0x1c, 0x18, 0x5c, 0x3c, 0xb2, 0xeb, 0x92};
    memcpy(data + 1, app, 16);
    data[17] = 2; /* minor 2 */
    data[19] = 9; /* major 9 */
    struct kt_esl_entry en = {.type = KT_ESL_SHA256, .owner = kt_esl_svn_owner,
                              .data = {data, 32}};
    struct kt_esl_svn s;
    CHECK(kt_esl_is_svn(&en), "is svn");
    CHECK_EQ_INT(kt_esl_svn_parse(&en, &s), 0, "svn parse");
    CHECK(s.version == 1 && s.major == 9 && s.minor == 2 && s.reserved_zero, "svn fields");
    char g[40];
    CHECK_EQ_STR(kt_guid_str(s.guid, g), "9d132b61-59d5-4388-ab1c-185c3cb2eb92", "guid text");
    CHECK_EQ_STR(kt_authvar_entry_type(&en), "svn", "entry type");
    static const uint8_t other_owner[16] = {0};
    en.owner = other_owner;
    CHECK(!kt_esl_is_svn(&en), "another owner: an image hash");
    CHECK_EQ_INT(kt_esl_svn_parse(&en, &s), -EINVAL, "not svn");
    CHECK_EQ_STR(kt_authvar_entry_type(&en), "sha256", "sha256 type");
    KT_TEST_END();
}
