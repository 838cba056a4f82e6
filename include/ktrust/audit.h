/* ktrust/audit.h - `ktrust audit`: the whole boot chain of a system, live or
 * offline, in one pass, built on the boot engine (ktrust/chain.h), the variable
 * state (ktrust/efivars.h) and the update check (ktrust/update.h).
 *
 *   kt_audit_locate()  where each part is: efivars, the ESP (shim, loader,
 *                      MokManager), the kernel image, its modules
 *   kt_audit_run()     read the variables (efivars/), run the boot engine
 *                      (chain/: every link and module, SBAT), group the
 *                      modules that would not load, and ask what the dbx
 *                      updates and the latest SbatLevel would revoke
 *
 * A part that is not there is recorded as missing, never an error: the rest
 * is still audited.  Nothing here prints; the CLI does.
 */
#ifndef KTRUST_AUDIT_H
#define KTRUST_AUDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "ktrust/api.h"
#include "ktrust/boot.h"
#include "ktrust/chain.h"
#include "ktrust/efivars.h"
#include "ktrust/nvram.h"
#include "ktrust/error.h"
#include "ktrust/seal.h"
#include "ktrust/uki.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KT_AUDIT_PATH 4096
#define KT_AUDIT_MAX_DBX 16
#define KT_AUDIT_MAX_OWNERS 8
#define KT_AUDIT_MAX_BOOT 32
#define KT_AUDIT_MAX_APPLY 32

enum kt_audit_part { KT_AUDIT_EFIVARS = 0, KT_AUDIT_ESP, KT_AUDIT_KERNEL, KT_AUDIT_MODULES,
                     KT_AUDIT__PARTS };

struct kt_audit_opts {
    const char *root;                 /* NULL or "/": the live system */
    const char *efivars, *esp, *kernel, *modules; /* explicit paths (not under root) */
    const char *release;              /* uname -r; NULL: the running kernel's */
    const char *eventlog;             /* the TCG event log; NULL: the system's (under
                                         root, live, none when offline) */
    const struct kt_sbat_level *sbat_level; /* the SbatLevel before boot for the chain;
                                               NULL: the variables' */
    const char *dbx[KT_AUDIT_MAX_DBX]; /* dbx updates for the outlook */
    size_t n_dbx;
    bool no_latest;                   /* no outlook for the latest SbatLevel */
    /* the variables to audit instead of reading efivars (a "what if"
     * state, e.g. after a plan's updates); NULL: read them */
    const struct kt_efivars *vars;
    /* signed updates applied to the variables first, in order (--apply) */
    const char *apply[KT_AUDIT_MAX_APPLY];
    size_t n_apply;
    const char *kek_map;              /* Microsoft's kek_update_map.json, or NULL */
    const struct kt_nv_limits *nv;    /* NVRAM limits given (max_var; store_free when
                                         free_known); NULL: what the machine reports */
    /* called before each module is verified (done of total); may be NULL */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
    const char *kernel_cache;         /* kt_chain_opts.kernel_cache, or NULL */
};

/* ---- the 2023 certificate rollover ------------------------------------ */

#define KT_ROLLOVER_MAX_CAS 8
#define KT_ROLLOVER_MAX_SIGS 4
#define KT_ROLLOVER_MAX_FINDINGS 12

/* Which variables hold one of the CAs (by SHA-256, or its name and public key). */
struct kt_rollover_ca {
    const struct kt_ms_ca *ca;
    bool in_kek, in_db, in_dbx;
};

/* The states the boot binaries are checked in: the variables in force;
 * Microsoft Corporation UEFI CA 2011 removed from db; added to dbx. */
enum { KT_ROLLOVER_TODAY = 0, KT_ROLLOVER_NO_2011, KT_ROLLOVER_2011_IN_DBX, KT_ROLLOVER__STATES };

struct kt_rollover_sig {
    int index;
    char signer[320];
    char ca_desc[320];                  /* the top certificate of its chain */
    const struct kt_ms_ca *ca;          /* the Microsoft CA its chain reaches, or NULL */
    int verdict[KT_ROLLOVER__STATES];   /* firmware's verdict on it alone (db, dbx) */
    char accepted_by[KT_ROLLOVER__STATES][320]; /* the db entry that accepts it ("" none) */
};

struct kt_rollover_image {
    int link;                           /* KT_AUDIT_SHIM or KT_AUDIT_LOADER */
    bool present;
    int rc;                             /* 0, or why it could not be checked */
    char error[256];
    struct kt_rollover_sig sigs[KT_ROLLOVER_MAX_SIGS];
    size_t n_sigs;
    int verdict[KT_ROLLOVER__STATES];   /* the boot engine's verdict on the link */
    char reason[KT_ROLLOVER__STATES][768];
};

