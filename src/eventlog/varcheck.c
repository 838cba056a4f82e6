/* varcheck.c - are the Secure Boot variables measured into PCR 7 the ones
 * in force now? */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eventlog/eventlog.h"
#include "util/fmt.h"

int kt_evlog_check_vars(const struct kt_evlog *log, const struct kt_efivars *vars,
                        struct kt_evlog_varcheck **out, size_t *n, struct kt_error *err)
{
    *out = NULL;
    *n = 0;
    struct kt_evlog_varcheck *r = calloc(log->n_events ? log->n_events : 1, sizeof(*r));
    if (!r)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < log->n_events; i++) {
        const struct kt_evlog_event *e = &log->event[i];
        if (e->pcr != 7 || e->type != KT_EV_EFI_VARIABLE_DRIVER_CONFIG)
            continue;
        struct kt_evlog_var v;
        int rc = kt_evlog_var_parse(e, &v, err);
        if (rc < 0) {
            free(r);
            return rc;
        }
        int id = kt_evlog_sb_var(v.name);
        if (id < 0)
            continue;
        struct kt_evlog_varcheck *c = &r[k++];
        c->event_index = i;
        kt_fmt(c->name, sizeof(c->name), "%s", v.name);
        c->id = (enum kt_efivar_id)id;
        c->logged_len = v.data.len;
        const struct kt_efivar *ev = vars ? &vars->var[id] : NULL;
        if (!ev || ev->state == KT_EFIVAR_ABSENT) {
            c->result = KT_VARCMP_ABSENT;
        } else if (ev->state == KT_EFIVAR_UNREADABLE) {
            c->result = KT_VARCMP_UNREADABLE;
        } else {
            size_t len;
            const uint8_t *d = kt_efivar_data(ev, &len);
            c->now_len = len;
            c->result = len == v.data.len && (!len || !memcmp(d, v.data.p, len))
                            ? KT_VARCMP_SAME
                            : KT_VARCMP_CHANGED;
        }
    }
    *out = r;
    *n = k;
    return 0;
}

/* Does the change from a to b write v (its state or data differ)? */
static bool writes(const struct kt_efivars *a, const struct kt_efivars *b, enum kt_efivar_id v)
{
    size_t la, lb;
    const uint8_t *da = kt_efivar_data(&a->var[v], &la), *db = kt_efivar_data(&b->var[v], &lb);
    return a->var[v].state != b->var[v].state || la != lb || (la && memcmp(da, db, la) != 0);
}

int kt_evlog_other_machine(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                           char *why, size_t cap)
{
    if (!o || !o->before)
        return 0; /* the variables are the state predicted: their keys are the change */
    if (o->vars && (writes(o->before, o->vars, KT_EFIVAR_PK) ||
                    writes(o->before, o->vars, KT_EFIVAR_KEK)))
        return 0; /* a change that writes PK or KEK: re-provisioning is the change */
    struct kt_evlog_varcheck *r;
    size_t n;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_evlog_check_vars(log, o->before, &r, &n, &e);
    if (rc < 0)
        return rc == -ENOMEM ? rc : 0;
    bool pk = false, kek = false;
    for (size_t i = 0; i < n; i++) {
        pk |= r[i].id == KT_EFIVAR_PK && r[i].result == KT_VARCMP_CHANGED;
        kek |= r[i].id == KT_EFIVAR_KEK && r[i].result == KT_VARCMP_CHANGED;
    }
    free(r);
    if (!pk || !kek)
        return 0;
    kt_fmt(why, cap, "the event log is another machine's: the PK and KEK it measured differ from "
           "the variables' (no update changes both), so a prediction from it says nothing about "
           "this machine");
    return 1;
}
