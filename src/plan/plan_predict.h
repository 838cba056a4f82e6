/* plan_predict.h - the measured-boot side of a plan's state: one prediction
 * per state (kt_evlog_predict over the last boot's log with the state's
 * variables and the ESP), read twice: PCR 7's outlook line and each sealed
 * token's verdict (kt_seal_check). */
#ifndef KT_PLAN_PREDICT_H
#define KT_PLAN_PREDICT_H

#include "ktrust/plan.h"

/* st's pcr7_* and seal fields for the variables s (o->eventlog set).
 * Returns 0 (nothing filled when the log cannot be predicted), -ENOMEM. */
int kt_plan_predict(const struct kt_plan_opts *o, const struct kt_efivars *s,
                    struct kt_plan_state *st);

/* The first step after which a token that unseals before it does not:
 * 1-based, 0 when none. */
size_t kt_plan_seal_step(const struct kt_plan *p);

#endif
