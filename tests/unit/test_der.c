/* DER/BER reader: the edge cases of tags, lengths, modes and nesting. */
#include "der/der.h"
#include "der/oid.h"
#include "kt_test.h"

struct len_case {
    const char *name;
    unsigned char bytes[16];
    size_t n;
    int strict_ok;  /* 1: accepted in DER mode */
    int ber_ok;     /* 1: accepted in BER mode */
    size_t content; /* expected content length when accepted */
};

static const struct len_case len_cases[] = {
    {"short form", {0x04, 0x02, 0xaa, 0xbb}, 4, 1, 1, 2},
    {"long form 1 byte minimal", {0x04, 0x81, 0x80}, 3, 0, 0, 0}, /* truncated: 128 bytes missing */
    {"long form non-minimal (0x81 0x02)", {0x04, 0x81, 0x02, 1, 2}, 5, 0, 1, 2},
    {"long form leading zero (0x82 0x00 0x02)", {0x04, 0x82, 0x00, 0x02, 1, 2}, 6, 0, 1, 2},
    {"length past end", {0x04, 0x05, 1, 2}, 4, 0, 0, 0},
    {"5-byte length", {0x04, 0x85, 0, 0, 0, 0, 1, 9}, 8, 0, 0, 0},
    {"indefinite constructed", {0x30, 0x80, 0x04, 0x01, 0x07, 0x00, 0x00}, 7, 0, 1, 3},
    {"indefinite primitive", {0x04, 0x80, 0x00, 0x00}, 4, 0, 0, 0},
    {"indefinite missing EOC", {0x30, 0x80, 0x04, 0x01, 0x07}, 5, 0, 0, 0},
    {"nested indefinite", {0x30, 0x80, 0x30, 0x80, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00}, 10, 0, 1, 6},
    {"truncated header", {0x30}, 1, 0, 0, 0},
    {"high tag number", {0x9f, 0x81, 0x00, 0x01, 0x55}, 5, 1, 1, 1},
    {"high tag non-minimal", {0x9f, 0x80, 0x81, 0x00, 0x00}, 5, 0, 0, 0},
    {"high tag form for low number", {0x9f, 0x05, 0x00}, 3, 0, 0, 0},
};

static void test_lengths(void)
{
    for (size_t i = 0; i < sizeof(len_cases) / sizeof(len_cases[0]); i++) {
        const struct len_case *c = &len_cases[i];
        for (int mode = 0; mode < 2; mode++) {
            kt_der d, content;
            struct kt_error e = {0};
            kt_der_init(&d, c->bytes, c->n, mode ? KT_DER_BER : KT_DER_STRICT, &e);
            uint32_t tag;
            int rc = kt_der_get_any(&d, &tag, &content, NULL);
            int want = mode ? c->ber_ok : c->strict_ok;
            CHECK((rc == 0) == want, "%s (%s): rc=%d %s", c->name, mode ? "BER" : "DER", rc, e.what);
            if (rc == 0 && want) {
                CHECK(content.len == c->content, "%s: content %zu want %zu", c->name, content.len, c->content);
                CHECK(kt_der_empty(&d), "%s: whole input consumed", c->name);
            }
            if (rc != 0)
                CHECK(e.code == -EBADMSG && e.what[0], "%s: error detail set", c->name);
        }
    }
}

static void test_depth(void)
{
    /* 40 nested indefinite SEQUENCEs: must fail cleanly (depth limit) */
    unsigned char buf[200];
    size_t n = 0;
    for (int i = 0; i < 40; i++) {
        buf[n++] = 0x30;
        buf[n++] = 0x80;
    }
    for (int i = 0; i < 40; i++) {
        buf[n++] = 0;
        buf[n++] = 0;
    }
    kt_der d;
    struct kt_error e = {0};
    kt_der_init(&d, buf, n, KT_DER_BER, &e);
    CHECK(kt_der_get_any(&d, NULL, NULL, NULL) == -EBADMSG, "depth bomb rejected");
    CHECK(strstr(e.what, "deep") != NULL, "depth error names the cause: %s", e.what);

    /* definite nesting: walk down 40 levels, must stop at the limit */
    n = 0;
    for (int i = 0; i < 40; i++) {
        buf[n++] = 0x30;
        buf[n++] = (unsigned char)(2 * (39 - i));
    }
    kt_der_init(&d, buf, n, KT_DER_STRICT, NULL);
    int rc = 0, levels = 0;
    while (rc == 0 && !kt_der_empty(&d)) {
        kt_der c;
        rc = kt_der_get(&d, KT_TAG_SEQUENCE, &c, "seq");
        if (rc == 0) {
            d = c;
            levels++;
        }
    }
    CHECK(rc == -EBADMSG && levels == KT_DER_MAX_DEPTH, "definite depth limit: levels=%d rc=%d", levels, rc);
}

