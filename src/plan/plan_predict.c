/* plan_predict.c - PCR 7 and the sealed secrets after a plan's step, from
 * one prediction per state (plan_predict.h). */
#include "plan/plan_predict.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktrust/advanced.h"
#include "util/fmt.h"

/* Each token against the prediction: today's PCRs (o->pcrs_today, else
 * the log's replay) with those the state changes replaced. */
static int check_tokens(const struct kt_plan_opts *o, const struct kt_evlog_prediction *pr,
                        struct kt_plan_state *st)
{
    st->seal = calloc(o->n_tokens, sizeof(*st->seal));
    if (!st->seal)
        return -ENOMEM;
    st->n_seal = o->n_tokens;
    const struct kt_evlog_pcrs *today = o->pcrs_today;
    struct kt_evlog_pcrs *replay = NULL;
    int rc = 0;
    if (!today) {
        replay = malloc(sizeof(*replay));
        rc = replay ? kt_evlog_replay(o->eventlog, replay) : -ENOMEM;
        today = replay;
    }
    for (size_t i = 0; rc == 0 && i < o->n_tokens; i++) {
        rc = kt_seal_check_uki(&o->tokens[i], o->uki, today, kt_evlog_prediction_now(pr),
                               kt_evlog_prediction_after(pr), &st->seal[i]);
        st->seal_fails += st->seal[i].after == KT_SEAL_FAILS;
    }
    free(replay);
    return rc == -ENOMEM ? rc : 0;
}

int kt_plan_predict(const struct kt_plan_opts *o, const struct kt_efivars *s,
                    struct kt_plan_state *st)
{
    struct kt_evlog_predict_opts po = {.vars = s, .esp = o->esp};
    struct kt_evlog_prediction *pr = NULL;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_evlog_predict(o->eventlog, &po, &pr, &e);
    if (rc < 0) {
        kt_evlog_prediction_free(pr);
        return rc == -ENOMEM ? rc : 0;
    }
    struct kt_evlog_pcr7_outlook ol;
    if (kt_evlog_pcr7_outlook_of(pr, &ol) == 1) {
        kt_fmt(st->pcr7_bank, sizeof(st->pcr7_bank), "%s", ol.bank);
        kt_fmt(st->pcr7, sizeof(st->pcr7), "%s", ol.next);
        st->pcr7_known = true;
        st->pcr7_changes = ol.changes;
    }
    rc = o->n_tokens ? check_tokens(o, pr, st) : 0;
    kt_evlog_prediction_free(pr);
    return rc;
}

size_t kt_plan_seal_step(const struct kt_plan *p)
{
    for (size_t i = 0; i < p->n_steps; i++) {
        const struct kt_plan_state *s = &p->after[i];
        const struct kt_plan_state *prev = i ? &p->after[i - 1] : &p->before;
        for (size_t k = 0; k < s->n_seal && k < prev->n_seal; k++) {
            enum kt_seal_verdict before = i ? prev->seal[k].after : prev->seal[k].today;
            if (s->seal[k].after == KT_SEAL_FAILS && before == KT_SEAL_UNSEALS)
                return i + 1;
        }
    }
    return 0;
}
