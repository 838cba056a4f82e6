/* predict14.c - PCR 14 after a MOK change: shim measures, as EV_IPL events
 * named "MokList", "MokListX" and "MokListTrusted", the hash of the data it
 * mirrors into MokListRT, MokListXRT and MokListTrustedRT (the corpus's
 * OVMF boot: MokList's digest is the hash of the vendor certificate's ESL,
 * MokListTrusted's the hash of the byte 1).  The state after the change:
 * those RT variables of the new state. */
#include <stdlib.h>
#include <string.h>

#include "eventlog/eventlog.h"
#include "eventlog/predict_int.h"
#include "util/fmt.h"

static int mok_var(const struct kt_evlog_event *e)
{
    static const struct {
        const char *name;
        enum kt_efivar_id id;
    } m[] = {{"MokList", KT_EFIVAR_MOKLIST},
             {"MokListX", KT_EFIVAR_MOKLISTX},
             {"MokListTrusted", KT_EFIVAR_MOKLIST_TRUSTED}};
    if (e->type != KT_EV_IPL)
        return -1;
    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
        size_t n = strlen(m[i].name);
        if (e->data.len == n + 1 && !memcmp(e->data.p, m[i].name, n + 1))
            return (int)m[i].id;
    }
    return -1;
}

static int one(const struct kt_evlog *log, size_t i, const struct kt_efivars *vars,
               struct kt_evlog_predicted *pr)
{
    const struct kt_evlog_event *e = &log->event[i];
    pr->event_index = i;
    pr->how = KT_PRED_KEPT;
    for (size_t b = 0; b < log->n_banks; b++) {
        const uint8_t *d = kt_evlog_event_digest(e, log->bank[b].alg, NULL);
        if (d)
            memcpy(pr->digest[b], d, log->bank[b].size);
    }
    int id = mok_var(e);
    if (id < 0)
        return 0;
    const struct kt_efivar *v = &vars->var[id];
    if (v->state != KT_EFIVAR_PRESENT) {
        pr->how = KT_PRED_KEPT_UNKNOWN;
        kt_fmt(pr->note, sizeof(pr->note), "%s not in the new state: kept", kt_efivar_name(id));
        return 0;
    }
    size_t len;
    const uint8_t *data = kt_efivar_data(v, &len);
    bool same = true;
    for (size_t b = 0; b < log->n_banks; b++) {
        if (!log->bank[b].supported)
            continue;
        uint8_t d[KT_HASH_MAX_SIZE];
        KT_TRY(kt_digest(kt_evlog_hash(log->bank[b].alg), data ? data : (const uint8_t *)"", len, d));
        same &= !memcmp(pr->digest[b], d, log->bank[b].size);
        memcpy(pr->digest[b], d, log->bank[b].size);
    }
    pr->how = same ? KT_PRED_RECOMPUTED : KT_PRED_CHANGED;
    kt_fmt(pr->note, sizeof(pr->note), "the hash of %s", kt_efivar_name(id));
    return 0;
}

int kt_evlog_predict_pcr14(const struct kt_evlog *log, const struct kt_efivars *vars,
                           struct kt_evlog_prediction *p)
{
    size_t n = 0;
    for (size_t i = 0; i < log->n_events; i++)
        n += log->event[i].pcr == 14 && log->event[i].type != KT_EV_NO_ACTION;
    if (!n)
        return 0;
    p->ev14 = calloc(n, sizeof(*p->ev14));
    if (!p->ev14)
        return -ENOMEM;
    for (size_t b = 0; b < log->n_banks; b++)
        memset(p->after.bank[b].pcr[14], 0, sizeof(p->after.bank[b].pcr[14]));
    for (size_t i = 0; i < log->n_events; i++) {
        const struct kt_evlog_event *e = &log->event[i];
        if (e->pcr != 14 || e->type == KT_EV_NO_ACTION)
            continue;
        struct kt_evlog_predicted *pr = &p->ev14[p->n14++];
        KT_TRY(one(log, i, vars, pr));
        for (size_t b = 0; b < log->n_banks; b++) {
            size_t len;
            if (!kt_evlog_event_digest(e, log->bank[b].alg, &len) || !p->after.bank[b].supported)
                continue;
            KT_TRY(kt_evlog_extend(kt_evlog_hash(log->bank[b].alg), p->after.bank[b].pcr[14],
                                   len, pr->digest[b]));
        }
    }
    p->pcr14_changes = kt_evlog_pcr_changes(log, p, 14);
    return 0;
}
