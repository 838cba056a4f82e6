/* predict_int.h - the parts of a prediction (predict.c: PCR 7's events):
 * PCR 4 after a change of boot binaries (predict4.c), PCR 14 after a MOK
 * change (predict14.c), firmware's db authority events the log lacks
 * (predict_insert.c). */
#ifndef KT_EVENTLOG_PREDICT_INT_H
#define KT_EVENTLOG_PREDICT_INT_H

#include <stdbool.h>

#include "ktrust/chain.h"
#include "ktrust/eventlog.h"

/* Fill p->ev4/n4 and p->after's PCR 4 from the log's PCR 4 events and the
 * images on esp; p->now and p->after already hold the replay.  0, -ENOMEM. */
int kt_evlog_predict_pcr4(const struct kt_evlog *log, const char *esp,
                          struct kt_evlog_prediction *p);

/* The same for PCR 14 (predict14.c): shim's MokList, MokListX and
 * MokListTrusted events with the hash of vars' RT variables. */
int kt_evlog_predict_pcr14(const struct kt_evlog *log, const struct kt_efivars *vars,
                           struct kt_evlog_prediction *p);

/* Does PCR pcr of p->after differ from p->now's in any bank? */
bool kt_evlog_pcr_changes(const struct kt_evlog *log, const struct kt_evlog_prediction *p,
                          unsigned pcr);

/* Replay PCR 7 of p->after from p->ev's digests (inserted events in every
 * computable bank).  0, or kt_digest's error. */
int kt_evlog_replay_pcr7(const struct kt_evlog *log, struct kt_evlog_prediction *p);

/* The db entry (owner GUID + data, as EFI_SIGNATURE_DATA) of vars' db that
 * the chain names (which: variable "db", its index, owner and the SHA-256 of
 * its data, kt_chain_firmware's link->db): 0 and *out, or -ENOENT. */
int kt_evlog_db_entry(const struct kt_efivars *vars, const struct kt_chain_entry *which,
                      kt_span *out);

/* Insert into p->ev the db authority events firmware would add: a boot
 * application the log shows without an authority before it, found on the
 * ESP, verified after the change by a db entry no earlier authority event
 * names.  0, -ENOMEM. */
int kt_evlog_predict_new_authorities(const struct kt_evlog *log,
                                     const struct kt_evlog_predict_opts *o,
                                     struct kt_evlog_prediction *p);

#endif
