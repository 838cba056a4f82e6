/* plan_nvram.h - does each step's write fit in the firmware's NVRAM
 * (plan_nvram.c). */
#ifndef KT_PLAN_PLAN_NVRAM_H
#define KT_PLAN_PLAN_NVRAM_H

#include <stdbool.h>

#include "ktrust/plan.h"

/* The write of f's target from state was to now against p->nv and the free
 * space so far (p->nv_free): f->nv; true (f->no_fit, with the reason and the
 * way out in f->reason) when firmware would refuse it, else p->nv_free
 * becomes the free space after it. */
bool kt_plan_nv_refuses(struct kt_plan *p, const struct kt_efivars *was,
                        const struct kt_efivars *now, struct kt_plan_file *f);

/* "does not fit: ..." for a refused file. */
void kt_plan_nv_say(const struct kt_plan *p, struct kt_plan_file *f);

#endif