static void test_integers_oids_times(void)
{
    static const unsigned char ints[] = {0x02, 0x02, 0x00, 0x7f};
    kt_der d;
    kt_span raw;
    kt_der_init(&d, ints, sizeof(ints), KT_DER_STRICT, NULL);
    CHECK(kt_der_get_integer(&d, &raw, "int") == -EBADMSG, "non-minimal INTEGER rejected in DER");
    CHECK(d.len == sizeof(ints), "failed read consumes nothing");
    kt_der_init(&d, ints, sizeof(ints), KT_DER_BER, NULL);
    CHECK(kt_der_get_integer(&d, &raw, "int") == 0 && raw.len == 2, "non-minimal INTEGER ok in BER");

    static const unsigned char u[] = {0x02, 0x03, 0x01, 0x00, 0x01};
    uint64_t v = 0;
    kt_der_init(&d, u, sizeof(u), KT_DER_STRICT, NULL);
    CHECK(kt_der_get_uint64(&d, &v, "u") == 0 && v == 65537, "uint64 65537: %llu", (unsigned long long)v);

    static const unsigned char sha256[] = {0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01};
    enum kt_oid id;
    kt_der_init(&d, sha256, sizeof(sha256), KT_DER_STRICT, NULL);
    CHECK(kt_der_get_oid_id(&d, &id, &raw, "oid") == 0 && id == KT_OID_SHA256, "sha256 OID looked up");
    char dotted[64];
    CHECK(kt_oid_to_dotted(raw, dotted, sizeof(dotted)) == 0, "dotted");
    CHECK_EQ_STR(dotted, "2.16.840.1.101.3.4.2.1", "dotted sha256");
    kt_span enc = kt_oid_encoding(KT_OID_MS_NESTED_SIGNATURE);
    CHECK(kt_oid_to_dotted(enc, dotted, sizeof(dotted)) == 0, "encode nested");
    CHECK_EQ_STR(dotted, "1.3.6.1.4.1.311.2.4.1", "registry round trip");
    /* every registry entry round-trips */
    for (int i = 1; i < KT_OID__COUNT; i++) {
        kt_span s = kt_oid_encoding((enum kt_oid)i);
        CHECK(kt_oid_lookup(s) == (enum kt_oid)i, "lookup %s", kt_oid_name((enum kt_oid)i));
        CHECK(kt_oid_to_dotted(s, dotted, sizeof(dotted)) == 0 && !strcmp(dotted, kt_oid_dotted((enum kt_oid)i)), "dotted %s", kt_oid_dotted((enum kt_oid)i));
    }

    struct {
        const char *s;
        unsigned tag;
        long long want; /* -1: invalid */
    } times[] = {
        {"700101000000Z", KT_TAG_UTC_TIME, 0},
        {"491231235959Z", KT_TAG_UTC_TIME, 2524607999LL},
        {"500101000000Z", KT_TAG_UTC_TIME, -631152000LL},
        {"20500101000000Z", KT_TAG_GENERALIZED_TIME, 2524608000LL},
        {"99991231235959Z", KT_TAG_GENERALIZED_TIME, 253402300799LL},
        {"20240229120000Z", KT_TAG_GENERALIZED_TIME, 1709208000LL},
        {"20230229120000Z", KT_TAG_GENERALIZED_TIME, -1},
        {"701301000000Z", KT_TAG_UTC_TIME, -1},
        {"7001010000Z", KT_TAG_UTC_TIME, 0},
        {"700101000000+0100", KT_TAG_UTC_TIME, -1},
    };
    for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
        kt_span s = {(const uint8_t *)times[i].s, strlen(times[i].s)};
        int64_t t = 0;
        int rc = kt_der_parse_time(times[i].tag, s, &t);
        if (times[i].want == -1)
            CHECK(rc < 0, "time %s invalid", times[i].s);
        else
            CHECK(rc == 0 && t == times[i].want, "time %s = %lld (rc %d)", times[i].s, (long long)t, rc);
    }
}

int main(void)
{
    test_lengths();
    test_depth();
    test_integers_oids_times();
    KT_TEST_END();
}
