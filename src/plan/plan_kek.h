/* plan_kek.h - what a plan asks of a state (which of Microsoft's CAs a
 * variable holds: audit's one table, src/audit/rollover_cas.c), and the KEK
 * 2023 story of one PK (audit's PK lookup, src/audit/rollover_pk.c). */
#ifndef KT_PLAN_PLAN_KEK_H
#define KT_PLAN_PLAN_KEK_H

#include <stdbool.h>

#include "ktrust/audit.h"
#include "ktrust/plan.h"

/* Does variable id of s hold that CA (an X509 entry that is it, or for
 * dbx an X509_SHA256 entry of its TBS hash)? */
bool kt_plan_var_holds(const struct kt_efivars *s, enum kt_efivar_id id,
                       enum kt_ms_ca_role role, int year);

/* Fill p->pk, p->pk_sha1 and p->kek_note from the variables before (`was`)
 * and after the plan (`now`), p->files and p->map.  0 or -ENOMEM. */
int kt_plan_kek_story(struct kt_plan *p, const struct kt_efivars *was,
                      const struct kt_efivars *now);

/* Fill p->end_state, end_why and end_missing from p->final and p->files. */
void kt_plan_end(struct kt_plan *p);

#endif
