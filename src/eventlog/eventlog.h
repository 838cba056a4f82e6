/* eventlog.h - the TCG event log (public API: ktrust/eventlog.h).  Files:
 * parse.c (the two formats), names.c (algorithm and event type names),
 * decode.c (UEFI_VARIABLE_DATA, device paths), replay.c (PCRs, variable
 * digests), integrity.c (each event's digest against its data),
 * authority.c (PCR 7 explained), varcheck.c (the variables in
 * force against the measured ones), pipeline.c (a prediction: the one
 * replay loop over the recomputers of recompute.h). */
#ifndef KT_EVENTLOG_EVENTLOG_H
#define KT_EVENTLOG_EVENTLOG_H

#include "crypto/crypto.h"
#include "ktrust/eventlog.h"
#include "util/err.h"

/* The digest ktrust computes for a bank's algorithm (KT_HASH_NONE: none). */
enum kt_hash kt_evlog_hash(uint16_t alg);

/* Extend one PCR value (size bytes) with digest d: PCR = H(PCR || d).
 * 0, or kt_digest's error.  The replay and every prediction use it. */
int kt_evlog_extend(enum kt_hash h, uint8_t *pcr, size_t size, const uint8_t *d);

/* The Secure Boot variable a PCR 7 variable event names (by its ASCII
 * name: SecureBoot, PK, KEK, db, dbx, dbt, dbr), or -1. */
int kt_evlog_sb_var(const char *name);

/* Does an event of this type measure an image firmware or shim loads (a
 * boot application, a boot or runtime driver)? */
bool kt_evlog_is_image(uint32_t type);

#endif
