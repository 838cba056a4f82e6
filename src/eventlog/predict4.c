/* predict4.c - PCR 4 after a change of boot binaries: each boot
 * application the log shows, when its file is on the ESP, measured with that
 * file's Authenticode digests (what firmware and shim extend); the rest of
 * PCR 4 (actions, separator, images loaded from memory) kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/esp.h"
#include "eventlog/eventlog.h"
#include "eventlog/predict_int.h"
#include "pe/pe.h"
#include "util/file.h"
#include "util/fmt.h"

/* The file's Authenticode digests in every computable bank into d. */
static int image_digests(const struct kt_evlog *log, const char *path,
                         uint8_t d[KT_EVLOG_MAX_BANKS][KT_EVLOG_MAX_DIGEST], struct kt_error *err)
{
    struct kt_file f;
    struct kt_pe *pe = NULL;
    enum kt_hash h[KT_EVLOG_MAX_BANKS];
    size_t n = 0, idx[KT_EVLOG_MAX_BANKS];
    for (size_t b = 0; b < log->n_banks; b++)
        if (log->bank[b].supported)
            h[n] = kt_evlog_hash(log->bank[b].alg), idx[n++] = b;
    int rc = kt_file_open(path, &f, err);
    if (rc < 0)
        return rc;
    rc = kt_pe_parse(f.data, f.len, &pe, err);
    if (rc == 0) {
        uint8_t (*out)[KT_HASH_MAX_SIZE] = calloc(n ? n : 1, KT_HASH_MAX_SIZE);
        rc = out ? kt_pe_image_digest(pe, h, n, out, err) : -ENOMEM;
        for (size_t i = 0; rc == 0 && i < n; i++)
            memcpy(d[idx[i]], out[i], log->bank[idx[i]].size);
        free(out);
        kt_pe_free(pe);
    }
    kt_file_close(&f);
    return rc;
}

static void one(const struct kt_evlog *log, size_t i, const char *esp,
                struct kt_evlog_predicted *pr)
{
    const struct kt_evlog_event *e = &log->event[i];
    char dp[512], file[512], path[4096];
    pr->event_index = i;
    pr->how = KT_PRED_KEPT;
    for (size_t b = 0; b < log->n_banks; b++) {
        const uint8_t *d = kt_evlog_event_digest(e, log->bank[b].alg, NULL);
        if (d)
            memcpy(pr->digest[b], d, log->bank[b].size);
    }
    if (e->type != KT_EV_EFI_BOOT_SERVICES_APPLICATION)
        return;
    if (kt_evlog_devpath(e, dp, sizeof(dp), file, sizeof(file)) < 0 || !file[0]) {
        pr->how = KT_PRED_KEPT_UNKNOWN;
        kt_fmt(pr->note, sizeof(pr->note), "no file path (an image loaded from memory): kept");
        return;
    }
    if (kt_esp_resolve(esp, file, path, sizeof(path), NULL) < 0) {
        pr->how = KT_PRED_KEPT_UNKNOWN;
        kt_fmt(pr->note, sizeof(pr->note), "%s is not on the ESP: kept", file);
        return;
    }
    uint8_t d[KT_EVLOG_MAX_BANKS][KT_EVLOG_MAX_DIGEST];
    struct kt_error err = KT_ERROR_INIT;
    if (image_digests(log, path, d, &err) < 0) {
        pr->how = KT_PRED_KEPT_UNKNOWN;
        kt_fmt(pr->note, sizeof(pr->note), "%s: %s: kept", path, err.what);
        return;
    }
    bool same = true;
    for (size_t b = 0; b < log->n_banks; b++) {
        if (!log->bank[b].supported)
            continue;
        same &= !memcmp(pr->digest[b], d[b], log->bank[b].size);
        memcpy(pr->digest[b], d[b], log->bank[b].size);
    }
    pr->how = same ? KT_PRED_RECOMPUTED : KT_PRED_CHANGED;
    kt_fmt(pr->note, sizeof(pr->note), "%s", path);
}

int kt_evlog_predict_pcr4(const struct kt_evlog *log, const char *esp,
                          struct kt_evlog_prediction *p)
{
    size_t n = 0;
    for (size_t i = 0; i < log->n_events; i++)
        n += log->event[i].pcr == 4 && log->event[i].type != KT_EV_NO_ACTION;
    p->ev4 = calloc(n ? n : 1, sizeof(*p->ev4));
    if (!p->ev4)
        return -ENOMEM;
    for (size_t b = 0; b < log->n_banks; b++)
        memset(p->after.bank[b].pcr[4], 0, sizeof(p->after.bank[b].pcr[4]));
    for (size_t i = 0; i < log->n_events; i++) {
        const struct kt_evlog_event *e = &log->event[i];
        if (e->pcr != 4 || e->type == KT_EV_NO_ACTION)
            continue;
        struct kt_evlog_predicted *pr = &p->ev4[p->n4++];
        one(log, i, esp, pr);
        for (size_t b = 0; b < log->n_banks; b++) {
            size_t len;
            if (!kt_evlog_event_digest(e, log->bank[b].alg, &len) || !p->after.bank[b].supported)
                continue;
            KT_TRY(kt_evlog_extend(kt_evlog_hash(log->bank[b].alg), p->after.bank[b].pcr[4],
                                   len, pr->digest[b]));
        }
    }
    p->pcr4_changes = kt_evlog_pcr_changes(log, p, 4);
    return 0;
}
