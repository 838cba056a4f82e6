/* pipeline.c - the one replay loop of a prediction: walk the log's events
 * once; for each event of a predicted PCR, the logged digests, then the
 * first recomputer registered for that PCR that claims the event; then each
 * PCR's finishing step; then every predicted PCR replayed in every bank. */
#include <stdlib.h>
#include <string.h>

#include "eventlog/eventlog.h"
#include "eventlog/recompute.h"
#include "ktrust/sdboot.h"
#include "util/fmt.h"

/* THE table: recomputers by source of truth, PCR by PCR (the order of the
 * prediction's PCRs is the order of their first recomputer here). */
static const struct kt_evlog_recomputer *const recomputers[] = {
    &kt_evlog_rc_sb_vars, &kt_evlog_rc_db_authority, &kt_evlog_rc_sbat_level,
    &kt_evlog_rc_db_insert, &kt_evlog_rc_shim_authority, &kt_evlog_rc_images, &kt_evlog_rc_mok,
    &kt_evlog_rc_uki, &kt_evlog_rc_cmdline,
};

/* The recomputers of one run. */
struct table {
    const struct kt_evlog_recomputer *const *r;
    size_t n;
};

static struct kt_evlog_pcr_pred *slot(struct kt_evlog_prediction *p, unsigned pcr)
{
    for (size_t k = 0; k < p->n_pcrs; k++)
        if (p->pcr[k].pcr == pcr)
            return &p->pcr[k];
    return NULL;
}

static bool active(const struct kt_evlog_recomputer *r, const struct kt_evlog_predict_opts *o)
{
    return !r->active || r->active(o);
}

/* A slot for each PCR with an active recomputer, sized to its events. */
static int open_slots(const struct table *t, const struct kt_evlog *log,
                      const struct kt_evlog_predict_opts *o, struct kt_evlog_prediction *p)
{
    for (size_t r = 0; r < t->n; r++) {
        const struct kt_evlog_recomputer *rc = t->r[r];
        if (!active(rc, o) || slot(p, rc->pcr) || rc->pcr >= KT_EVLOG_PCRS)
            continue;
        struct kt_evlog_pcr_pred *s = &p->pcr[p->n_pcrs++];
        s->pcr = rc->pcr;
        s->what = rc->what;
        s->source = rc->source;
        size_t n = 0;
        for (size_t i = 0; i < log->n_events; i++)
            n += log->event[i].pcr == s->pcr && log->event[i].type != KT_EV_NO_ACTION;
        s->ev = calloc(n ? n : 1, sizeof(*s->ev));
        if (!s->ev)
            return -ENOMEM;
    }
    return 0;
}

/* Event i: its logged digests, then the first active recomputer of its PCR
 * that claims it. */
static int one_event(const struct table *t, const struct kt_evlog *log, size_t i,
                     const struct kt_evlog_predict_opts *o, struct kt_evlog_pcr_pred *s,
                     struct kt_error *err)
{
    const struct kt_evlog_event *e = &log->event[i];
    struct kt_evlog_predicted *pr = &s->ev[s->n++];
    pr->event_index = i;
    pr->how = KT_PRED_KEPT;
    for (size_t b = 0; b < log->n_banks; b++) {
        const uint8_t *d = kt_evlog_event_digest(e, log->bank[b].alg, NULL);
        if (d)
            memcpy(pr->digest[b], d, log->bank[b].size);
    }
    for (size_t r = 0; r < t->n; r++) {
        const struct kt_evlog_recomputer *rc = t->r[r];
        if (rc->pcr != e->pcr || !rc->claims || !active(rc, o))
            continue;
        int c = rc->claims(log, i, err);
        if (c < 0)
            return c;
        if (c > 0)
            return rc->recompute(log, i, o, pr, err);
    }
    return 0;
}

/* Replay PCR s->pcr of p->after from s's events: inserted ones in every
 * computable bank, the log's in the banks they have a digest for. */
