/* test_oid.c - the OID registry (der/oid.h) against openssl: every
 * registered OID, encoded by `openssl asn1parse -genconf` from its dotted
 * form, looks up to its own enum, and its name and encoding round-trip;
 * unknown and non-minimal encodings are KT_OID_UNKNOWN. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "der/oid.h"
#include "kt_test.h"

static char dir[256];

static uint8_t *slurp(const char *path, size_t *n)
{
    return kt_test_slurp(path, n);
}

/* openssl encodes every registered OID, in enum order, into one SEQUENCE. */
static void against_openssl(void)
{
    char conf[300], der[300], cmd[800];
    snprintf(conf, sizeof(conf), "%s/oids.cnf", dir);
    snprintf(der, sizeof(der), "%s/oids.der", dir);
    FILE *f = fopen(conf, "w");
    CHECK(f != NULL, "create %s", conf);
    if (!f)
        return;
    fprintf(f, "asn1=SEQUENCE:oids\n[oids]\n");
    for (int id = 1; id < KT_OID__COUNT; id++)
        fprintf(f, "o%d=OID:%s\n", id, kt_oid_dotted((enum kt_oid)id));
    fclose(f);
    snprintf(cmd, sizeof(cmd), "openssl asn1parse -genconf '%s' -out '%s' -noout", conf, der);
    CHECK(system(cmd) == 0, "openssl asn1parse -genconf");
    size_t n;
    uint8_t *b = slurp(der, &n);
    CHECK(b != NULL, "read %s", der);
    if (!b)
        return;
    kt_der d, seq;
    struct kt_error e = {0};
    kt_der_init(&d, b, n, KT_DER_STRICT, &e);
    CHECK_EQ_INT(kt_der_get(&d, KT_TAG_SEQUENCE, &seq, "oids"), 0, "the SEQUENCE");
    int id = 1;
    for (; seq.len && id < KT_OID__COUNT; id++) {
        enum kt_oid got;
        kt_span raw;
        int rc = kt_der_get_oid_id(&seq, &got, &raw, "oid");
        CHECK(rc == 0 && got == (enum kt_oid)id, "%s (%s): got %d, want %d (%s)",
              kt_oid_name((enum kt_oid)id), kt_oid_dotted((enum kt_oid)id), (int)got, id,
              e.what);
        kt_span enc = kt_oid_encoding((enum kt_oid)id);
        CHECK(enc.len == raw.len && memcmp(enc.p, raw.p, raw.len) == 0,
              "%s: our encoding = openssl's", kt_oid_dotted((enum kt_oid)id));
        CHECK(kt_oid_name((enum kt_oid)id) != NULL && kt_oid_name((enum kt_oid)id)[0],
              "%d has a name", id);
    }
    CHECK_EQ_INT(id, KT_OID__COUNT, "every registered OID checked");
    CHECK_EQ_INT(seq.len, 0, "nothing left over");
    free(b);
}

static void unknown(void)
{
    static const struct {
        const char *name;
        uint8_t b[12];
        size_t n;
    } cases[] = {
        /* 1.2.3.4 */
        {"unregistered", {0x2a, 0x03, 0x04}, 3},
        /* sha256 2.16.840.1.101.3.4.2.1 with a non-minimal 0x80 pad in "840" */
        {"non-minimal arc", {0x60, 0x80, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01}, 10},
        /* sha256 cut short */
        {"prefix of sha256", {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02}, 8},
        /* sha256 with one more arc */
        {"sha256 + .0", {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x00}, 10},
        {"empty", {0}, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        CHECK_EQ_INT(kt_oid_lookup((kt_span){cases[i].b, cases[i].n}), KT_OID_UNKNOWN,
                     cases[i].name);
    CHECK(kt_oid_name(KT_OID_UNKNOWN) == NULL, "no name for UNKNOWN");
    /* sha256 itself, for contrast */
    static const uint8_t sha256[] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01};
    enum kt_oid id = kt_oid_lookup((kt_span){sha256, sizeof(sha256)});
    CHECK(id != KT_OID_UNKNOWN, "sha256 is registered");
    CHECK_EQ_STR(kt_oid_dotted(id), "2.16.840.1.101.3.4.2.1", "sha256 dotted");
    /* a non-OID element: an error, nothing consumed */
    static const uint8_t integer[] = {0x02, 0x01, 0x05};
    kt_der d;
    kt_der_init(&d, integer, sizeof(integer), KT_DER_STRICT, NULL);
    CHECK(kt_der_get_oid_id(&d, &id, NULL, "oid") < 0 && d.len == sizeof(integer),
          "INTEGER is not an OID");
}

int main(void)
{
    snprintf(dir, sizeof(dir), "%s/kt-oid.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    against_openssl();
    unknown();
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    KT_TEST_END();
}
