/* plan_arch.h - the right file for this machine (plan_arch.c). */
#ifndef KT_PLAN_PLAN_ARCH_H
#define KT_PLAN_PLAN_ARCH_H

#include <stdbool.h>

#include "ktrust/plan.h"
#include "util/jsonr.h"

/* p->arch and p->arch_from from the first of the n boot files found that
 * is a PE of a known machine type (unknown: p->arch stays ""). */
void kt_plan_machine_arch(struct kt_plan *p, const char *const *paths, const bool *found, size_t n);

/* p->dbx_info parsed into *info (NULL when there is none, it does not
 * parse, or the machine's architecture is unknown: the folders are then the
 * fallback).  0 or -ENOMEM. */
int kt_plan_arch_info(const struct kt_plan *p, struct kt_json **info);

/* For a dbx update that verified (f->change holds what it adds): fill
 * f->arch and f->revokes; true when every image hash it adds is for
 * another architecture than this machine's (by info's lists, else by its
 * folder).  False when the machine's architecture is unknown. */
bool kt_plan_file_arch(const struct kt_plan *p, const struct kt_json *info, struct kt_plan_file *f);

#endif
