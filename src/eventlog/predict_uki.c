/* predict_uki.c - PCR 11's recomputer (recompute.h), source of truth the
 * UKI that boots next: systemd-stub's EV_IPL events (each measured
 * section's name with its NUL, then its loaded bytes, in canonical order:
 * src/uki/) replaced by those of that UKI.  The log's stub events are
 * claimed one by one; the finishing step gives the k-th of them the UKI's
 * k-th measurement, adds the ones the new UKI has more of (after the last)
 * and drops the ones it has fewer of.  systemd-pcrphase's phase words come
 * later, from user space, and are not in the firmware's log. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eventlog/eventlog.h"
#include "eventlog/recompute.h"
#include "uki/uki.h"
#include "util/file.h"
#include "util/fmt.h"

/* One measurement of the stub: a section's name or contents. */
struct meas {
    const char *section; /* its canonical name */
    bool contents;       /* false: the name */
    uint8_t d[KT_EVLOG_MAX_BANKS][KT_EVLOG_MAX_DIGEST];
};

static bool active(const struct kt_evlog_predict_opts *o)
{
    return o->uki != NULL;
}

static int claims(const struct kt_evlog *log, size_t i, struct kt_error *err)
{
    (void)err;
    return log->event[i].pcr == 11 && log->event[i].type == KT_EV_IPL;
}

/* Every event is settled by finish (the counts may differ). */
static int recompute(const struct kt_evlog *log, size_t i, const struct kt_evlog_predict_opts *o,
                     struct kt_evlog_predicted *pr, struct kt_error *err)
{
    (void)log, (void)i, (void)o, (void)pr, (void)err;
    return 0;
}

/* The stub's measurements of u, in order, in every computable bank of the
 * log (kt_uki_measurement): *out malloc'd, *n. */
static int measurements(const struct kt_evlog *log, const struct kt_uki *u, struct meas **out,
                        size_t *n)
{
    *n = 0;
    *out = calloc(2 * KT_UKI_KNOWN_COUNT, sizeof(**out));
    if (!*out)
        return -ENOMEM;
    for (size_t k = 0; k < 2 * KT_UKI_KNOWN_COUNT; k++) {
        struct meas *m = &(*out)[k];
        int rc = -ENOENT;
        for (size_t b = 0; b < log->n_banks; b++) {
            const char *bank = kt_evlog_alg_name(log->bank[b].alg);
            size_t len;
            if (!log->bank[b].supported || !bank)
                continue;
            rc = kt_uki_measurement(u, k, bank, m->d[b], &len, &m->section, &m->contents);
            if (rc < 0 && rc != -EINVAL) /* EINVAL: a bank the stub's rules do not name */
                break;
        }
        if (rc == -ENOENT)
            break;
        if (rc < 0 && rc != -EINVAL)
            return rc;
        (*n)++;
    }
    return 0;
}

/* An event of the PCR's list gets measurement m. */
static void settle(const struct kt_evlog *log, struct kt_evlog_predicted *pr, const struct meas *m)
{
    kt_evlog_pred_set(log, pr, m->d);
    kt_fmt(pr->note, sizeof(pr->note), "%s: its %s", m->section, m->contents ? "contents" : "name");
}

static int rewrite(const struct kt_evlog *log, struct kt_evlog_pcr_pred *s, const struct meas *m,
                   size_t n)
{
    size_t k = 0, last = 0, w = 0;
    for (size_t j = 0; j < s->n; j++) {
        const struct kt_evlog_event *e = &log->event[s->ev[j].event_index];
        if (s->ev[j].inserted || e->type != KT_EV_IPL) {
            s->ev[w++] = s->ev[j];
            continue;
        }
        last = s->ev[j].event_index;
        if (k < n) { /* else dropped: the new UKI measures fewer sections */
            settle(log, &s->ev[j], &m[k++]);
            s->ev[w++] = s->ev[j];
        }
    }
    s->n = w;
    if (k == n)
        return 0;
    struct kt_evlog_predicted *ne = realloc(s->ev, (s->n + n - k) * sizeof(*ne));
    if (!ne)
        return -ENOMEM;
    s->ev = ne;
    for (; k < n; k++) {
        struct kt_evlog_predicted *x = &s->ev[s->n++];
        memset(x, 0, sizeof(*x));
        x->event_index = last;
        x->inserted = true;
        x->type = KT_EV_IPL;
        settle(log, x, &m[k]);
        x->how = KT_PRED_CHANGED;
    }
    return 0;
}

static int finish(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                  struct kt_evlog_pcr_pred *s)
{
    struct kt_file f;
    struct kt_uki *u = NULL;
    struct meas *m = NULL;
    size_t n = 0;
    int rc = kt_file_open(o->uki, &f, NULL);
    if (rc < 0)
        return rc;
    rc = kt_uki_open_buf(f.data, f.len, &u, NULL);
    if (rc == 0)
        rc = measurements(log, u, &m, &n);
    if (rc == 0)
        rc = rewrite(log, s, m, n);
    free(m);
    kt_uki_free(u);
    kt_file_close(&f);
    return rc;
}

const struct kt_evlog_recomputer kt_evlog_rc_uki = {
    11, "systemd-stub's measurements of the UKI's sections, from the UKI that boots next",
    "the UKI", active, claims, recompute, finish,
};
