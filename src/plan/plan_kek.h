/* plan_kek.h - the Microsoft CAs a plan looks for, and the KEK 2023 story
 * of one PK (which OEM file, if any, carries KEK 2023 for it). */
#ifndef KT_PLAN_PLAN_KEK_H
#define KT_PLAN_PLAN_KEK_H

#include <stdbool.h>
#include <stdint.h>

#include "ktrust/plan.h"

/* SHA-256 of the certificates (DER), from Microsoft's secureboot_objects. */
extern const uint8_t kt_plan_kek_2023[32];   /* Microsoft Corporation KEK 2K CA 2023 */
extern const uint8_t kt_plan_uefi_2011[32];  /* Microsoft Corporation UEFI CA 2011 */
extern const uint8_t kt_plan_uefi_2023[32];  /* Microsoft UEFI CA 2023 */

/* Does variable id of s hold the X509 entry with this SHA-256? */
bool kt_plan_var_holds(const struct kt_efivars *s, enum kt_efivar_id id,
                       const uint8_t sha256[32]);

/* Fill p->pk, p->pk_sha1 and p->kek_note from the variables before (`was`)
 * and after the plan (`now`), p->files and p->map.  0 or -ENOMEM. */
int kt_plan_kek_story(struct kt_plan *p, const struct kt_efivars *was,
                      const struct kt_efivars *now);

#endif
