/* predict4.h - PCR 4 after a change of boot binaries (predict4.c), PCR 14
 * after a MOK change (predict14.c). */
#ifndef KT_EVENTLOG_PREDICT4_H
#define KT_EVENTLOG_PREDICT4_H

#include "ktrust/eventlog.h"

/* Fill p->ev4/n4 and p->after's PCR 4 from the log's PCR 4 events and the
 * images on esp; p->now and p->after already hold the replay.  0, -ENOMEM. */
int kt_evlog_predict_pcr4(const struct kt_evlog *log, const char *esp,
                          struct kt_evlog_prediction *p);

/* The same for PCR 14 (predict14.c): shim's MokList, MokListX and
 * MokListTrusted events with the hash of vars' RT variables. */
int kt_evlog_predict_pcr14(const struct kt_evlog *log, const struct kt_efivars *vars,
                           struct kt_evlog_prediction *p);

#endif