static int replay_pcr(const struct kt_evlog *log, struct kt_evlog_prediction *p,
                      struct kt_evlog_pcr_pred *s)
{
    unsigned pcr = s->pcr;
    for (size_t b = 0; b < log->n_banks; b++) {
        memset(p->after.bank[b].pcr[pcr], 0, sizeof(p->after.bank[b].pcr[pcr]));
        if (pcr == 0 && log->have_locality)
            p->after.bank[b].pcr[0][log->bank[b].size - 1] = log->startup_locality;
    }
    for (size_t k = 0; k < s->n; k++) {
        const struct kt_evlog_event *e = &log->event[s->ev[k].event_index];
        if (s->ev[k].how == KT_PRED_REMOVED)
            continue; /* not measured at the next boot */
        for (size_t b = 0; b < log->n_banks; b++) {
            if (!p->after.bank[b].supported ||
                (!s->ev[k].inserted && !kt_evlog_event_digest(e, log->bank[b].alg, NULL)))
                continue;
            KT_TRY(kt_evlog_extend(kt_evlog_hash(log->bank[b].alg), p->after.bank[b].pcr[pcr],
                                   log->bank[b].size, s->ev[k].digest[b]));
        }
    }
    s->changes = false;
    for (size_t b = 0; b < log->n_banks; b++)
        s->changes |= memcmp(p->after.bank[b].pcr[pcr], p->now.bank[b].pcr[pcr],
                             p->now.bank[b].size) != 0;
    return 0;
}

/* A prediction reads the events of the PCRs it predicts (a variable's
 * logged data against the new state, an image's path): built on data that
 * no longer hashes to its digest, it would be presented as genuine and be
 * wrong.  -EKEYREJECTED at the first such event (kt_evlog_event_check). */
static int check_data(const struct kt_evlog *log, struct kt_evlog_prediction *p,
                      struct kt_error *err)
{
    for (size_t i = 0; i < log->n_events; i++) {
        struct kt_evlog_mismatch m;
        if (!slot(p, log->event[i].pcr))
            continue;
        int rc = kt_evlog_event_check(log, i, &m);
        if (rc < 0)
            return rc;
        if (rc > 0)
            return kt_fail(err, -EKEYREJECTED, m.digest_offset,
                           "event %zu (PCR %u): its data does not match its %s digest: the log "
                           "was altered, no prediction is built on it", m.event_index, m.pcr,
                           kt_evlog_alg_name(m.alg) ? kt_evlog_alg_name(m.alg) : "logged");
    }
    return 0;
}

static int run(const struct table *t, const struct kt_evlog *log,
               const struct kt_evlog_predict_opts *o, struct kt_evlog_prediction *p,
               struct kt_error *err)
{
    KT_TRY(kt_evlog_replay(log, &p->now));
    KT_TRY(open_slots(t, log, o, p));
    KT_TRY(check_data(log, p, err));
    for (size_t i = 0; i < log->n_events; i++) {
        struct kt_evlog_pcr_pred *s = slot(p, log->event[i].pcr);
        if (s && log->event[i].type != KT_EV_NO_ACTION)
            KT_TRY(one_event(t, log, i, o, s, err));
    }
    for (size_t r = 0; r < t->n; r++) {
        const struct kt_evlog_recomputer *rc = t->r[r];
        if (rc->finish && active(rc, o))
            KT_TRY(rc->finish(log, o, slot(p, rc->pcr)));
    }
    p->after = p->now;
    for (size_t k = 0; k < p->n_pcrs; k++)
        KT_TRY(replay_pcr(log, p, &p->pcr[k]));
    return 0;
}

/* The UKI and options w names, else those systemd-boot boots next on
 * w->esp (kt_sdboot_pick_uki, with the Loader* variables of w->vars): the
 * one rule every prediction (eventlog, plan-updates, check-update, audit)
 * takes, the choice kept in the prediction.  No systemd-boot, or its next
 * entry starts no UKI: w unchanged, no choice. */
