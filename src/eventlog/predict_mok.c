/* predict_mok.c - PCR 14's recomputer (recompute.h), source of truth the
 * MOK lists: shim measures, as EV_IPL events
 * named "MokList", "MokListX" and "MokListTrusted", the hash of the data it
 * mirrors into MokListRT, MokListXRT and MokListTrustedRT (the corpus's
 * OVMF boot: MokList's digest is the hash of the vendor certificate's ESL,
 * MokListTrusted's the hash of the byte 1).  The state after the change:
 * those RT variables of the new state.  MokListTrusted is inverse (shim
 * 16.1 mok.c, MOK_VARIABLE_INVERSE): absent, shim creates MokListTrustedRT =
 * 1 and logs it; set, neither: no MokListTrustedRT, no event. */
#include <stdlib.h>
#include <string.h>

#include "efivars/efivars.h"
#include "eventlog/eventlog.h"
#include "eventlog/recompute.h"
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

static bool active(const struct kt_evlog_predict_opts *o)
{
    return o->vars != NULL;
}

static int claims(const struct kt_evlog *log, size_t i, struct kt_error *err)
{
    (void)err;
    return mok_var(&log->event[i]) >= 0;
}

static int recompute(const struct kt_evlog *log, size_t i, const struct kt_evlog_predict_opts *o,
                     struct kt_evlog_predicted *pr, struct kt_error *err)
{
    int id = mok_var(&log->event[i]);
    (void)err;
    if (id < 0)
        return 0; /* claimed: not reached */
    const struct kt_efivar *v = &o->vars->var[id];
    /* absent from a whole view with shim's mirrors (MokListRT: shim always
     * creates it) */
    if (v->state == KT_EFIVAR_ABSENT && id == KT_EFIVAR_MOKLIST_TRUSTED &&
        kt_efivars_whole(o->vars) && o->vars->var[KT_EFIVAR_MOKLIST].state == KT_EFIVAR_PRESENT) {
        /* shim 16.1 mok.c: MokListTrusted is MOK_VARIABLE_INVERSE: set, shim
         * neither mirrors it into MokListTrustedRT nor logs it */
        pr->how = KT_PRED_REMOVED;
        kt_fmt(pr->note, sizeof(pr->note), "MokListTrustedRT absent (MokListTrusted set: the "
               "owner does not trust MOK keys for the kernel): shim logs nothing");
        return 0;
    }
    if (v->state != KT_EFIVAR_PRESENT) {
        pr->how = KT_PRED_KEPT_UNKNOWN;
        kt_fmt(pr->note, sizeof(pr->note), "%s not in the new state: kept", kt_efivar_name(id));
        return 0;
    }
    size_t len;
    const uint8_t *data = kt_efivar_data(v, &len);
    uint8_t d[KT_EVLOG_MAX_BANKS][KT_EVLOG_MAX_DIGEST];
    for (size_t b = 0; b < log->n_banks; b++)
        if (log->bank[b].supported)
            KT_TRY(kt_digest(kt_evlog_hash(log->bank[b].alg), data ? data : (const uint8_t *)"",
                             len, d[b]));
    kt_evlog_pred_set(log, pr, d);
    kt_fmt(pr->note, sizeof(pr->note), "the hash of %s", kt_efivar_name(id));
    return 0;
}

const struct kt_evlog_recomputer kt_evlog_rc_mok = {
    14, "shim's MOK state from the RT variables", "shim's MOK lists",
    active, claims, recompute, NULL,
};