enum kt_rollover_finding_id {
    KT_RF_NO_3P_2023 = 0,   /* db lacks Microsoft UEFI CA 2023: a 2023-only shim does not boot */
    KT_RF_NO_KEK_2023,      /* KEK lacks Microsoft Corporation KEK 2K CA 2023 */
    KT_RF_SHIM_2011_ONLY,   /* the shim boots only by its 2011 signature */
    KT_RF_SHIM_DBX_2011,    /* a dual-signed shim stops when UEFI CA 2011 goes in dbx;
                             * not_ready: it is in dbx already, the shim does not boot */
    KT_RF_OROM,             /* option ROMs signed by UEFI CA 2011 */
    KT_RF_WINDOWS_2023,     /* db lacks Windows UEFI CA 2023 */
    KT_RF_PKFAIL,           /* a test or leaked platform key */
    KT_RF_NO_MS_KEK,        /* KEK holds no Microsoft KEK: no Microsoft db update applies */
};

enum kt_rollover_state { KT_ROLLOVER_UNKNOWN = -1, KT_ROLLOVER_READY = 0, KT_ROLLOVER_AT_RISK,
                         KT_ROLLOVER_NOT_READY };

struct kt_rollover_finding {
    enum kt_rollover_finding_id id;
    enum kt_rollover_state severity;    /* READY: a note that changes nothing */
    char what[512];                     /* what is wrong, and why it matters */
    char todo[512];                     /* what to do */
};

struct kt_rollover {
    bool checked;                       /* the variables were found */
    struct kt_rollover_ca cas[KT_ROLLOVER_MAX_CAS]; /* one per table entry */
    size_t n_cas;
    bool have_pk;
    char pk[320];                       /* the PK certificate's description */
    char pk_sha1[41];                   /* its SHA-1 thumbprint (kek_update_map.json's key) */
    bool pkfail;
    char pkfail_why[256];
    int kek_map;                        /* -1 no map given; 0 this PK is not in it; 1 it is */
    char kek_update[512];               /* the KEK update the map names for this PK */
    struct kt_rollover_image images[2]; /* the shim and the loader */
    bool eventlog;                      /* a TCG event log was found */
    char eventlog_path[KT_AUDIT_PATH];
    int eventlog_rc;                    /* 0 read; else why not (-EBADMSG ...) */
    /* what Microsoft Corporation UEFI CA 2011 authorized at the last boot:
     * firmware logs each db entry once, before the first image it verified
     * (drivers and option ROMs load before boot applications) */
    int uefi_2011_authorized;           /* -1 unknown (no log); 0 nothing; 1 an image */
    bool uefi_2011_driver;              /* that image is a driver or option ROM */
    char uefi_2011_image[512];          /* its device path as text */
    struct kt_rollover_finding findings[KT_ROLLOVER_MAX_FINDINGS];
    size_t n_findings;
    enum kt_rollover_state state;
    char why[512];                      /* the state, in words */
};

KT_API const char *kt_rollover_state_name(enum kt_rollover_state s); /* "ready", "at_risk", "not_ready", "unknown" */
KT_API const char *kt_rollover_finding_name(enum kt_rollover_finding_id id); /* "no_uefi_ca_2023", ... */
KT_API const char *kt_rollover_state_label(int state); /* "today", "uefi_ca_2011_removed", "uefi_ca_2011_in_dbx" */

/* One firmware or MOK variable: what it holds. */
enum { KT_AUDIT_VAR_PK, KT_AUDIT_VAR_KEK, KT_AUDIT_VAR_DB, KT_AUDIT_VAR_DBX,
       KT_AUDIT_VAR_MOK, KT_AUDIT_VAR_MOKX, KT_AUDIT__VARS };

struct kt_audit_var {
    const char *name;                 /* "PK", "KEK", "db", "dbx", "MokListRT", "MokListXRT" */
    bool present;
    int error;                        /* 0, or the parse error (-EBADMSG) */
    char error_what[256];
    size_t n_x509, n_sha256, n_x509_hash, n_other; /* entries by type */
    char **certs;                     /* descriptions of the X509 entries (owned) */
    size_t n_certs;
    struct {
        char guid[37];                /* SignatureOwner, "77fa9abd-..." */
        size_t n;                     /* entries it owns */
    } owners[KT_AUDIT_MAX_OWNERS];
    size_t n_owners;                  /* distinct owners (more are counted in the last) */
};

