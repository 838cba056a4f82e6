/* audit_pcr7.c - the measured-boot outlook of an audit: the firmware's TCG
 * event log (src/eventlog/) against the variables in force (a change since
 * the last boot), and PCR 7 at the next boot with the variables after any
 * --apply (kt_evlog_predict), so the audit says when secrets sealed to
 * PCR 7 would stop unsealing. */
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "ktrust/advanced.h"
#include "ktrust/boot.h"
#include "ktrust/eventlog.h"
#include "util/fmt.h"

static void changed_names(struct kt_audit_pcr7 *m, const struct kt_evlog *log,
                          const struct kt_efivars *was)
{
    struct kt_evlog_varcheck *vc = NULL;
    size_t n = 0;
    struct kt_error e = KT_ERROR_INIT;
    if (kt_evlog_check_vars(log, was, &vc, &n, &e) < 0)
        return;
    for (size_t i = 0; i < n; i++) {
        if (vc[i].result != KT_VARCMP_CHANGED)
            continue;
        size_t l = strlen(m->changed);
        kt_fmt(m->changed + l, sizeof(m->changed) - l, "%s%s", l ? ", " : "", vc[i].name);
    }
    free(vc);
}

/* One prediction for the next boot: PCR 7's line and the sealed secrets. */
static int predict(struct kt_audit *a, const struct kt_evlog *log, const struct kt_efivars *next,
                   const char *esp)
{
    struct kt_audit_pcr7 *m = &a->pcr7;
    struct kt_evlog_predict_opts po = {.vars = next, .esp = esp};
    struct kt_evlog_prediction *pr = NULL;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_evlog_predict(log, &po, &pr, &e);
    struct kt_evlog_pcr7_outlook o;
    if (rc == 0 && kt_evlog_pcr7_outlook_of(pr, &o) == 1) {
        kt_fmt(m->bank, sizeof(m->bank), "%s", o.bank);
        kt_fmt(m->now, sizeof(m->now), "%s", o.last);
        kt_fmt(m->next, sizeof(m->next), "%s", o.next);
        m->changes = o.changes;
        m->known = true;
    }
    if (rc == 0)
        rc = kt_audit_sealed_check(a, log, pr, next);
    kt_evlog_prediction_free(pr);
    return rc == -ENOMEM ? rc : 0;
}

int kt_audit_pcr7(struct kt_audit *a, const struct kt_audit_snap *s)
{
    struct kt_audit_pcr7 *m = &a->pcr7;
    memset(m, 0, sizeof(*m));
    kt_fmt(m->log_path, sizeof(m->log_path), "%s", s->log_path);
    m->log_rc = s->log_rc;
    if (m->log_rc < 0)
        return 0;
    m->have_log = true;
    for (size_t i = 0; i < s->log.n_events; i++) {
        struct kt_evlog_mismatch mm;
        if (kt_evlog_event_check(&s->log, i, &mm) == 1) { /* the log's data was altered */
            kt_fmt(m->altered, sizeof(m->altered), "event %zu (PCR %u) at offset %zu",
                   mm.event_index, mm.pcr, mm.offset);
            return 0;
        }
    }
    if (!a->found[KT_AUDIT_EFIVARS])
        return 0;
    changed_names(m, &s->log, s->have_was ? &s->was : &s->vars);
    return predict(a, &s->log, &s->vars, a->found[KT_AUDIT_ESP] ? a->path[KT_AUDIT_ESP] : NULL);
}
