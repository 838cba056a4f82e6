/* install.c - the PCRs after new boot binaries are installed (check-update
 * --install's question for sealed secrets): the event log's prediction
 * (kt_evlog_predict) over a scratch ESP that holds the new shim at the path
 * of the first boot application the log shows and the new loader at the
 * second's, so that PCR 4 gets their Authenticode digests and PCR 7 the db
 * entry that verifies them.  The scratch tree lives under $TMPDIR for the
 * call only.  (Through the public prediction API: when the prediction takes
 * replacement images itself, this becomes one option of it.) */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktrust/advanced.h"
#include "seal/seal.h"
#include "util/err.h"
#include "util/file.h"

/* The file paths ("\EFI\BOOT\BOOTX64.EFI") of the first two boot
 * applications of PCR 4 that name one. */
static size_t app_paths(const struct kt_evlog *log, char paths[2][512])
{
    size_t n = 0;
    for (size_t i = 0; i < log->n_events && n < 2; i++) {
        const struct kt_evlog_event *e = &log->event[i];
        char text[1024];
        if (e->pcr != 4 || e->type != KT_EV_EFI_BOOT_SERVICES_APPLICATION)
            continue;
        if (kt_evlog_devpath(e, text, sizeof(text), paths[n], sizeof(paths[n])) == 0 &&
            paths[n][0])
            n++;
    }
    return n;
}

/* Copy src to dir + the ESP path (backslashes), making its folders. */
static int place(const char *dir, const char *esp_path, const char *src, struct kt_error *err)
{
    char out[4200];
    size_t o = (size_t)snprintf(out, sizeof(out), "%s", dir);
    for (const char *p = esp_path; *p && o + 2 < sizeof(out); p++) {
        if (*p == '\\' || *p == '/') {
            out[o] = 0;
            if (o > strlen(dir) && mkdir(out, 0700) != 0 && errno != EEXIST)
                return kt_fail(err, -errno, KT_NO_OFFSET, "scratch ESP: %s", strerror(errno));
            out[o++] = '/';
        } else if (*p == '.' && (p[1] == '.' && (p == esp_path || p[-1] == '\\'))) {
            return kt_fail(err, -EINVAL, KT_NO_OFFSET, "the log's image path leaves the ESP");
        } else {
            out[o++] = *p;
        }
    }
    out[o] = 0;
    struct kt_file f;
    int rc = kt_file_open(src, &f, err);
    if (rc < 0)
        return rc;
    rc = kt_file_write_atomic(out, f.data, f.len, err);
    kt_file_close(&f);
    return rc;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(p);
    return 0;
}

int kt_seal_predict_install(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                            const char *shim, const char *loader, struct kt_evlog_prediction **p,
                            struct kt_error *err)
{
    *p = NULL;
    char paths[2][512];
    size_t n = app_paths(log, paths);
    if (n < (loader ? 2u : 1u))
        return kt_fail(err, -ENODATA, KT_NO_OFFSET, "the event log shows no boot %s on the ESP "
                       "to replace", n ? "loader after shim" : "application");
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/ktrust-esp.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return kt_fail(err, -errno, KT_NO_OFFSET, "scratch ESP: %s", strerror(errno));
    int rc = place(dir, paths[0], shim, err);
    if (rc == 0 && loader)
        rc = place(dir, paths[1], loader, err);
    if (rc == 0) {
        struct kt_evlog_predict_opts po = *o;
        po.esp = dir;
        rc = kt_evlog_predict(log, &po, p, err);
    }
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}