/* "Microsoft", "shim", ... for a well-known SignatureOwner GUID text, or NULL. */
KT_API const char *kt_audit_owner_name(const char *guid);

/* A boot link: shim, loader, kernel (and MokManager, checked for the outlook only). */
enum { KT_AUDIT_SHIM = 0, KT_AUDIT_LOADER, KT_AUDIT_KERNEL_LINK, KT_AUDIT_MOKMANAGER,
       KT_AUDIT__LINKS };

struct kt_audit_link {
    bool present;
    char path[KT_AUDIT_PATH];         /* the file, or where it was looked for */
    struct kt_chain_link link;        /* verdict and reason (shim, loader, kernel) */
    char sbat[256];                   /* the SBAT line ("" without one) */
};

/* Modules that would not load, grouped by verdict and reason. */
struct kt_audit_group {
    int verdict;
    char reason[768];
    char signer[320];                 /* the modules' signer ("" none or unknown) */
    char **modules;                   /* paths relative to the modules dir (owned) */
    size_t n;
};

/* What an update would do to one boot file. */
struct kt_audit_outlook {
    int link;                         /* KT_AUDIT_SHIM ... */
    int rc;                           /* 0, or why it cannot be checked */
    char error[256];
    int today;                        /* the chain's verdict on it today (0: it boots): the
                                       * outlook starts from it */
    bool by_dbx, by_sbat;             /* revoked by the dbx updates / by the latest SbatLevel */
    char detail[1024];                /* the reasons, "; "-joined */
};

/* A firmware boot entry (BootOrder order). */
struct kt_audit_boot {
    unsigned number;                  /* #### */
    bool present, malformed, active;
    char description[128];
    char file[512];                   /* the device path's file, '/'-separated ("" none) */
    bool on_esp;                      /* that file exists on the audited ESP */
    char path[KT_AUDIT_PATH];         /* ... there */
    bool audited;                     /* it is the audited shim: the chain below is its */
    bool checked;                     /* verdict/reason: firmware's (db, dbx) on the file */
    int verdict;
    char reason[768];
};

/* The measured-boot outlook (the firmware's TCG event log, when the system
 * has one): are the Secure Boot variables in force the ones measured into
 * PCR 7 at the last boot, and PCR 7 at the next boot (after any --apply). */
struct kt_audit_pcr7 {
    bool have_log;                    /* a log was found and parsed */
    int log_rc;                       /* 0, or why it could not be read or parsed */
    char log_path[KT_AUDIT_PATH];
    char altered[160];                /* an event whose data does not match its digest
                                       * ("event N (PCR P) at offset O", "" none): the
                                       * log was altered, nothing below is concluded */
    char changed[128];                /* the measured variables that differ now ("" none) */
    bool known;                       /* PCR 7 predicted */
    char bank[16];
    char now[129], next[129];         /* hex: the last boot's, the next boot's */
    bool changes;                     /* the next boot's PCR 7 differs */
};

/* NVRAM: the Secure Boot variables' sizes against the firmware's limits,
 * the --apply writes' fit, and room for shim's runtime mirrors. */
struct kt_audit_nvram {
    bool checked;                     /* the variables were found */
    struct kt_nv_limits lim;          /* the machine's numbers, or those given */
    struct kt_nv_fit fit[6];          /* PK, KEK, db, dbx, dbt, dbr: was -> in force */
    bool changed[6];                  /* an --apply changed it */
    size_t n_refused;                 /* --apply writes firmware would refuse */
    uint64_t free_after;              /* the free space after the --apply writes */
    struct kt_nv_shim shim;           /* shim's mirrors against free_after */
};

/* Dual boot: a Windows boot manager on the ESP (EFI/Microsoft/Boot/
 * bootmgfw.efi), firmware's verdict on it with the variables in force and
 * with Microsoft Windows Production PCA 2011 in dbx (DBXUpdate2024). */
enum { KT_WINDOWS_TODAY = 0, KT_WINDOWS_PCA_2011_IN_DBX, KT_WINDOWS__STATES };

struct kt_audit_windows {
    bool found;
    char path[KT_AUDIT_PATH];
    int verdict[KT_WINDOWS__STATES];  /* 0 boots; else the verdict code */
    char reason[KT_WINDOWS__STATES][768];
    bool needs_2023_first;            /* boots today, not once PCA 2011 is in dbx */
    bool db_windows_2023;             /* db holds Windows UEFI CA 2023 */
};

/* The IMA measurement list, when the system (a root, or live) has one:
 * read and replayed (ktrust/imalist.h), PCR 10 against the TPM's PCR files,
 * the boot_aggregate against the event log's PCRs 0-9 (else the TPM's).
 * Not in the verdict. */
