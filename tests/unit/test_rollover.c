/* test_rollover.c - the rollover pieces of the library: the table of
 * Microsoft's CAs (each entry the certificate of the corpus it names, by
 * SHA-256, TBS hash and key), kt_ms_ca_find on those certificates and on
 * others, and kt_chain_firmware_sigs on the dual-signed corpus shim with a
 * db made of one CA. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/rollover.h"
#include "crypto/crypto.h"
#include "esl/esl.h"
#include "kt_test.h"
#include "util/file.h"

static const struct {
    const char *file, *name;
} certs[] = {
    {"MicCorKEKCA2011_2011-06-24.der", "Microsoft Corporation KEK CA 2011"},
    {"microsoft-corporation-kek-2k-ca-2023.der", "Microsoft Corporation KEK 2K CA 2023"},
    {"MicCorUEFCA2011_2011-06-27.der", "Microsoft Corporation UEFI CA 2011"},
    {"microsoft-uefi-ca-2023.der", "Microsoft UEFI CA 2023"},
    {"microsoft-option-rom-uefi-ca-2023.der", "Microsoft Option ROM UEFI CA 2023"},
    {"MicWinProPCA2011_2011-10-19.der", "Microsoft Windows Production PCA 2011"},
    {"windows-uefi-ca-2023.der", "Windows UEFI CA 2023"},
};

static void table(void)
{
    size_t n;
    const struct kt_ms_ca *t = kt_ms_cas(&n);
    CHECK_EQ_INT(n, 7, "table size");
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ_INT(strlen(t[i].sha256), 64, t[i].name);
        CHECK_EQ_INT(strlen(t[i].tbs_sha256), 64, t[i].name);
        CHECK_EQ_INT(strlen(t[i].spki_sha256), 64, t[i].name);
        CHECK(kt_ms_ca_get(t[i].role, t[i].year) == &t[i], "%s: one entry per role and year", t[i].name);
        CHECK(t[i].year == 2011 || t[i].year == 2023, "%s: year", t[i].name);
    }
    CHECK_EQ_STR(kt_ms_ca_get(KT_MS_CA_3P, 2011)->not_after, "2026-06-27", "UEFI CA 2011 expiry");
    CHECK_EQ_STR(kt_ms_ca_get(KT_MS_CA_KEK, 2011)->not_after, "2026-06-24", "KEK CA 2011 expiry");
    CHECK_EQ_STR(kt_ms_ca_get(KT_MS_CA_WINDOWS, 2011)->not_after, "2026-10-19", "PCA 2011 expiry");
    CHECK_EQ_STR(kt_ms_ca_get(KT_MS_CA_3P, 2023)->update, "DBUpdate3P2023.bin", "3P update");
    CHECK(kt_ms_ca_get(KT_MS_CA_OROM, 2011) == NULL, "no 2011 option ROM CA");
    CHECK_EQ_STR(kt_ms_ca_role_name(KT_MS_CA_OROM), "option_rom", "role name");
}

static void find(const char *corpus)
{
    char path[4400];
    for (size_t i = 0; i < sizeof(certs) / sizeof(certs[0]); i++) {
        snprintf(path, sizeof(path), "%s/peers/secureboot-objects/certs/%s", corpus, certs[i].file);
        struct kt_file f = {0};
        struct kt_error e = KT_ERROR_INIT;
        struct kt_x509 *c = NULL;
        CHECK(kt_file_open(path, &f, &e) == 0, "%s: %s", path, e.what);
        CHECK(kt_x509_parse(f.data, f.len, &c, &e) == 0, "%s: %s", path, e.what);
        const struct kt_ms_ca *ca = c ? kt_ms_ca_find(c) : NULL;
        CHECK_EQ_STR(ca ? ca->name : NULL, certs[i].name, certs[i].file);
        CHECK(c && kt_ms_ca_find_tbs(c->tbs_sha256) == ca, "%s: by TBS hash", certs[i].file);
        kt_x509_free(c);
        kt_file_close(&f);
    }
    /* a certificate that is none of them */
    snprintf(path, sizeof(path), "%s/peers/secureboot-objects/certs/WindowsOEMDevicesPK.der", corpus);
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    struct kt_x509 *c = NULL;
    if (kt_file_open(path, &f, &e) == 0 && kt_x509_parse(f.data, f.len, &c, &e) == 0)
        CHECK(kt_ms_ca_find(c) == NULL, "Windows OEM Devices PK is not in the table");
    kt_x509_free(c);
    kt_file_close(&f);
}

