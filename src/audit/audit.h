/* audit.h - `ktrust audit`'s internal steps; the report and kt_audit_run
 * are declared in ktrust/audit.h. */
#ifndef KT_AUDIT_AUDIT_H
#define KT_AUDIT_AUDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "chain/chain.h"
#include "efivars/efivars.h"
#include "ktrust/advanced.h"
#include "ktrust/audit.h"
#include "util/file.h"
#include "ktrust/eventlog.h"
#include "util/err.h"

/* At the top of a saved root (audit_save.c): who saved it, when, and how;
 * an audit of a root holding it reads saved modules (kt_chain_opts). */
#define KT_AUDIT_SAVED_META "ktrust-saved-root.json"
#include "util/fmt.h"

/* What an audit reads of a system, read once (audit_snap.c); every section
 * is a function over it and opens nothing the snapshot holds.  The boot
 * engine still reads the links by path (kt_chain_run), once per state. */
struct kt_audit_snap {
    struct kt_efivars vars;           /* in force (after opts.apply) */
    struct kt_efivars was;            /* as read, before opts.apply (have_was) */
    bool have_was;
    /* each present link's bytes (KT_AUDIT_SHIM ...), or why not (rc) */
    struct kt_file file[KT_AUDIT__LINKS];
    int file_rc[KT_AUDIT__LINKS];
    struct kt_error file_error[KT_AUDIT__LINKS];
    /* the TCG event log under the root: parsed once (log_rc 0), or why not */
    char log_path[KT_AUDIT_PATH];
    struct kt_file log_file;
    struct kt_evlog log;
    int log_rc;
    char log_error[256];              /* why not (log_rc < 0) */
};

/* Read the located parts of a (kt_audit_locate done) into s: the variables
 * (opts.vars, else efivars; a->found[EFIVARS] cleared when they vanished),
 * opts.apply applied in order (a->applied), the links' files, the event
 * log.  Returns 0 or -ENOMEM; free s with kt_audit_snap_free either way. */
int kt_audit_snap_read(struct kt_audit *a, const struct kt_audit_opts *o,
                       struct kt_audit_snap *s);
void kt_audit_snap_free(struct kt_audit_snap *s);

/* Internal steps (audit_vars.c, audit_boot.c, audit_modules.c). */
int kt_audit_vars(struct kt_audit *a, const struct kt_efivars *s);
void kt_audit_boot_entries(struct kt_audit *a, const struct kt_audit_snap *s);
/* a->nvram.lim: what the machine reports, or opts.nv (audit_nvram.c). */
void kt_audit_nvram_limits(struct kt_audit *a, const struct kt_audit_opts *o);
/* Apply one update to *s as firmware would, refused (c->verdict -EPERM,
 * *s unchanged) when the write does not fit a->nvram.lim and *free.
 * 0, the reason's code, or -ENOMEM. */
int kt_audit_apply_one(struct kt_audit *a, struct kt_efivars *s, const char *path,
                       struct kt_efivars_change *c, uint64_t *free);
/* a->windows: the Windows boot manager on the ESP in each state
 * (audit_windows.c; after the rollover, whose CA count it reads).  0 or
 * -ENOMEM. */
int kt_audit_windows(struct kt_audit *a, const struct kt_efivars *vars);
/* a->nvram (audit_nvram.c). */
void kt_audit_nvram(struct kt_audit *a, const struct kt_audit_opts *o,
                    const struct kt_audit_snap *s);
/* Parse one EFI_LOAD_OPTION (a Boot#### payload after the efivarfs
 * attribute word) into b: active, description, and the first media
 * file-path node as a '/'-separated path (non-printable characters as '?').
 * Returns 0 or -EBADMSG (no NUL-terminated description, a device path
 * longer than the option, a node shorter than 4 bytes or past its list). */
int kt_audit_load_option(const uint8_t *p, size_t len, struct kt_audit_boot *b);
/* systemd-boot on the ESP (audit_sdboot.c): with no shim located,
 * EFI/systemd/systemd-bootx64.efi is the loader; once the snapshot holds
 * the links' bytes and the variables in force (kt_audit_sdboot), a "shim"
 * that is systemd-boot becomes the loader, and with systemd-boot as the
 * loader the kernel link becomes the program of the entry it boots next.
 * 0 or -ENOMEM. */
void kt_audit_sdboot_locate(struct kt_audit *a);
int kt_audit_sdboot(struct kt_audit *a, struct kt_audit_snap *s);
/* The module files under the modules directory, sorted (owned: free each
 * and the array); *n 0 when the directory was not found. */
int kt_audit_module_list(const struct kt_audit *a, char ***list, size_t *n);
/* One module's link (not trusted): into the group of its verdict, reason
 * and signer.  -ENOMEM. */
int kt_audit_group_module(struct kt_audit *a, const struct kt_chain_link *l, const char *rel);

/* The measured-boot outlook into a->pcr7: the snapshot's event log against
 * the variables as read (s->was, else s->vars) and PCR 7 predicted with
 * s->vars (after any --apply).  No log: a->pcr7.have_log false. */
int kt_audit_pcr7(struct kt_audit *a, const struct kt_audit_snap *s); /* 0, -ENOMEM */

/* The IMA measurement list into a->ima (audit_ima.c): under the root or
 * live (never offline), PCR 10 against the TPM's PCR files there, the
 * boot_aggregate against the snapshot's event log.  0 or -ENOMEM. */
int kt_audit_ima(struct kt_audit *a, const struct kt_audit_opts *o, const struct kt_audit_snap *s);

/* The sealed secrets (audit_sealed.c): found into a->sealed when the audit
 * looks at a whole system (a root, or live with no part given), read with
 * the snapshot; checked against today (the log's replay) and the
 * prediction pr (the next boot, whose variables are next: the Loader*
 * ones pick systemd-boot's next UKI for signed policies).  -ENOMEM. */
int kt_audit_sealed_find(struct kt_audit *a, const struct kt_audit_opts *o);
int kt_audit_sealed_check(struct kt_audit *a, const struct kt_evlog *log,
                          const struct kt_evlog_prediction *pr, const struct kt_efivars *next);

#endif
