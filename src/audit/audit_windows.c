/* audit_windows.c - dual boot: a Windows boot manager on the ESP
 * (EFI/Microsoft/Boot/bootmgfw.efi, through src/boot's ESP lookup), read
 * once and judged by firmware's db and dbx as they are and with Microsoft
 * Windows Production PCA 2011 in dbx (what DBXUpdate2024.bin adds: an
 * X509_SHA256 entry of its TBS hash here). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "boot/esp.h"
#include "boot/ms_cas.h"
#include "util/fmt.h"

static const uint8_t ms_owner[16] = {0xbd, 0x9a, 0xfa, 0x77, 0x59, 0x03, 0x32, 0x4d,
                                     0xbd, 0x60, 0x28, 0xf4, 0xe7, 0x8f, 0x78, 0x4b};

/* A copy of vars' dbx with the PCA 2011 entry appended, into *w (owned
 * raw). */
static int dbx_with_pca(const struct kt_efivars *vars, struct kt_efivar *w)
{
    uint8_t tbs[32];
    const char *hex = kt_ms_ca_get(KT_MS_CA_WINDOWS, 2011)->tbs_sha256;
    for (size_t i = 0; i < 32; i++)
        sscanf(hex + 2 * i, "%2hhx", &tbs[i]);
    const uint8_t *d = tbs;
    uint8_t *list = NULL;
    size_t n = 0;
    int rc = kt_esl_build_hashes(KT_ESL_X509_SHA256, &d, 1, ms_owner, &list, &n);
    if (rc < 0)
        return rc;
    const struct kt_efivar *dbx = &vars->var[KT_EFIVAR_DBX];
    bool have = dbx->state == KT_EFIVAR_PRESENT && dbx->raw_len >= 4;
    size_t old = have ? dbx->raw_len : 4;
    uint8_t *raw = malloc(old + n);
    if (!raw) {
        free(list);
        return -ENOMEM;
    }
    static const uint8_t attrs[4] = {0x27, 0, 0, 0};
    memcpy(raw, have ? dbx->raw : attrs, old);
    memcpy(raw + old, list, n);
    free(list);
    memset(w, 0, sizeof(*w));
    w->state = KT_EFIVAR_PRESENT;
    w->raw = raw;
    w->raw_len = old + n;
    return 0;
}

int kt_audit_windows(struct kt_audit *a, const struct kt_efivars *vars)
{
    struct kt_audit_windows *win = &a->windows;
    if (!a->found[KT_AUDIT_ESP] || !a->found[KT_AUDIT_EFIVARS] ||
        kt_esp_file(a->path[KT_AUDIT_ESP], "EFI/Microsoft/Boot/bootmgfw.efi", win->path,
                    sizeof(win->path)) < 0)
        return 0;
    win->found = true;
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    struct kt_chain_link l;
    if (kt_file_open(win->path, &f, &e) < 0) {
        for (int i = 0; i < KT_WINDOWS__STATES; i++) {
            win->verdict[i] = -ENOENT;
            kt_fmt(win->reason[i], sizeof(win->reason[i]), "%s", e.what);
        }
        return 0;
    }
    struct kt_efivars *what_if = malloc(sizeof(*what_if)); /* shares vars' bytes but dbx */
    int rc = what_if ? 0 : -ENOMEM;
    if (rc == 0) {
        *what_if = *vars;
        rc = dbx_with_pca(vars, &what_if->var[KT_EFIVAR_DBX]);
    }
    const struct kt_efivars *states[KT_WINDOWS__STATES] = {vars, what_if};
    for (int i = 0; rc == 0 && i < KT_WINDOWS__STATES; i++) {
        win->verdict[i] = kt_chain_firmware_app_buf(states[i], f.data, f.len, win->path, &l);
        kt_fmt(win->reason[i], sizeof(win->reason[i]), "%s", l.reason);
    }
    if (rc == 0)
        free(what_if->var[KT_EFIVAR_DBX].raw);
    free(what_if);
    kt_file_close(&f);
    win->needs_2023_first = win->verdict[KT_WINDOWS_TODAY] == 0 &&
                            win->verdict[KT_WINDOWS_PCA_2011_IN_DBX] != 0;
    for (size_t i = 0; i < a->rollover.n_cas; i++) /* the rollover's count, run before */
        win->db_windows_2023 |= a->rollover.cas[i].ca->role == KT_MS_CA_WINDOWS &&
                                a->rollover.cas[i].ca->year == 2023 && a->rollover.cas[i].in_db;
    return rc == -ENOMEM ? rc : 0;
}