struct kt_audit_ima {
    bool found;                       /* a list is there */
    int rc;                           /* 0, or why it could not be read or parsed */
    char path[KT_AUDIT_PATH];
    char error[256];                  /* why not (rc < 0) */
    size_t entries, violations, signed_files, unsigned_files;
    size_t altered;                   /* entries whose data does not hash to their digest */
    int pcr10;                        /* -1 not checked (no TPM values), 0 matches, 1 differs */
    char banks[48];                   /* the banks compared ("sha1 sha256"), or the one that differs */
    int boot_aggregate;               /* enum kt_ima_ba_status (ktrust/imalist.h) */
};

struct kt_audit {
    char path[KT_AUDIT__PARTS][KT_AUDIT_PATH]; /* what was used or looked for */
    bool found[KT_AUDIT__PARTS];
    /* offline: another system's parts given one by one (efivars or ESP
     * without a root): nothing of this host is looked at, a part not given
     * is not looked for (its path "") */
    bool offline;
    char unanswered[256];             /* why the verdict cannot be answered ("" it can) */
    char release[256];                /* the kernel release audited ("" unknown) */
    int secure_boot, setup_mode;      /* 1, 0, or -1 (no variable) */
    bool mok_trusted;                 /* MokListTrustedRT exists */
    struct kt_audit_var vars[KT_AUDIT__VARS];   /* after the updates applied */
    struct kt_efivars_change applied[KT_AUDIT_MAX_APPLY]; /* one per opts.apply (owned) */
    size_t n_applied;
    /* SBAT: the variable in force and what shim would leave in it next boot */
    bool have_sbat_current, have_sbat_next;
    char sbat_current[24], sbat_next[24]; /* their date stamps ("" none) */
    char sbat_policy[16];             /* "latest", "automatic", "reset", "" none */
    char sbat_note[512];
    int boot_current;                 /* BootCurrent, or -1 */
    bool have_boot_order;
    struct kt_audit_boot boot[KT_AUDIT_MAX_BOOT];
    size_t n_boot;
    struct kt_audit_link links[KT_AUDIT__LINKS];
    size_t n_modules, n_modules_trusted;
    struct kt_audit_group *groups;
    size_t n_groups;
    struct kt_audit_outlook outlook[KT_AUDIT__LINKS];
    size_t n_outlook;
    size_t n_dbx_entries;             /* image hashes + certificates in the dbx updates */
    char latest_stamp[24];            /* the latest SbatLevel's date stamp */
    const char *error_file;           /* the dbx update kt_audit_run failed on, or NULL */
    int worst;                        /* the worst verdict (0..6) over the links and modules */
    struct kt_audit_pcr7 pcr7;        /* the measured-boot outlook */
    struct kt_rollover rollover;      /* the 2023 certificate rollover */
    /* TPM-sealed secrets: the tokens of /etc/crypttab's volumes (under the
     * root, or live; none when the parts are given one by one), with their
     * JSON (what --save-root keeps); with an event log, each checked today
     * (the log's replay) and at the next boot (the variables after any
     * --apply, the ESP: the prediction of pcr7).  Not in the verdict. */
    struct kt_seal_found sealed;
    struct kt_seal_check *sealed_check; /* one per sealed.tok (owned; NULL: not checked) */
    struct kt_audit_nvram nvram;      /* does it fit in NVRAM (src/audit/audit_nvram.c) */
    struct kt_audit_windows windows;  /* dual boot (src/audit/audit_windows.c) */
    struct kt_audit_ima ima;          /* the IMA measurement list (src/audit/audit_ima.c) */
    /* systemd-boot (#34, src/audit/audit_sdboot.c): the ESP's loader is
     * systemd-boot, shim's second stage or started by firmware itself
     * (EFI/systemd/systemd-bootx64.efi, EFI/BOOT/BOOTX64.EFI); the kernel
     * link is then the program of the entry it boots next (a UKI) */
    struct {
        bool found;
        bool no_shim;                 /* firmware starts it: db and dbx judge the UKI too */
        char entry[256];              /* the id of the entry that boots next ("" none) */
        const char *rule;             /* why (kt_sdboot_rule_name), NULL none */
        const char *kind;             /* "uki", "linux", "efi", NULL none */
        size_t n_entries, n_problems;
        /* the UKI that boots next (kt_sdboot_next_uki's rule): its signed
         * PCR 11 policy in the sha256 bank (kt_uki_pcrsig_check; have_pcrsig
         * false: no UKI boots next, or it could not be read) */
        bool have_pcrsig;
        struct kt_uki_pcrsig pcrsig;
        /* every bank its .pcrsig holds and every bank a sealed key with a
         * signed policy uses (kt_uki_pcrsig_check_banks; the stub and
         * systemd-cryptsetup take the token's bank's entries), and how
         * many such keys use each bank */
        struct kt_uki_pcrsig_banks pcrsig_banks;
        size_t pcrsig_sealed[KT_UKI_PCRSIG_BANKS];
        /* its add-ons (UAPI.5: NAME.efi.extra.d/, loader/addons/): how many,
         * how many the authority that judges the UKI refuses or that carry a
         * section an add-on may not (kt_sdboot_addon_check), those
         * sections' names; addons_loaded: the UKI's stub takes add-ons
         * (systemd 254+; 252's ignores them) */
        size_t n_addons, n_addons_refused;
        char addons_forbidden[256];
        bool addons_loaded;
    } sdboot;
    /* the audit's verdict (what its exit code says): the worst verdict
     * code (0 or a negative errno) of the links present, the module groups
     * and the updates asked for that did not apply, an input that cannot be
     * read worse than any verdict; -ENOENT when no part at all was found,
     * or no boot chain (no shim, loader or kernel: a->unanswered says so).
     * The outlook and the rollover do not change it. */
    int verdict;
};