static int with_next_uki(struct kt_evlog_predict_opts *w, struct kt_sdboot_next_uki *nx)
{
    if (!w->uki && !w->esp)
        return 0;
    int rc = kt_sdboot_pick_uki(w->esp, w->vars, w->uki, false, nx, NULL);
    if (rc == 1 && !w->uki) {
        w->uki = nx->path;
        w->uki_options = nx->type1 ? nx->options : NULL;
    }
    if (rc == 1 && nx->rule == KT_SDBOOT_BY_GIVEN && w->uki_options)
        kt_fmt(nx->options, sizeof(nx->options), "%s", w->uki_options);
    return rc == -ENOMEM ? rc : rc == 1;
}

int kt_evlog_predict_with(const struct kt_evlog_recomputer *const *r, size_t n,
                          const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                          struct kt_evlog_prediction **out, struct kt_error *err)
{
    static const struct kt_evlog_predict_opts none;
    struct table t = {r, n};
    char why[512];
    int other = kt_evlog_other_machine(log, o, why, sizeof(why));
    *out = NULL;
    if (other < 0)
        return other;
    if (other == 1)
        return kt_fail(err, -EXDEV, 0, "%s", why);
    struct kt_evlog_predict_opts w = o ? *o : none;
    struct kt_sdboot_next_uki *nx = calloc(1, sizeof(*nx));
    *out = calloc(1, sizeof(**out));
    int rc = *out && nx ? with_next_uki(&w, nx) : -ENOMEM;
    if (rc == 1) {
        (*out)->uki = nx;
        nx = NULL;
        rc = 0;
    }
    if (rc == 0)
        rc = run(&t, log, &w, *out, err);
    free(nx);
    return rc;
}

int kt_evlog_predict(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                     struct kt_evlog_prediction **out, struct kt_error *err)
{
    return kt_evlog_predict_with(recomputers, sizeof(recomputers) / sizeof(recomputers[0]), log,
                                 o, out, err);
}

void kt_evlog_prediction_free(struct kt_evlog_prediction *p)
{
    if (!p)
        return;
    free(p->uki);
    for (size_t k = 0; k < p->n_pcrs; k++)
        free(p->pcr[k].ev);
    free(p);
}

const struct kt_sdboot_next_uki *kt_evlog_prediction_uki(const struct kt_evlog_prediction *p)
{
    return p ? p->uki : NULL;
}

const struct kt_evlog_pcrs *kt_evlog_prediction_now(const struct kt_evlog_prediction *p)
{
    return &p->now;
}

const struct kt_evlog_pcrs *kt_evlog_prediction_after(const struct kt_evlog_prediction *p)
{
    return &p->after;
}

size_t kt_evlog_prediction_n_pcrs(const struct kt_evlog_prediction *p)
{
    return p->n_pcrs;
}

unsigned kt_evlog_prediction_pcr(const struct kt_evlog_prediction *p, size_t k)
{
    return k < p->n_pcrs ? p->pcr[k].pcr : KT_EVLOG_PCRS;
}

static const struct kt_evlog_pcr_pred *cslot(const struct kt_evlog_prediction *p, unsigned pcr)
{
    return slot((struct kt_evlog_prediction *)p, pcr);
}

bool kt_evlog_prediction_has(const struct kt_evlog_prediction *p, unsigned pcr)
{
    return cslot(p, pcr) != NULL;
}

bool kt_evlog_prediction_changes(const struct kt_evlog_prediction *p, unsigned pcr)
{
    const struct kt_evlog_pcr_pred *s = cslot(p, pcr);
    return s && s->changes;
}

const char *kt_evlog_prediction_what(const struct kt_evlog_prediction *p, unsigned pcr,
                                     const char **source)
{
    const struct kt_evlog_pcr_pred *s = cslot(p, pcr);
    if (source)
        *source = s ? s->source : NULL;
    return s ? s->what : NULL;
}

size_t kt_evlog_prediction_n_events(const struct kt_evlog_prediction *p, unsigned pcr)
{
    const struct kt_evlog_pcr_pred *s = cslot(p, pcr);
    return s ? s->n : 0;
}

const struct kt_evlog_predicted *kt_evlog_prediction_event(const struct kt_evlog_prediction *p,
                                                           unsigned pcr, size_t k)
{
    const struct kt_evlog_pcr_pred *s = cslot(p, pcr);
    return s && k < s->n ? &s->ev[k] : NULL;
}
