/* plan_ready.c - where a plan ends: the 2023 rollover's readiness of the
 * variables after the last step (the same facts as audit's rollover
 * section: db's Microsoft UEFI CA 2023, KEK's KEK 2K CA 2023), and the
 * updates that advice names but the plan was not given. */
#include <string.h>

#include "boot/ms_cas.h"
#include "plan/plan_kek.h"
#include "util/fmt.h"

/* Is one of the plan's files named `update` (its basename), and did it apply? */
static const struct kt_plan_file *given(const struct kt_plan *p, const char *update)
{
    for (size_t i = 0; i < p->n_files; i++) {
        const char *b = strrchr(p->files[i].path, '/');
        if (!strcmp(b ? b + 1 : p->files[i].path, update))
            return &p->files[i];
    }
    return NULL;
}

static void append(char *buf, size_t cap, const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(buf);
    kt_fmt(buf + n, cap - n, fmt, a, b);
}

/* db lacks the CA (role, 2023) after the plan: say which update adds it and
 * whether the plan had it. */
static void lacks(struct kt_plan *p, enum kt_ms_ca_role role, bool worth)
{
    const struct kt_ms_ca *ca = kt_ms_ca_get(role, 2023);
    if (!worth || !ca || !ca->update || kt_plan_var_holds(&p->final, KT_EFIVAR_DB, role, 2023))
        return;
    if (role == KT_MS_CA_3P)
        append(p->end_why, sizeof(p->end_why), "%sdb will lack %s", p->end_why[0] ? "; " : "",
               ca->name);
    const struct kt_plan_file *f = given(p, ca->update);
    if (f && f->applies)
        return;
    char *m = p->end_missing;
    size_t cap = sizeof(p->end_missing);
    append(m, cap, "%s%s", m[0] ? "; " : "", ca->update);
    append(m, cap, " (adds %s to db)%s", ca->name,
           f ? " is among the UPDATES but does not apply" : " is not among the UPDATES");
}

void kt_plan_end(struct kt_plan *p)
{
    const struct kt_efivars *s = &p->final;
    p->end_state = KT_ROLLOVER_READY;
    p->end_why[0] = p->end_missing[0] = 0;
    if (!kt_plan_var_holds(s, KT_EFIVAR_DB, KT_MS_CA_3P, 2023))
        p->end_state = KT_ROLLOVER_NOT_READY;
    lacks(p, KT_MS_CA_3P, true);
    if (!kt_plan_var_holds(s, KT_EFIVAR_KEK, KT_MS_CA_KEK, 2023)) {
        if (p->end_state == KT_ROLLOVER_READY)
            p->end_state = KT_ROLLOVER_AT_RISK;
        append(p->end_why, sizeof(p->end_why), "%sKEK will lack %s", p->end_why[0] ? "; " : "",
               "Microsoft Corporation KEK 2K CA 2023");
    }
    lacks(p, KT_MS_CA_OROM, kt_plan_var_holds(s, KT_EFIVAR_DB, KT_MS_CA_3P, 2011));
    lacks(p, KT_MS_CA_WINDOWS, kt_plan_var_holds(s, KT_EFIVAR_DB, KT_MS_CA_WINDOWS, 2011));
    if (p->end_state == KT_ROLLOVER_READY)
        kt_fmt(p->end_why, sizeof(p->end_why), "db will hold Microsoft UEFI CA 2023 and KEK "
               "Microsoft Corporation KEK 2K CA 2023");
}
