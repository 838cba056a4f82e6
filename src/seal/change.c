/* change.c - sealed tokens against one change: the PCRs the event log's
 * prediction gives for it (kt_evlog_predict with the variables, SbatLevel
 * and ESP after it, or new boot binaries through kt_seal_predict_install),
 * then each token's verdict today and after.  The one call a command makes
 * per state: unseal-check for its change, plan-updates for each step. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "seal/seal.h"
#include "util/err.h"

int kt_seal_check_change(const struct kt_evlog *log, const struct kt_evlog_pcrs *today,
                         const struct kt_seal_change *c, const struct kt_seal_token *t, size_t n,
                         struct kt_seal_check *r, struct kt_error *err)
{
    struct kt_evlog_prediction *p = NULL;
    struct kt_evlog_pcrs *replay = NULL;
    static const struct kt_evlog_predict_opts none;
    const struct kt_evlog_predict_opts *o = c && c->predict ? c->predict : &none;
    int rc = c && c->shim ? kt_seal_predict_install(log, o, c->shim, c->loader, &p, err)
                          : kt_evlog_predict(log, o, &p, err);
    if (rc == 0 && !today) {
        replay = malloc(sizeof(*replay));
        rc = replay ? kt_evlog_replay(log, replay) : -ENOMEM;
        today = replay;
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = kt_seal_check_uki(&t[i], c ? c->uki : NULL, today, kt_evlog_prediction_now(p),
                               kt_evlog_prediction_after(p), &r[i]);
    if (c && c->keep && rc == 0)
        *c->keep = p;
    else
        kt_evlog_prediction_free(p);
    free(replay);
    return rc;
}
