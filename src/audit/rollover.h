/* rollover.h - audit's 2023 certificate rollover section (the report is
 * struct kt_rollover in ktrust/audit.h): which Microsoft CAs KEK, db and dbx
 * hold (src/boot/ms_cas.c: the one table), the platform key (src/boot/pk.c:
 * PKfail, kek_update_map.json), what shim and the loader do today and
 * after UEFI CA 2011 leaves db or enters dbx (rollover_images.c: the boot
 * engine on changed copies of the variables), and the findings and the
 * verdict (audit_rollover.c). */
#ifndef KT_AUDIT_ROLLOVER_H
#define KT_AUDIT_ROLLOVER_H

#include "audit/audit.h"
#include "ktrust/advanced.h"
#include "boot/ms_cas.h"
#include "x509/x509.h"

/* The whole section into a->rollover (a->links located, the chain run).
 * Returns 0, -ENOMEM, or the error of a kek_update_map.json that cannot
 * be read or parsed (err set, a->error_file naming it). */
int kt_audit_rollover(struct kt_audit *a, const struct kt_audit_opts *o,
                      const struct kt_audit_snap *s, struct kt_error *err);
/* What UEFI CA 2011 authorized at the last boot, from the snapshot's event
 * log (when ro->eventlog): ro->uefi_2011_*.  0 or -ENOMEM (a log that
 * could not be read or parsed is ro->eventlog_rc). */
int kt_rollover_eventlog(struct kt_rollover *ro, const struct kt_audit_snap *s);
/* The states of the variables the boot binaries are checked in: v[TODAY]
 * is vars itself; v[NO_2011] a copy whose db lacks Microsoft Corporation
 * UEFI CA 2011 (its other entries rebuilt one list each); v[2011_IN_DBX] a
 * copy whose dbx adds it (as db holds it, else its TBS hash).  The copies
 * share vars' other bytes: free with kt_rollover_states_free before vars.
 * Returns 0 or -ENOMEM (a db that does not parse is left as it is: the
 * boot engine leaves such a variable out in every state). */
struct kt_rollover_states {
    struct kt_efivars *v[KT_ROLLOVER__STATES];
    uint8_t *db, *dbx; /* owned: the new db and dbx */
};
int kt_rollover_states_build(struct kt_rollover_states *st, const struct kt_efivars *vars);
void kt_rollover_states_free(struct kt_rollover_states *st);
/* The shim and the loader in each state (KT_ROLLOVER_TODAY ...): today's
 * verdicts are the audit's chain (a->links), each other state one run of
 * the boot engine; each signature from the snapshot's bytes.  -ENOMEM. */
int kt_rollover_images(struct kt_rollover *ro, const struct kt_audit *a,
                       const struct kt_audit_snap *s);

#endif
