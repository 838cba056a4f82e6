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

int kt_evlog_other_machine(const struct kt_evlog *log, const struct kt_efivars *vars,
                           char *why, size_t cap)
{
    struct kt_evlog_varcheck *r;
    size_t n;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_evlog_check_vars(log, vars, &r, &n, &e);
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
