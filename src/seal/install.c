/* install.c - the PCRs after new boot binaries are installed (check-update
 * --install's question for sealed secrets): the event log's prediction
 * (kt_evlog_predict) with the new shim in place of the first boot
 * application the log shows and the new loader in place of the second
 * (kt_evlog_predict_opts' swap: nothing is written), so that PCR 4 gets
 * their Authenticode digests and PCR 7 the db entry that verifies them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ktrust/advanced.h"
#include "seal/seal.h"
#include "util/err.h"

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
    FILE *f = NULL;
    const char *files[2] = {shim, loader};
    for (size_t i = 0; i < 2 && files[i]; i++) { /* a file that cannot be read: said now */
        if (!(f = fopen(files[i], "rb")))
            return kt_fail(err, -errno, KT_NO_OFFSET, "%s: cannot open: %s", files[i],
                           strerror(errno));
        fclose(f);
    }
    struct kt_evlog_image_swap swap[2] = {{paths[0], shim}, {paths[1], loader}};
    struct kt_evlog_predict_opts po = *o;
    po.esp = NULL;
    po.swap = swap;
    po.n_swap = loader ? 2 : 1;
    return kt_evlog_predict(log, &po, p, err);
}