/* Fill a->path / a->found / a->release from opts (defaults for the live
 * system, or under opts->root).  Never fails: a part not found is !found
 * with the place it was looked for in path. */
KT_API void kt_audit_locate(const struct kt_audit_opts *opts, struct kt_audit *a);

/* The whole audit (calls kt_audit_locate).  Returns 0, or -ENOMEM, or the
 * error of a dbx update that cannot be read or parsed (err names it); a
 * part that is missing or unreadable is recorded, not returned.  Free with
 * kt_audit_free. */
KT_API int kt_audit_run(const struct kt_audit_opts *opts, struct kt_audit *a, struct kt_error *err);
KT_API void kt_audit_free(struct kt_audit *a);

/* What kt_audit_save_root wrote. */
struct kt_audit_saved {
    size_t n_files;
    unsigned long long bytes;
    char not_saved[512];              /* a part present but not kept, and why ("" none) */
};

/* Can DIR receive a saved root: a new name in an existing directory, or an
 * empty directory?  0, or -ENOTEMPTY / -ENOTDIR / -ENOENT (its parent) with
 * a detail.  Checked before the audit, so nothing is run for nothing. */
KT_API int kt_audit_save_check(const char *dir, struct kt_error *err);

/* Copy what the audit a (run with opts) read into DIR, laid out as --root
 * reads it: sys/firmware/efi/efivars/ (every variable, efivarfs form: the
 * attribute word then the data), boot/efi/ (shim, loader, MokManager and
 * the boot entries' files, at their places on the ESP), boot/vmlinuz-RELEASE,
 * lib/modules/RELEASE/ (every module file at its place, no other file of
 * the tree: a signed module as what verifying it needs, its signature and
 * the digest of its signed content (ktrust(1), "SAVED ROOT"), a few KiB; an
 * unsigned or malformed one whole), sys/kernel/security/tpm0/
 * binary_bios_measurements (the TCG event log, when present and readable;
 * else out->not_saved says so), sys/kernel/security/ima/
 * binary_runtime_measurements (the IMA list the audit found) with the
 * TPM's PCR files sys/class/tpm/tpm0/pcr-ALG/N, and ktrust-saved-root.json (the hostname,
 * the time, the ktrust version, how modules are kept).
 * Written into a temporary directory beside DIR and renamed to DIR at the
 * end: on any error DIR is as it was and the temporary is removed.
 * Returns 0 or a negative errno with a detail. */
KT_API int kt_audit_save_root(const struct kt_audit *a, const struct kt_audit_opts *opts,
                              const char *dir, struct kt_audit_saved *out,
                              struct kt_error *err);
/* kt_audit_save_root with flags: KT_AUDIT_SAVE_FULL keeps every module
 * file whole. */
enum { KT_AUDIT_SAVE_FULL = 1u << 0 };
KT_API int kt_audit_save_root_ex(const struct kt_audit *a, const struct kt_audit_opts *opts,
                                 const char *dir, unsigned flags, struct kt_audit_saved *out,
                                 struct kt_error *err);

/* "efivars", "esp", "kernel", "modules"; "shim", "loader", "kernel", "mokmanager" */
KT_API const char *kt_audit_part_name(enum kt_audit_part p);
KT_API const char *kt_audit_link_name(int link);

#ifdef __cplusplus
}
#endif
#endif
