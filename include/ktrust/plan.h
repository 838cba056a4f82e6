/* ktrust/plan.h - `ktrust plan-updates`: which signed db/dbx/KEK/PK updates
 * (files, or a tree laid out like Microsoft's secureboot_objects) apply to
 * this machine's variables, in what order, and what the boot chain on an
 * ESP says after each step.
 *
 * An update applies when its signature verifies under an authority the
 * machine holds, or gains from an earlier step (a KEK update signed by this
 * PK, then updates signed under the new KEK): the file's name and any index
 * (kek_update_map.json) are never the judge.  Order: KEK updates first,
 * then db, then dbx (db before the dbx updates that revoke what they
 * replace), PK last; steps repeat until nothing more applies.
 *
 *   struct kt_plan p;
 *   struct kt_plan_opts o = {.vars = &vars, .updates = paths, .n_updates = n, .esp = esp};
 *   kt_plan_run(&o, &p, &err);   ... p.files, p.order, p.states ...
 *   kt_plan_free(&p);
 */
#ifndef KTRUST_PLAN_H
#define KTRUST_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "ktrust/api.h"
#include "ktrust/efivars.h"
#include "ktrust/error.h"
#include "ktrust/eventlog.h"
#include "ktrust/seal.h"
#include "ktrust/nvram.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KT_PLAN_PATH 4096

struct kt_plan_opts {
    const struct kt_efivars *vars;       /* the machine's variables in force */
    const char *const *updates;          /* files or directories */
    size_t n_updates;
    const char *esp;                     /* an ESP to judge each step by; NULL: none */
    const struct kt_evlog *eventlog;     /* this machine's last boot: PCR 7 predicted
                                            after each step; NULL: none */
    /* TPM-sealed secrets (kt_seal_find) checked against the PCRs predicted
     * after each step, from the same prediction (needs eventlog) */
    const struct kt_seal_token *tokens;
    size_t n_tokens;
    const struct kt_seal_uki *uki;       /* the UKI that boots, for signed policies
                                            (kt_seal_uki_open_for; NULL: none) */
    const struct kt_evlog_pcrs *pcrs_today; /* today's PCRs; NULL: the log's replay */
    const char *kek_map;                 /* kek_update_map.json; NULL: one found among
                                            the updates, if any */
    bool all_arches;                     /* apply dbx updates for every architecture, not
                                            only this machine's */
    const struct kt_nv_limits *nv;       /* the firmware's NVRAM limits (NULL: unknown) */
};

/* One update file found. */
struct kt_plan_file {
    char path[KT_PLAN_PATH];
    bool applies;                        /* verified under an authority held (at its step) */
    size_t step;                         /* 1-based place in the plan; 0: not in it */
    struct kt_efivars_change change;     /* what applying it did, or why it does not apply
                                            (at its step, else against the final state) */
    char reason[768];                    /* one line for a person */
    /* the right file for this machine (src/plan/plan_arch.c) */
    char arch[32];                       /* the architectures a dbx update's image hashes
                                            are for ("ia32"; "" neutral or unknown) */
    bool other_arch;                     /* verifies, but every hash it adds is for
                                            another architecture: skipped (not a step) */
    bool arch_listed;                    /* arch from dbx_info's lists (else its folder) */
    bool other_pk;                       /* a KEK/PK update signed by another platform key */
    char revokes[384];                   /* a dbx update: what it revokes ("the hashes of
                                            443 images", "3 SVN records") */
    /* NVRAM (src/plan/plan_nvram.c): the write at its step, or the one refused */
    struct kt_nv_fit nv;
    bool no_fit;                         /* verifies, but firmware would refuse the write:
                                            too big for one variable or no room (not a step) */
    bool held;                           /* verifies, but would stop the Windows boot manager
                                            on the ESP: held back (not a step) */
};

