/* test_eventlog.c - the TCG event log parser and replay against real logs:
 * every corpus log replays to the PCRs tpm2-tools expects (the `pcrs:`
 * block of its .bin.yaml), the OVMF+swtpm boot log to the PCRs read from
 * the TPM (pcrs.txt); every variable event's digest is the hash of its
 * UEFI_VARIABLE_DATA; every truncation of a log is -EBADMSG. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_test.h"
#include "ktrust/eventlog.h"

static void hexbin(const char *h, uint8_t *out, size_t *n)
{
    *n = 0;
    while (h[0] && h[1] && *n < 64) {
        unsigned v;
        if (sscanf(h, "%2x", &v) != 1)
            break;
        out[(*n)++] = (uint8_t)v;
        h += 2;
    }
}

static int bank_index(const struct kt_evlog_pcrs *p, const char *name)
{
    uint16_t alg = kt_evlog_alg_from_name(name);
    for (size_t b = 0; b < p->n_banks; b++)
        if (p->bank[b].alg == alg)
            return (int)b;
    return -1;
}

/* Compare with "BANK PCR HEX" lines (yaml: 'pcrs:' then '  bank:' then
 * '    N  : 0xHEX'). Returns the number compared. */
static int compare_expected(const char *path, const struct kt_evlog_pcrs *p, bool yaml)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "open %s", path);
    if (!f)
        return 0;
    char line[512], bank[32] = "";
    bool in = !yaml;
    int n = 0;
    while (fgets(line, sizeof(line), f)) {
        char hex[200];
        unsigned idx;
        if (yaml && !strncmp(line, "pcrs:", 5)) {
            in = true;
            continue;
        }
        if (!in)
            continue;
        if (yaml && line[2] != ' ' && sscanf(line, "  %31[a-z0-9_]:", bank) == 1)
            continue;
        if (yaml ? sscanf(line, " %u : 0x%199s", &idx, hex) != 2
                 : sscanf(line, "%31s %u %199s", bank, &idx, hex) != 3)
            continue;
        int b = bank_index(p, bank);
        CHECK(b >= 0, "%s: bank %s not in the log", path, bank);
        if (b < 0 || idx >= 24)
            continue;
        if (!yaml && !p->bank[b].used[idx])
            continue; /* read from the TPM, not measured by firmware (IMA, DRTM) */
        uint8_t want[64];
        size_t wn;
        hexbin(hex, want, &wn);
        CHECK(wn == p->bank[b].size && !memcmp(want, p->bank[b].pcr[idx], wn),
              "%s: %s PCR %u differs", path, bank, idx);
        if (yaml)
            CHECK(p->bank[b].used[idx], "%s: %s PCR %u not marked used", path, bank, idx);
        n++;
    }
    fclose(f);
    return n;
}

static int check_var_digests(const struct kt_evlog *log)
{
    int n = 0;
    for (size_t i = 0; i < log->n_events; i++) {
        const struct kt_evlog_event *e = &log->event[i];
        if (e->pcr != 7 || (e->type != KT_EV_EFI_VARIABLE_DRIVER_CONFIG &&
                            e->type != KT_EV_EFI_VARIABLE_AUTHORITY))
            continue;
        struct kt_evlog_var v;
        struct kt_error err = KT_ERROR_INIT;
        CHECK(kt_evlog_var_parse(e, &v, &err) == 0, "event %zu: %s", i, err.what);
        for (size_t d = 0; d < e->n_digests; d++) {
            uint8_t out[64];
            size_t len;
            if (kt_evlog_var_digest(e->digest[d].alg, v.guid, v.name, v.data.p, v.data.len, out,
                                    &len) < 0)
                continue;
            CHECK(len == e->digest[d].len && !memcmp(out, e->digest[d].p, len),
                  "event %zu (%s) bank 0x%x: UEFI_VARIABLE_DATA digest differs", i, v.name,
                  e->digest[d].alg);
            n++;
        }
    }
    return n;
}

static void one_log(const char *corpus, const char *name, const char *expect, bool yaml,
                    size_t want_events, size_t want_banks)
{
    char path[4096], exp[4096];
    snprintf(path, sizeof(path), "%s/peers/%s", corpus, name);
    snprintf(exp, sizeof(exp), "%s/peers/%s", corpus, expect);
    size_t len;
    unsigned char *buf = kt_test_slurp(path, &len);
    CHECK(buf != NULL, "read %s", path);
    if (!buf)
        return;
    struct kt_evlog log;
    struct kt_error err = KT_ERROR_INIT;
    int rc = kt_evlog_parse(buf, len, &log, &err);
    CHECK(rc == 0, "%s: %s at %zu", name, err.what, err.offset);
    CHECK_EQ_INT(log.n_events, want_events, name);
    CHECK_EQ_INT(log.n_banks, want_banks, name);
    struct kt_evlog_pcrs p;
    CHECK(kt_evlog_replay(&log, &p) == 0, "%s replay", name);
    int n = compare_expected(exp, &p, yaml);
    CHECK(n > 0, "%s: no expected PCR compared", name);
    check_var_digests(&log);
    kt_evlog_free(&log);
    /* every truncation is refused with an offset inside the input, never a crash */
    for (size_t cut = 0; cut < len; cut += (len > 4000 ? 7 : 1)) {
        struct kt_error e2 = KT_ERROR_INIT;
        rc = kt_evlog_parse(buf, cut, &log, &e2);
        bool at_event_boundary = rc == 0;
        CHECK(rc == -EBADMSG || at_event_boundary, "%s cut at %zu: rc %d", name, cut, rc);
        if (rc < 0)
            CHECK(e2.offset <= cut, "%s cut at %zu: offset %zu", name, cut, e2.offset);
        kt_evlog_free(&log);
    }
    free(buf);
}

