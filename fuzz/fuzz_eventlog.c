/* fuzz_eventlog.c - the TCG event log: parse, decode every event, replay,
 * explain PCR 7 and predict it (identity: no new state). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eventlog/eventlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kt_evlog log;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_evlog_parse(data, size, &log, &e);
    if (rc < 0) {
        if (rc != -EBADMSG && rc != -ENOMEM)
            abort();
        if (rc == -EBADMSG && (e.what[0] == 0 || e.offset > size))
            abort(); /* every failure names a field and an offset inside the input */
        kt_evlog_free(&log);
        return 0;
    }
    for (size_t i = 0; i < log.n_events; i++) {
        struct kt_evlog_var v;
        char dp[256], file[64];
        struct kt_error e2 = KT_ERROR_INIT;
        if (kt_evlog_var_parse(&log.event[i], &v, &e2) < 0 && e2.offset > size)
            abort();
        (void)kt_evlog_devpath(&log.event[i], dp, sizeof(dp), file, sizeof(file));
    }
    struct kt_evlog_pcrs p;
    (void)kt_evlog_replay(&log, &p);
    struct kt_evlog_authority *a;
    size_t n;
    if (kt_evlog_authorities(&log, &a, &n, NULL) == 0)
        free(a);
    struct kt_evlog_prediction *pr = NULL;
    struct kt_evlog_predict_opts o = {0};
    if (kt_evlog_predict(&log, &o, &pr, NULL) == 0 && kt_evlog_prediction_changes(pr, 7))
        abort(); /* nothing changed: PCR 7 is the replayed one */
    kt_evlog_prediction_free(pr);
    kt_evlog_free(&log);
    return 0;
}
