/* ktrust/chain.h - THE boot engine: secure boot simulated offline, from
 * the variables in force to the modules.
 *
 *   firmware: db vouches for shim (dbx revokes)
 *   shim: its .vendor_cert and MOK vouch for the loader and the kernel
 *         (its vendor dbx and MokListX revoke); SBAT as shim applies it
 *   kernel: its builtin keys (+ machine, with MokListTrustedRT) vouch for
 *           the modules
 *
 * kt_chain_run takes a variable state (ktrust/efivars.h), extra db/dbx/MOK
 * files, an SbatLevel and SbatPolicy, and the files of each link, and
 * returns every link's verdict with its reason.  "What if" (other
 * variables, another SbatLevel) is the same call with other inputs.
 */
#ifndef KTRUST_CHAIN_H
#define KTRUST_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/efivars.h"
#include "ktrust/error.h"
#include "ktrust/sbat.h"

#ifdef __cplusplus
extern "C" {
#endif

enum kt_chain_role { KT_LINK_DB = 0, KT_LINK_SHIM, KT_LINK_LOADER, KT_LINK_KERNEL, KT_LINK_MODULE };

/* What a db or dbx entry matched: the image's Authenticode hash, a
 * certificate of a signature's chain (or the one that issued it), or the
 * hash of a chain certificate's TBSCertificate; KT_REVOKE_SBAT is the
 * SbatLevel's (check-update). */
enum kt_revoke_by { KT_REVOKE_IMAGE_HASH, KT_REVOKE_CERT, KT_REVOKE_CERT_TBS, KT_REVOKE_SBAT };

/* One entry of a signature database (db, dbx, or a file given as one) that
 * decided a firmware verdict: which entry accepted an image, or which
 * denied it.  Identity: var + index (and owner + the entry's data). */
struct kt_chain_entry {
    char var[160];           /* "db", "dbx", or the file the entries came from ("" none) */
    size_t index;            /* 0-based entry index in it, over all its signature lists */
    uint8_t owner[16];       /* SignatureOwner GUID, in the variable's byte order */
    enum kt_revoke_by by;    /* what it matched */
    char alg[8];             /* "sha256" ... (image or TBS hash; "" for a certificate) */
    uint8_t value[64];       /* the matching hash; a certificate: SHA-1 of its DER (thumbprint) */
    size_t value_len;
    uint8_t data_sha256[32]; /* SHA-256 of the entry's data (the DER, or the hash) */
    int sig;                 /* the signature (0-based entry) it matched, -1 image hash */
    char subject[200];       /* certificates: the entry's subject */
    char description[320];   /* certificates: the entry's key description */
    char detail[400];        /* in words: "sha256 image hash 80b4...", "certificate CN=..." */
};

#define KT_CHAIN_MAX_DBX 8

struct kt_chain_link {
    enum kt_chain_role role;
    const char *file;        /* as given (not owned) */
    int verdict;             /* 0 / -errno */
    char reason[768];        /* one line for a person */
    char trusted_by[320];    /* description of the vouching key, or "" */
    char signer[320];        /* description of the signer certificate, or "" */
    int parent;              /* role of the link whose keys vouched, -1 for db */
    size_t keys_added;       /* keys this link contributed (shim: vendor + MOK; kernel: builtin) */
    /* firmware's verdict (the shim link, kt_chain_firmware): the db entry
     * that accepted the image (db.var "" none), and every dbx entry that
     * denies it (EDK2 IsAllowedByDb / IsForbiddenByDbx, see SECURITY.md) */
    struct kt_chain_entry db;
    struct kt_chain_entry dbx[KT_CHAIN_MAX_DBX];
    size_t n_dbx;            /* dbx entries that deny it (at most KT_CHAIN_MAX_DBX kept) */
};

KT_API const char *kt_chain_role_name(enum kt_chain_role r); /* "db", "shim", ... */

/* ---- the engine: one boot, from the variables in force to the modules ---- */

/* Whether MOK keys vouch for the kernel's own keyrings (machine) or for
 * boot images only (platform): the kernel checks that MokListTrustedRT
 * exists (uefi_check_trust_mok_keys); shim 16.x creates it unless the
 * owner's MokListTrusted says no. */
enum kt_mok_trust {
    KT_MOK_TRUST_VARS = 0, /* the variables decide; with none, not trusted */
    KT_MOK_TRUST_AUTO,     /* as shim 16.x: the variables decide; with none (opts.vars
                            * NULL) trusted, MokListTrustedRT assumed (report.mok_assumed) */
    KT_MOK_TRUST_YES,      /* trusted whatever the variables say */
};

struct kt_chain_opts {
    /* the variables in force (db, dbx, MokListRT, MokListXRT, MokListTrustedRT,
     * SbatLevelRT/SbatLevel, SbatPolicy, SecureBoot), or NULL */
    const struct kt_efivars *vars;
    /* a variable that cannot be read or added, or an SbatLevel that does
     * not parse, is an error; otherwise it is recorded in the report */
    bool strict_vars;
    /* files added after the variables: certificates or signature lists */
    const char *const *db, *const *dbx, *const *mok;
    size_t n_db, n_dbx, n_mok;
    enum kt_mok_trust mok_trust;             /* does MokListTrustedRT exist (MOK keys join machine)? */
    bool sbat;                               /* apply SBAT as shim does */
    const struct kt_sbat_level *sbat_level;  /* the SbatLevel before boot; NULL: the variables' */
    enum kt_sbat_policy sbat_policy;         /* DEFAULT: the variables' SbatPolicy */
    const char *shim, *loader, *kernel;      /* NULL: not there (the link is not run) */
    /* no shim: firmware starts the loader itself (systemd-boot with its own
     * key in db, sbctl style; shim NULL) and the loader loads the kernel (a
     * UKI) through firmware's LoadImage: both judged by db and dbx as
     * firmware walks them, no vendor certificate, no MOK, no SBAT */
    bool firmware_only;
    const char *const *modules;              /* verified against the kernel's keys */
    size_t n_modules;
    /* a module may be a saved one (`audit --save-root`'s compact form: its
     * signature and the digest of its signed content): a root audit saved */
    bool saved_modules;
    /* each module's link (l->file is modules[i]); a negative return stops the run */
    int (*on_module)(void *ctx, size_t i, const struct kt_chain_link *l);
    /* before each module (done of total), and once at the end; may be NULL */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *ctx;
    /* a directory caching kernel images' builtin keys (DIR/kernel-keys/,
     * one entry per image under the SHA-256 of its bytes; used only when it
     * is this user's alone, mode 0700), or NULL: the kernel's list is decoded
     * on every run.  The cache never decides a verdict: a hit gives the same
     * certificates the decode would, added the same way. */
    const char *kernel_cache;
};

enum { KT_CHAIN_AT_SHIM = 0, KT_CHAIN_AT_LOADER, KT_CHAIN_AT_KERNEL, KT_CHAIN__BOOT };

struct kt_chain_report {
    struct kt_chain_link link[KT_CHAIN__BOOT]; /* shim, loader, kernel */
    bool present[KT_CHAIN__BOOT];              /* the link's file was given */
    char sbat[KT_CHAIN__BOOT][256];            /* each link's SBAT line ("" none) */
    bool sbat_on;                              /* opts.sbat */
    bool secure;                               /* SecureBoot (on unless the variable says 0) */
    char sbat_policy[16];                      /* the SbatPolicy variable: "latest", ... "" none */
    bool have_sbat_current, have_sbat_applied;
    char sbat_current[24];                     /* the SbatLevel before boot: its date stamp */
    char sbat_applied[24];                     /* what shim leaves in it: its date stamp */
    char sbat_note[512];                       /* what shim did with it, in words */
    int sbat_rc;                               /* the level could not be worked out: why */
    struct kt_error sbat_error;
    bool mok_trusted;                          /* MOK keys went to machine */
    bool mok_assumed;                          /* ... because no variables said (KT_MOK_TRUST_AUTO) */
    bool ignore_db;                            /* MokIgnoreDB: shim and the kernel left db out */
    size_t vars_loaded;                        /* variables given to the chain */
    struct kt_error var_error[KT_EFIVAR__COUNT]; /* a variable left out (code != 0) and why */
    size_t n_modules, n_modules_trusted;
    int worst;                                 /* the worst verdict (0..6) of links and modules */
    const char *error_file;                    /* the input kt_chain_run failed on, or NULL */
};

/* Run the chain.  Returns 0 (the verdicts are in *r), or the error of an
 * input that stops it (a db/dbx/MOK file that cannot be read or added; a
 * variable, with strict_vars; -ENOMEM) with err set and r->error_file
 * naming the input.  Free r with kt_chain_report_free in either case. */
KT_API int kt_chain_run(const struct kt_chain_opts *o, struct kt_chain_report *r, struct kt_error *err);
KT_API void kt_chain_report_free(struct kt_chain_report *r);

/* Are files (shim, loader, kernel, modules...) in that order?  Returns 0,
 * or 1 with *at the first file out of place and *why what it is ("is a
 * kernel module", ...). */
KT_API int kt_chain_check_order(const char *const *files, size_t n, size_t *at, const char **why);
/* Is the file at path systemd-boot (its .sdmagic says "systemd-boot"), a
 * loader firmware may start without shim (kt_chain_opts.firmware_only)? */
KT_API bool kt_chain_is_systemd_boot(const char *path);

/* ---- which program firmware starts from the ESP --------------------- */

enum kt_boot_by {
    KT_BOOT_BY_NEXT = 0,   /* BootNext's Boot#### (the next boot only) */
    KT_BOOT_BY_ORDER,      /* the first active Boot#### of BootOrder whose file is on the ESP */
    KT_BOOT_BY_REMOVABLE,  /* none of them: the removable-media path \EFI\BOOT\BOOTX64.EFI */
};

struct kt_boot_first {
    enum kt_boot_by by;
    int number;            /* the Boot#### (0..0xffff), -1 for the removable path */
    char file[512];        /* the load option's file, '/'-separated ("/EFI/BOOT/BOOTX64.EFI") */
    char path[4160];       /* the ESP then its real path (case-blind, never leaving the ESP) */
};

/* The program firmware starts from the ESP at esp under the variables vars
 * (NULL: none): BootNext's load option when its file is on the ESP, else
 * the first active load option of BootOrder whose file is on the ESP (an
 * option naming no file, or a file not there, is one firmware would try
 * elsewhere or skip), else \EFI\BOOT\BOOTX64.EFI.  THE lookup of the
 * first stage for check-update (shim or systemd-boot).  0 (*out filled),
 * -ENOENT when none is there. */
KT_API int kt_boot_first_stage(const char *esp, const struct kt_efivars *vars,
                               struct kt_boot_first *out);
KT_API const char *kt_boot_by_name(enum kt_boot_by by); /* "bootnext", "bootorder", "removable" */

/* Firmware's verdict on one image: db vouches for it, dbx does not revoke
 * it (vars may be NULL: an empty db).  Returns l->verdict. */
KT_API int kt_chain_firmware(const struct kt_efivars *vars, const char *path, struct kt_chain_link *l);

/* Would systemd-boot start the UKI at path under the variables of a
 * snapshot: the firmware's db/dbx verdict, or, when shim started
 * systemd-boot (kt_chain_uki_via_shim: SbatLevelRT or MokListRT present),
 * shim_lock's (db and MokListRT vouch, dbx and MokListXRT revoke, .sbat
 * against the SbatLevel in force).  The verdict and its reason in *l;
 * returns 0, or the error of a file that cannot be read or parsed (err). */
KT_API int kt_chain_uki(const struct kt_efivars *vars, const char *path, struct kt_chain_link *l,
                        struct kt_error *err);
KT_API bool kt_chain_uki_via_shim(const struct kt_efivars *vars);
/* Can kt_chain_uki answer under vars: db, dbx, MokListRT, MokListXRT read
 * and parse, and the SbatLevel shim would hold the UKI against?  0, or the
 * error naming the variable (never a verdict without it). */
KT_API int kt_chain_uki_vars_check(const struct kt_efivars *vars, struct kt_error *err);

/* ---- each signature of an image under firmware's db and dbx ---- */

#define KT_CHAIN_SIG_CHAIN 4
#define KT_CHAIN_MAX_SIGS 8

/* One top-level signature (WIN_CERTIFICATE entry) and firmware's verdict on
 * it alone: which db entry accepts it, or why none does. */
struct kt_chain_sig {
    int index;                 /* 0-based entry */
    int verdict;               /* 0 accepted; -ENOKEY no db entry; -EKEYREJECTED dbx; ... */
    char signer[320];          /* the signer certificate's description ("" none) */
    char ca[320];              /* the top certificate of its chain: the CA it reaches ("" none) */
    char accepted_by[320];     /* the db entry that accepts it ("" none) */
    char why[256];             /* why it is not accepted, in words ("" accepted) */
    uint8_t chain_sha256[KT_CHAIN_SIG_CHAIN][32]; /* SHA-256 of its chain's certificates, signer first */
    size_t chain_len;
};

/* Firmware's verdict on each top-level signature of the image at path,
 * under the db and dbx of vars (NULL: empty).  Fills at most cap entries
 * of sigs and sets *n to the number of signatures.  Returns the image's
 * verdict (0, -ENODATA unsigned, -ENOKEY, -EKEYREJECTED), or the error of
 * a file that cannot be read (-ENOENT ...) or parsed (-EBADMSG, -ELIBBAD)
 * with err set. */
KT_API int kt_chain_firmware_sigs(const struct kt_efivars *vars, const char *path,
                                  struct kt_chain_sig *sigs, size_t cap, size_t *n,
                                  struct kt_error *err);

/* ---- would new boot binaries boot here? (check-update --install) ---- */

enum kt_install_why {
    KT_INSTALL_BOOTS = 0,  /* they boot */
    KT_INSTALL_NO_DB,      /* no db entry accepts any signature of the new shim */
    KT_INSTALL_DBX,        /* dbx revokes the new shim */
    KT_INSTALL_SBAT,       /* SBAT: the level in force, or the one the new shim applies */
    KT_INSTALL_SHIM_KEYS,  /* no key shim trusts (vendor certificate, MOK, db) vouches for a loader,
                            * or shim's vendor dbx / MokListX revokes it */
};

struct kt_install_check {
    int verdict;                 /* 0 they boot; else the verdict of the link that stops the boot */
    enum kt_install_why why;
    const char *file;            /* the binary that does not boot (not owned), or NULL */
    char reason[1024];           /* one line for a person */
    struct kt_chain_sig sigs[KT_CHAIN_MAX_SIGS]; /* the new shim's signatures under db/dbx */
    size_t n_sigs;
    bool have_sbat_current, have_sbat_applied;
    char sbat_current[24];       /* the SbatLevel in force (date stamp) */
    char sbat_applied[24];       /* the one the new shim would leave */
    char sbat_note[512];
    size_t n_loaders;            /* loaders checked */
    char found[4200];            /* kt_chain_install_uki: the ESP's binary that stops
                                  * the boot (file points here) */
};

/* Would this machine (the variables vars: db, dbx, MOK, SbatLevel,
 * SbatPolicy, SecureBoot) boot shim, and each of loaders behind it, in place
 * of the binaries it boots today?  Runs the boot engine once per loader (or
 * once with the shim alone).  Returns 0 with the answer in *r, or the error
 * of a binary that cannot be read or parsed (err set, r->file naming it). */
KT_API int kt_chain_install_check(const struct kt_efivars *vars, const char *shim,
                                  const char *const *loaders, size_t n_loaders,
                                  struct kt_install_check *r, struct kt_error *err);
/* A new UKI alone, for the ESP at esp whose systemd-boot (and the shim
 * that starts it, when EFI/BOOT/BOOTX64.EFI is shim and EFI/BOOT/grubx64.efi
 * systemd-boot) stay: would they boot uki?  Without shim, the ESP's
 * systemd-boot with uki behind it (kt_chain_install_check: firmware's db and
 * dbx on both); with it, shim and systemd-boot, then uki under shim's
 * protocol.  The systemd-boot judged into sdboot (cap bytes; "" none).
 * Returns 0 with the answer in *r; -ENOENT (err) when the ESP has no
 * systemd-boot; or the error of a binary that cannot be read (r->file). */
KT_API int kt_chain_install_uki(const struct kt_efivars *vars, const char *esp, const char *uki,
                                struct kt_install_check *r, char *sdboot, size_t cap,
                                struct kt_error *err);
KT_API const char *kt_install_why_name(enum kt_install_why w); /* "boots", "no_db", "dbx", "sbat", "shim_keys" */

#ifdef __cplusplus
}
#endif
#endif
