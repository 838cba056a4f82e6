/* audit.h - `ktrust audit`'s internal steps; the report and kt_audit_run
 * are declared in ktrust/audit.h. */
#ifndef KT_AUDIT_AUDIT_H
#define KT_AUDIT_AUDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "chain/chain.h"
#include "efivars/efivars.h"
#include "ktrust/audit.h"
#include "util/err.h"
#include "util/fmt.h"

/* Internal steps (audit_vars.c, audit_boot.c, audit_modules.c). */
int kt_audit_vars(struct kt_audit *a, const struct kt_efivars *s);
void kt_audit_boot_entries(struct kt_audit *a, const struct kt_efivars *s);
/* Parse one EFI_LOAD_OPTION (a Boot#### payload after the efivarfs
 * attribute word) into b: active, description, and the first media
 * file-path node as a '/'-separated path (non-printable characters as '?').
 * Returns 0 or -EBADMSG (no NUL-terminated description, a device path
 * longer than the option, a node shorter than 4 bytes or past its list). */
int kt_audit_load_option(const uint8_t *p, size_t len, struct kt_audit_boot *b);
/* The module files under the modules directory, sorted (owned: free each
 * and the array); *n 0 when the directory was not found. */
int kt_audit_module_list(const struct kt_audit *a, char ***list, size_t *n);
/* One module's link (not trusted): into the group of its verdict, reason
 * and signer.  -ENOMEM. */
int kt_audit_group_module(struct kt_audit *a, const struct kt_chain_link *l, const char *rel);

/* The measured-boot outlook into a->pcr7: the event log under the root
 * against `was` (the variables as read) and PCR 7 predicted with `next`
 * (after any --apply).  No log: a->pcr7.have_log false. */
void kt_audit_pcr7(struct kt_audit *a, const struct kt_audit_opts *o,
                   const struct kt_efivars *was, const struct kt_efivars *next);

#endif
