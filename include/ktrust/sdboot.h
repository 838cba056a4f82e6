/* ktrust/sdboot.h - systemd-boot on an ESP, read as systemd 252's
 * systemd-boot (Debian 12's systemd-boot-efi) reads it: loader/loader.conf,
 * the Type #1 entries of loader/entries/NAME.conf, the Type #2 UKIs of
 * EFI/Linux/NAME.efi, the LoaderEntryDefault / LoaderEntryOneShot /
 * LoaderEntryLastBooted variables, and which entry boots next; and the
 * add-ons (X.addon.efi, UAPI.5) a UKI would take.
 *
 *   kt_sdboot_open()        the ESP's entries in systemd-boot's menu order
 *   kt_sdboot_next()        the entry that boots next, and by which rule
 *   kt_sdboot_problem_at()  a line systemd-boot ignores or an entry it drops
 *   kt_sdboot_addon_check() the sections of an add-on
 *
 * Nothing is verified here: an entry's image is a file on the ESP that
 * kt_verify_buf (ktrust/verify.h) or the boot engine (ktrust/chain.h)
 * judges.  Paths never leave the ESP (each looked up as firmware's FAT
 * driver would, case-blind; "." and ".." and links leaving the ESP refused).
 */
#ifndef KTRUST_SDBOOT_H
#define KTRUST_SDBOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kt_ctx;
struct kt_efivars;
struct kt_policy;
struct kt_uki;

enum kt_sdboot_kind {
    KT_SDBOOT_LINUX = 0, /* Type #1 with linux=: an EFI-stub kernel, initrd= and options= */
    KT_SDBOOT_EFI,       /* Type #1 with efi=: any EFI program */
    KT_SDBOOT_UKI,       /* Type #2: EFI/Linux/NAME.efi, a UKI with .osrel */
};

#define KT_SDBOOT_TEXT 256
#define KT_SDBOOT_PATH 4160

/* One entry of systemd-boot's menu. */
struct kt_sdboot_entry {
    enum kt_sdboot_kind kind;
    char id[KT_SDBOOT_TEXT];       /* the file name, lower case ("debian-6.1.conf", "arch.efi") */
    char source[KT_SDBOOT_PATH];   /* the file it comes from, under the ESP ("/loader/entries/x.conf") */
    char title[KT_SDBOOT_TEXT];    /* title=, or .osrel's PRETTY_NAME/IMAGE_ID/NAME/ID */
    char version[KT_SDBOOT_TEXT];  /* version=, or IMAGE_VERSION/VERSION/VERSION_ID/BUILD_ID */
    char sort_key[KT_SDBOOT_TEXT]; /* sort-key=, or IMAGE_ID/ID ("" none) */
    char machine_id[KT_SDBOOT_TEXT];
    char image[KT_SDBOOT_PATH];    /* the program it starts, as written ("/EFI/Linux/x.efi") */
    char resolved[KT_SDBOOT_PATH]; /* the ESP then its real path, when image_rc is 0 */
    int image_rc;                  /* 0, or why the path cannot be followed (-EXDEV: it leaves
                                    * the ESP or has "."/".."; -ELOOP ...): never judged */
    char options[1024];            /* options= joined by spaces, or the UKI's .cmdline */
    char initrd[1024];             /* initrd= paths joined by spaces */
    char devicetree[KT_SDBOOT_TEXT];
    int tries_left, tries_done;    /* boot counting (+LEFT-DONE in the name), -1 none */
    size_t n_addons;               /* add-ons for this UKI (kt_sdboot_addon_at) */
};

/* How the entry that boots next was chosen (systemd 252's
 * config_default_entry_select, in that order). */
enum kt_sdboot_rule {
    KT_SDBOOT_BY_ONESHOT = 0, /* LoaderEntryOneShot (consumed by that boot) */
    KT_SDBOOT_BY_EFIVAR,      /* LoaderEntryDefault */
    KT_SDBOOT_BY_SAVED,       /* "@saved": LoaderEntryLastBooted */
    KT_SDBOOT_BY_CONFIG,      /* loader.conf's default (a glob) */
    KT_SDBOOT_BY_FIRST,       /* nothing matched: the first entry of the sorted menu */
    KT_SDBOOT_BY_NONE,        /* no entry at all: systemd-boot shows an empty menu */
    KT_SDBOOT_BY_UNKNOWN,     /* a glob it must match (LoaderEntryOneShot, ...Default,
                               * ...LastBooted for @saved, loader.conf's default) is
                               * longer than ktrust keeps: not answered (index -1) */
    /* kt_sdboot_pick_uki's own (never kt_sdboot_next's): */
    KT_SDBOOT_BY_GIVEN,       /* the caller named the UKI */
    KT_SDBOOT_BY_ONLY,        /* no systemd-boot: the one .efi of EFI/Linux */
};

