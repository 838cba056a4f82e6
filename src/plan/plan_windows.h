/* plan_windows.h - dual boot: the Windows boot manager on the ESP
 * (plan_windows.c). */
#ifndef KT_PLAN_PLAN_WINDOWS_H
#define KT_PLAN_PLAN_WINDOWS_H

#include <stdbool.h>

#include "ktrust/plan.h"

/* p->windows: EFI/Microsoft/Boot/bootmgfw.efi on the ESP, if there. */
void kt_plan_windows_find(struct kt_plan *p, const char *esp);

/* Firmware's verdict on it with variables s, into st. */
void kt_plan_windows_judge(const struct kt_plan *p, const struct kt_efivars *s,
                           struct kt_plan_state *st);

/* Would the step from s to next stop the Windows boot manager that boots
 * in s?  true: f->held, with the reason and the order to follow. */
bool kt_plan_windows_holds(struct kt_plan *p, const struct kt_efivars *s,
                           const struct kt_efivars *next, struct kt_plan_file *f);

#endif