/* db = one certificate list (efivarfs form) */
static void firmware_sigs(const char *corpus)
{
    char shim[4400], ca[4400];
    snprintf(shim, sizeof(shim), "%s/debian/shimx64.efi.signed", corpus);
    static const char *const cas[] = {"MicCorUEFCA2011_2011-06-27.der", "microsoft-uefi-ca-2023.der"};
    for (int k = 0; k < 2; k++) {
        snprintf(ca, sizeof(ca), "%s/peers/secureboot-objects/certs/%s", corpus, cas[k]);
        struct kt_file f = {0};
        struct kt_error e = KT_ERROR_INIT;
        CHECK(kt_file_open(ca, &f, &e) == 0, "%s", ca);
        kt_span der = {f.data, f.len};
        uint8_t *list = NULL;
        size_t n = 0;
        CHECK(kt_esl_build_x509(&der, 1, NULL, &list, &n) == 0, "esl");
        struct kt_efivars *v = calloc(1, sizeof(*v));
        v->var[KT_EFIVAR_DB].state = KT_EFIVAR_PRESENT;
        v->var[KT_EFIVAR_DB].raw = malloc(n + 4);
        memcpy(v->var[KT_EFIVAR_DB].raw, "\x27\0\0\0", 4);
        memcpy(v->var[KT_EFIVAR_DB].raw + 4, list, n);
        v->var[KT_EFIVAR_DB].raw_len = n + 4;
        struct kt_chain_sig sigs[4];
        size_t ns = 0;
        int rc = kt_chain_firmware_sigs(v, shim, sigs, 4, &ns, &e);
        CHECK_EQ_INT(rc, 0, "dual-signed shim: trusted by either CA");
        CHECK_EQ_INT(ns, 2, "two signatures");
        for (size_t i = 0; i < ns && i < 2; i++) {
            bool mine = (int)i == k; /* signature 0 is the 2011 one, 1 the 2023 one */
            CHECK_EQ_INT(sigs[i].verdict, mine ? 0 : -ENOKEY, cas[k]);
            CHECK(mine == (sigs[i].accepted_by[0] != 0), "%s: accepted_by of %zu", cas[k], i);
            const struct kt_ms_ca *top = NULL;
            for (size_t j = 0; j < sigs[i].chain_len && !top; j++)
                top = kt_ms_ca_find_sha256(sigs[i].chain_sha256[j]);
            CHECK(top && top->role == KT_MS_CA_3P && top->year == (i ? 2023 : 2011),
                  "signature %zu reaches the %d CA", i, i ? 2023 : 2011);
        }
        kt_efivars_free(v);
        free(v);
        free(list);
        kt_file_close(&f);
    }
    struct kt_chain_sig sigs[4];
    size_t ns = 0;
    struct kt_error e = KT_ERROR_INIT;
    CHECK_EQ_INT(kt_chain_firmware_sigs(NULL, shim, sigs, 4, &ns, &e), -ENOKEY, "empty db: untrusted");
    CHECK_EQ_INT(ns, 2, "empty db: both signatures reported");
    CHECK_EQ_INT(kt_chain_firmware_sigs(NULL, "/nonexistent.efi", sigs, 4, &ns, &e), -ENOENT, "missing file");
}

int main(void)
{
    table();
    const char *corpus = kt_test_corpus();
    if (!corpus) {
        if (getenv("CI"))
            return 1;
        printf("skipped: corpus not found\n");
        return 77;
    }
    find(corpus);
    firmware_sigs(corpus);
    KT_TEST_END();
}