/* PCR 7 explained on the OVMF boot: the db entry that verified shim (the
 * Microsoft UEFI CA 2011), shim's SbatLevel and its vendor certificate; the
 * Secure Boot variables equal the efivars it booted with; a prediction with
 * no new state keeps every event and PCR 7. */
static void ovmf_pcr7(const char *corpus)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/peers/ovmf-swtpm-boot/eventlog.bin", corpus);
    size_t len;
    unsigned char *buf = kt_test_slurp(path, &len);
    struct kt_evlog log;
    CHECK(buf && kt_evlog_parse(buf, len, &log, NULL) == 0, "parse %s", path);
    if (!buf)
        return;
    struct kt_evlog_authority *a;
    size_t n;
    CHECK(kt_evlog_authorities(&log, &a, &n, NULL) == 0, "authorities");
    CHECK_EQ_INT(n, 3, "authority events");
    if (n == 3) {
        CHECK_EQ_INT(a[0].source, KT_AUTH_FIRMWARE_DB, "the first is firmware's db");
        CHECK(a[0].is_cert && a[0].ms_uefi_ca_2011, "the db entry is the UEFI CA 2011: %s", a[0].subject);
        CHECK_EQ_INT(a[0].image_event, 26, "it authorized event 26 (shim)");
        CHECK(strstr(a[0].image, "\\EFI\\BOOT\\BOOTX64.EFI") != NULL, "the image: %s", a[0].image);
        CHECK_EQ_INT(a[1].source, KT_AUTH_SHIM_SBAT, "then shim's SbatLevel");
        CHECK(a[1].value.len == 32 && !memcmp(a[1].value.p, "sbat,1,2025021800\n", 18), "its payload");
        CHECK_EQ_INT(a[2].source, KT_AUTH_SHIM_CERT, "then shim's vendor certificate");
        CHECK_EQ_STR(a[2].subject, "CN=Debian Secure Boot CA", "the Debian CA");
        CHECK(!a[2].ms_uefi_ca_2011, "not the Microsoft CA");
    }
    free(a);
    snprintf(path, sizeof(path), "%s/peers/ovmf-swtpm-boot/efivars", corpus);
    struct kt_efivars vars;
    CHECK(kt_efivars_read(path, &vars, NULL) == 0, "efivars");
    struct kt_evlog_varcheck *vc;
    CHECK(kt_evlog_check_vars(&log, &vars, &vc, &n, NULL) == 0, "check_vars");
    CHECK_EQ_INT(n, 5, "SecureBoot PK KEK db dbx");
    for (size_t i = 0; i < n; i++)
        CHECK(vc[i].result == (i == 0 ? KT_VARCMP_ABSENT : KT_VARCMP_SAME), "%s: %d", vc[i].name,
              vc[i].result);
    free(vc);
    struct kt_evlog_prediction *p;
    struct kt_evlog_predict_opts o = {&vars, NULL, 0, NULL, NULL};
    CHECK(kt_evlog_predict(&log, &o, &p, NULL) == 0, "predict");
    CHECK(!kt_evlog_prediction_changes(p, 7), "the variables it booted with: PCR 7 unchanged");
    size_t n7 = kt_evlog_prediction_n_events(p, 7);
    CHECK_EQ_INT(n7, 9, "PCR 7 events (5 variables, separator, 3 authorities)");
    size_t recomputed = 0;
    for (size_t i = 0; i < n7; i++)
        recomputed += kt_evlog_prediction_event(p, 7, i)->how == KT_PRED_RECOMPUTED;
    /* and shim's SbatLevel: no SbatLevel in the state, so shim starts from
     * the logged one and keeps it (the chain's rule) */
    CHECK_EQ_INT(recomputed, 5, "PK KEK db dbx SbatLevel recomputed, equal");
    kt_evlog_prediction_free(p);
    kt_efivars_free(&vars);
    kt_evlog_free(&log);
    free(buf);
}

int main(void)
{
    const char *corpus = kt_test_require_corpus();
    one_log(corpus, "tpm2-eventlogs/event-gce-ubuntu-2104-log.bin",
            "tpm2-eventlogs/event-gce-ubuntu-2104-log.bin.yaml", true, 112, 3);
    one_log(corpus, "tpm2-eventlogs/event-arch-linux.bin", "tpm2-eventlogs/event-arch-linux.bin.yaml",
            true, 25, 2);
    one_log(corpus, "tpm2-eventlogs/event-uefi-sha1-log.bin",
            "tpm2-eventlogs/event-uefi-sha1-log.bin.yaml", true, 17, 1);
    one_log(corpus, "tpm2-eventlogs/event-uefivar.bin", "tpm2-eventlogs/event-uefivar.bin.yaml",
            true, 2, 4);
    one_log(corpus, "tpm2-eventlogs/event.bin", "tpm2-eventlogs/event.bin.yaml", true, 2, 4);
    one_log(corpus, "ovmf-swtpm-boot/eventlog.bin", "ovmf-swtpm-boot/pcrs.txt", false, 51, 2);
    ovmf_pcr7(corpus);
    KT_TEST_END();
}