/* A line systemd-boot ignores, an entry it drops, a path ktrust refuses. */
struct kt_sdboot_problem {
    char file[KT_SDBOOT_PATH]; /* under the ESP ("/loader/loader.conf") */
    unsigned line;             /* 1-based, 0 the whole file */
    char reason[256];
};

/* An add-on a UKI would take (UAPI.5: EFI/Linux/NAME.efi.extra.d/X.addon.efi
 * for that UKI, loader/addons/X.addon.efi for all). */
struct kt_sdboot_addon {
    char path[KT_SDBOOT_PATH];     /* under the ESP */
    char resolved[KT_SDBOOT_PATH]; /* the ESP then its real path */
    bool global;                   /* from loader/addons/ */
};

struct kt_sdboot;

/* Read systemd-boot's configuration on the ESP at esp, with the Loader*
 * variables of vars (NULL: none set).  Entries whose program is missing,
 * with neither linux= nor efi=, for another architecture, or (Type #2)
 * without a usable .osrel are left out, as systemd-boot leaves them out,
 * and each is a problem.  *out (kt_sdboot_free).  Errors: -ENOENT (no
 * loader/ nor EFI/Linux/ on it), -ENOMEM. */
KT_API int kt_sdboot_open(const char *esp, const struct kt_efivars *vars, struct kt_sdboot **out,
                          struct kt_error *err);
KT_API void kt_sdboot_free(struct kt_sdboot *s);

/* The entries in systemd-boot's menu order (sort-key, machine-id, version
 * downwards, then the id downwards; no tries left last). */
KT_API size_t kt_sdboot_count(const struct kt_sdboot *s);
KT_API const struct kt_sdboot_entry *kt_sdboot_entry_at(const struct kt_sdboot *s, size_t i);

/* The index of the entry that boots next and why (*rule); -1 with
 * KT_SDBOOT_BY_NONE when there is none, -1 with KT_SDBOOT_BY_UNKNOWN when
 * ktrust cannot tell (a glob it consults was cut to ktrust's size).  With one_shot false: the boot
 * after, when LoaderEntryOneShot is gone. */
KT_API long kt_sdboot_next(const struct kt_sdboot *s, bool one_shot, enum kt_sdboot_rule *rule);
KT_API const char *kt_sdboot_rule_name(enum kt_sdboot_rule r); /* "oneshot", "efivar", ... */
KT_API const char *kt_sdboot_kind_name(enum kt_sdboot_kind k); /* "linux", "efi", "uki" */

/* loader.conf's setting of key ("default", "timeout", ...) as systemd-boot
 * kept it (the last valid line), or NULL; a Loader* variable's value ("" set
 * but empty, NULL absent). */
KT_API const char *kt_sdboot_setting(const struct kt_sdboot *s, const char *key);
KT_API const char *kt_sdboot_variable(const struct kt_sdboot *s, const char *name);

KT_API size_t kt_sdboot_problem_count(const struct kt_sdboot *s);
KT_API const struct kt_sdboot_problem *kt_sdboot_problem_at(const struct kt_sdboot *s, size_t i);

/* The k-th add-on of entry i (global ones after the UKI's own), or NULL. */
KT_API const struct kt_sdboot_addon *kt_sdboot_addon_at(const struct kt_sdboot *s, size_t i,
                                                        size_t k);

/* The verdict on entry i's program under pol (ktrust/verify.h), as
 * kt_verify_buf gives it for the file; a UKI's is the worse of it and the
 * stub's refusal (kt_uki_verdict).  An entry whose path ktrust does not
 * follow (image_rc): -EBADMSG, never trusted.  0 or a negative errno, err
 * says why. */
KT_API int kt_sdboot_entry_verify(const struct kt_ctx *ctx, const struct kt_sdboot *s, size_t i,
                                  const struct kt_policy *pol, struct kt_error *err);
/* An add-on's verdict: its Authenticode verdict, the worse of it and
 * -EKEYREJECTED when it carries a section kt_sdboot_addon_check forbids
 * (their names into forbidden, cap bytes, may be NULL). */