/* What the boot chain on the ESP and the variables say in one state. */
struct kt_plan_state {
    bool kek_2023;                       /* KEK holds Microsoft Corporation KEK 2K CA 2023 */
    bool db_uefi_2011, db_uefi_2023;     /* db holds Microsoft (Corporation) UEFI CA 2011 / 2023 */
    bool dbx_uefi_2011;                  /* ... and dbx revokes the 2011 one */
    bool shim_2023_only_boots;           /* a shim signed only by UEFI CA 2023 would pass db/dbx */
    bool checked;                        /* an ESP was judged */
    bool shim_found, loader_found;
    int shim_verdict, loader_verdict;    /* 0 boots; else the verdict code (negative errno) */
    char shim_reason[768], loader_reason[768];
    /* a Windows boot manager on the ESP (EFI/Microsoft/Boot/bootmgfw.efi):
     * firmware's db/dbx verdict on it in this state */
    bool windows_found;
    int windows_verdict;                 /* 0 boots; else the verdict code */
    char windows_reason[768];
    /* PCR 7 (with an event log): predicted in the log's SHA-256 bank (else
     * its first) for this state, and whether it differs from the last boot's */
    bool pcr7_known;
    bool pcr7_changes;
    char pcr7[2 * KT_EVLOG_MAX_DIGEST + 1];
    char pcr7_bank[16];
    /* each of kt_plan_opts' tokens against this state's predicted PCRs
     * (owned; NULL without tokens or without an event log) */
    struct kt_seal_check *seal;
    size_t n_seal;
    size_t seal_fails;                   /* tokens that do NOT unseal in this state */
};

struct kt_plan {
    struct kt_plan_file *files;          /* every update file, in walk order (owned) */
    size_t n_files;
    size_t *order;                       /* indices into files, step by step (owned) */
    size_t n_steps;
    struct kt_plan_state before;
    struct kt_plan_state *after;         /* one per step (owned) */
    char pk[512];                        /* this PK's subject ("" none) */
    char pk_sha1[41];                    /* its certificate's SHA-1 thumbprint (hex) */
    char kek_note[1024];                 /* the KEK 2023 story for this PK */
    char map[KT_PLAN_PATH];              /* kek_update_map.json found among the updates ("") */
    char dbx_info[KT_PLAN_PATH];         /* dbx_info*.json found among the updates ("") */
    char arch[16];                       /* this machine's architecture ("x64"; "" unknown) */
    char arch_from[KT_PLAN_PATH];        /* what says so (the ESP's shim or loader) */
    size_t n_other_arch, n_other_pk;     /* files skipped for another architecture, and
                                            KEK/PK files of other platform keys */
    struct kt_nv_limits nv;              /* the limits the plan was judged by */
    uint64_t nv_free;                    /* the store's free space after the plan
                                            (nv.free_known) */
    struct kt_nv_shim shim_nv;           /* shim's runtime mirrors at the next boot, against
                                            the free space after the plan */
    size_t n_no_fit;                     /* updates refused for NVRAM */
    size_t n_held;                       /* updates held back for the Windows boot manager */
    char windows[KT_PLAN_PATH];          /* the Windows boot manager on the ESP ("" none) */
    struct kt_efivars final;             /* the variables after every step (owned;
                                            kt_efivars_write saves them) */
    /* the plan's verdict: the first step (1-based) that stops a chain that
     * booted before it (the ESP's shim or loader boots before the step, not
     * after it); 0 when no step does (or no ESP was given) */
    size_t breaks_step;
    /* the first step after which a sealed token that unseals today does
     * not (0: none): the recovery key is asked for unless it is re-sealed
     * before; not part of the exit code (a re-seal fixes it) */
    size_t seal_step;
    /* where the plan ends, after the last step (the 2023 rollover, judged as
     * audit's section judges it): end_state a KT_ROLLOVER_* of ktrust/audit.h
     * (ready, at risk: KEK lacks KEK 2K CA 2023, not ready: db lacks Microsoft
     * UEFI CA 2023), end_why what the variables will lack ("db will lack
     * Microsoft UEFI CA 2023"), end_missing the updates that add a missing CA
     * and are not among the files or do not apply ("" none) */
    int end_state;
    char end_why[512];
    char end_missing[1024];
};

/* Returns 0, -ENOMEM, or an error reading the updates (err names it). */
KT_API int kt_plan_run(const struct kt_plan_opts *o, struct kt_plan *p, struct kt_error *err);
KT_API void kt_plan_free(struct kt_plan *p);

#ifdef __cplusplus
}
#endif
#endif
