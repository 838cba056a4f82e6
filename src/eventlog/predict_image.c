/* predict_image.c - PCR 4's recomputer (recompute.h), source of truth the
 * boot binaries on the ESP: each boot application the log shows, when its
 * file is on the ESP, measured with that file's Authenticode digests (what
 * firmware and shim extend); the rest of PCR 4 (actions, separator, images
 * loaded from memory) kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/esp.h"
#include "eventlog/eventlog.h"
#include "eventlog/recompute.h"
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

static bool active(const struct kt_evlog_predict_opts *o)
{
    return kt_evlog_has_images(o);
}

static int claims(const struct kt_evlog *log, size_t i, struct kt_error *err)
{
    (void)err;
    return log->event[i].type == KT_EV_EFI_BOOT_SERVICES_APPLICATION;
}

static int recompute(const struct kt_evlog *log, size_t i, const struct kt_evlog_predict_opts *o,
                     struct kt_evlog_predicted *pr, struct kt_error *err)
{
    const struct kt_evlog_event *e = &log->event[i];
    char dp[512], file[512], path[4096];
    (void)err;
    if (kt_evlog_devpath(e, dp, sizeof(dp), file, sizeof(file)) < 0 || !file[0]) {
        pr->how = KT_PRED_KEPT_UNKNOWN;
        kt_fmt(pr->note, sizeof(pr->note), "no file path (an image loaded from memory): kept");
        return 0;
    }
    if (kt_evlog_image_file(o, file, path, sizeof(path)) < 0) {
        pr->how = KT_PRED_KEPT_UNKNOWN;
        kt_fmt(pr->note, sizeof(pr->note), "%s is not on the ESP: kept", file);
        return 0;
    }
    uint8_t d[KT_EVLOG_MAX_BANKS][KT_EVLOG_MAX_DIGEST];
    struct kt_error ie = KT_ERROR_INIT;
    if (image_digests(log, path, d, &ie) < 0) {
        pr->how = KT_PRED_KEPT_UNKNOWN;
        kt_fmt(pr->note, sizeof(pr->note), "%s: %s: kept", path, ie.what);
        return 0;
    }
    kt_evlog_pred_set(log, pr, d);
    kt_fmt(pr->note, sizeof(pr->note), "%s", path);
    return 0;
}

const struct kt_evlog_recomputer kt_evlog_rc_images = {
    4, "each boot application found on the ESP measured again", "other boot binaries",
    active, claims, recompute, NULL,
};
