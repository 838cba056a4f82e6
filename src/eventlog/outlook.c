/* outlook.c - PCR 7 at the next boot in one line's worth: the prediction
 * (predict.c) reduced to one bank, for audit's and plan-updates' outlook. */
#include <errno.h>
#include <string.h>

#include "ktrust/advanced.h"
#include "ktrust/eventlog.h"
#include "util/fmt.h"

int kt_evlog_pcr7_outlook_of(const struct kt_evlog_prediction *pr,
                             struct kt_evlog_pcr7_outlook *out)
{
    memset(out, 0, sizeof(*out));
    const struct kt_evlog_pcrs *now = kt_evlog_prediction_now(pr);
    const struct kt_evlog_pcrs *after = kt_evlog_prediction_after(pr);
    if (!after->n_banks)
        return 0;
    size_t b = 0;
    for (size_t i = 0; i < after->n_banks; i++)
        if (after->bank[i].alg == KT_TPM_ALG_SHA256 && after->bank[i].supported)
            b = i;
    const char *name = kt_evlog_alg_name(after->bank[b].alg);
    kt_fmt(out->bank, sizeof(out->bank), "%s", name ? name : "?");
    kt_hex(now->bank[b].pcr[7], now->bank[b].size, out->last);
    kt_hex(after->bank[b].pcr[7], after->bank[b].size, out->next);
    out->changes = kt_evlog_prediction_changes(pr, 7);
    return 1;
}

int kt_evlog_pcr7_outlook(const struct kt_evlog *log, const struct kt_efivars *vars,
                          const char *esp, struct kt_evlog_pcr7_outlook *out)
{
    memset(out, 0, sizeof(*out));
    struct kt_evlog_predict_opts po = {.vars = vars, .esp = esp};
    struct kt_evlog_prediction *pr;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_evlog_predict(log, &po, &pr, &e);
    int got = rc == 0 ? kt_evlog_pcr7_outlook_of(pr, out) : 0;
    kt_evlog_prediction_free(pr);
    return rc == -ENOMEM ? rc : got;
}