KT_API int kt_sdboot_addon_verify(const struct kt_ctx *ctx, const char *path,
                                  const struct kt_policy *pol, char *forbidden, size_t cap,
                                  struct kt_error *err);

/* ---- the UKI that boots next (one rule for every command) ------------- */

/* Is systemd-boot on the ESP: loader/loader.conf, or a systemd-boot
 * (.sdmagic) at EFI/systemd/systemd-bootx64.efi, EFI/BOOT/BOOTX64.EFI or
 * EFI/BOOT/grubx64.efi (shim's second stage)? */
KT_API bool kt_sdboot_on_esp(const char *esp);

struct kt_sdboot_next_uki {
    char path[KT_SDBOOT_PATH];    /* the UKI: the ESP then its real path (given: as given) */
    char image[KT_SDBOOT_PATH];   /* its path on the ESP, as the entry names it
                                   * ("/EFI/Linux/x.efi"); "" for a given UKI
                                   * that is not on the ESP */
    char entry[KT_SDBOOT_TEXT];   /* the entry's id ("" for given and only) */
    bool type1;                   /* a Type #1 entry: options are its options= */
    char options[1024];           /* the load options systemd-boot passes and
                                   * measures (PCR 12); a Type #2 entry: "" (the
                                   * UKI's own .cmdline) */
    enum kt_sdboot_rule rule;     /* why this entry */
};

/* The UKI systemd-boot on esp boots next, with the Loader* variables of
 * vars (NULL: none set): 1 (*out filled), 0 when systemd-boot is not on
 * the ESP (kt_sdboot_on_esp), or a negative errno with err saying why:
 * -ENOENT (no entry, or the next entry starts no UKI), -EXDEV (its path
 * leaves the ESP), -E2BIG, -ENOMEM. */
KT_API int kt_sdboot_next_uki(const char *esp, const struct kt_efivars *vars,
                              struct kt_sdboot_next_uki *out, struct kt_error *err);

/* THE choice of the UKI a prediction or a signed policy is judged by, for
 * every command: given (non-NULL) when the caller names one (rule
 * KT_SDBOOT_BY_GIVEN); else the UKI of systemd-boot's next entry
 * (kt_sdboot_next_uki, its rule); else, with only, the one .efi of the
 * ESP's EFI/Linux (KT_SDBOOT_BY_ONLY; kt_sdboot_only_uki).  1 (*out
 * filled), 0 when none (out->rule KT_SDBOOT_BY_NONE), or
 * kt_sdboot_next_uki's error. */
KT_API int kt_sdboot_pick_uki(const char *esp, const struct kt_efivars *vars, const char *given,
                              bool only, struct kt_sdboot_next_uki *out, struct kt_error *err);
/* The one .efi file in the ESP's EFI/Linux (Type #2) into path (cap bytes):
 * 0, -ENOENT (none), -E2BIG (several: which one boots is a boot loader's
 * choice). */
KT_API int kt_sdboot_only_uki(const char *esp, char *path, size_t cap);

/* ---- parsing one file (what kt_sdboot_open does per file; the fuzz target) */

/* Parse a Type #1 entry's text (name: its file name) into *e; each line
 * systemd-boot ignores becomes a problem through add(ctx, line, reason).
 * Returns 1 when systemd-boot keeps the entry (a linux= or efi= for this
 * architecture), 0 when it drops it (*why says why). */
typedef void (*kt_sdboot_problem_fn)(void *ctx, unsigned line, const char *reason);
KT_API int kt_sdboot_entry_parse(const char *text, size_t len, const char *name,
                                 struct kt_sdboot_entry *e, kt_sdboot_problem_fn add, void *ctx,
                                 char *why, size_t cap);

/* ---- add-ons ---------------------------------------------------------- */

/* An add-on's sections against UAPI.5: only .cmdline and .dtb (and the add-on
 * stub's own code and data) may be there; any other UKI section, .linux and
 * .initrd above all, is forbidden.  Returns the number of forbidden
 * sections, their names space-separated into names (may be NULL). */
KT_API size_t kt_sdboot_addon_check(const struct kt_uki *u, char *names, size_t cap);
/* Does the stub that would boot (its .sdmagic version) load add-ons?
 * systemd-stub takes them from v254 on; 252 ignores them. */
KT_API bool kt_sdboot_stub_loads_addons(const struct kt_uki *u);

#ifdef __cplusplus
}
#endif

#endif
