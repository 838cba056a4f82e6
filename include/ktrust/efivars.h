/* ktrust/efivars.h - the firmware variables in force: the one reader of an
 * efivarfs directory (NAME-GUID files, each a 4-byte attribute word then
 * the data).  Each variable is present, absent or unreadable; its bytes are
 * an owned copy, so a caller may change a state and ask the boot engine
 * (ktrust/chain.h) "what if the variables were different?".
 *
 * Variable files are matched by name and a 36-character GUID, whatever the
 * GUID (the first match in directory order).
 */
#ifndef KTRUST_EFIVARS_H
#define KTRUST_EFIVARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kt_sbat_level;

enum kt_efivar_id {
    KT_EFIVAR_PK = 0,
    KT_EFIVAR_KEK,
    KT_EFIVAR_DB,
    KT_EFIVAR_DBX,
    KT_EFIVAR_DBT,
    KT_EFIVAR_DBR,
    KT_EFIVAR_PK_DEFAULT,
    KT_EFIVAR_KEK_DEFAULT,
    KT_EFIVAR_DB_DEFAULT,
    KT_EFIVAR_DBX_DEFAULT,
    KT_EFIVAR_MOKLIST,         /* MokListRT */
    KT_EFIVAR_MOKLISTX,        /* MokListXRT */
    KT_EFIVAR_MOKLIST_TRUSTED, /* MokListTrustedRT */
    KT_EFIVAR_MOK_IGNORE_DB,   /* MokIgnoreDB */
    KT_EFIVAR_MOK_SBSTATE,     /* MokSBStateRT */
    KT_EFIVAR_SBAT_LEVEL_RT,   /* SbatLevelRT */
    KT_EFIVAR_SBAT_LEVEL,      /* SbatLevel */
    KT_EFIVAR_SBAT_POLICY,     /* SbatPolicy */
    KT_EFIVAR_SECURE_BOOT,
    KT_EFIVAR_SETUP_MODE,
    KT_EFIVAR_BOOT_ORDER,
    KT_EFIVAR_BOOT_CURRENT,
    KT_EFIVAR_LOADER_ENTRY_DEFAULT,  /* systemd-boot's LoaderEntryDefault */
    KT_EFIVAR_LOADER_ENTRY_ONESHOT,  /* LoaderEntryOneShot */
    KT_EFIVAR_LOADER_ENTRY_LAST,     /* LoaderEntryLastBooted */
    KT_EFIVAR_BOOT_NEXT,             /* BootNext: the Boot#### of the next boot only */
    KT_EFIVAR__COUNT
};

enum kt_efivar_state { KT_EFIVAR_ABSENT = 0, KT_EFIVAR_PRESENT, KT_EFIVAR_UNREADABLE };

#define KT_EFIVARS_PATH 4160

/* One variable as its efivarfs file holds it. */
struct kt_efivar {
    enum kt_efivar_state state;
    char path[KT_EFIVARS_PATH]; /* the file ("" when absent) */
    uint8_t *raw;               /* owned: the whole file, attribute word first */
    size_t raw_len;
    struct kt_error error;      /* why it is unreadable */
};

/* A Boot#### variable. */
struct kt_efivar_boot {
    unsigned number;
    struct kt_efivar var;
};

struct kt_efivars {
    char dir[KT_EFIVARS_PATH];  /* where they were read ("" none) */
    struct kt_efivar var[KT_EFIVAR__COUNT];
    struct kt_efivar_boot *boot; /* every Boot#### file, in directory order (owned) */
    size_t n_boot;
};

/* A deep copy of s into *out (for a "what if" on a copy).  0 or -ENOMEM
 * (*out then empty). */
KT_API int kt_efivars_copy(const struct kt_efivars *s, struct kt_efivars *out);

/* The efivarfs name of a variable ("db", "MokListRT", ...). */
KT_API const char *kt_efivar_name(enum kt_efivar_id id);

/* Read every known variable of dir into *s (zeroed first).  A variable
 * that cannot be read is recorded as unreadable, not returned.  Returns 0,
 * -ENOMEM, or the error of a directory that cannot be opened (-ENOENT,
 * -ENOTDIR, -EACCES; err names it).  Free with kt_efivars_free. */
KT_API int kt_efivars_read(const char *dir, struct kt_efivars *s, struct kt_error *err);
KT_API void kt_efivars_free(struct kt_efivars *s);

/* The variable's data after the attribute word (len 0 for an attribute
 * word alone); NULL when not present. */
KT_API const uint8_t *kt_efivar_data(const struct kt_efivar *v, size_t *len);

/* The first data byte of a one-byte variable: 1 (non-zero), 0, or -1
 * (absent, unreadable or empty). */
KT_API int kt_efivars_byte(const struct kt_efivars *s, enum kt_efivar_id id);

/* The SbatLevel in force: SbatLevelRT, else SbatLevel, into *out (source
 * "variable").  Returns 1 when read, 0 when neither is present, or the
 * parse error (err set; *which names the variable that failed). */
KT_API int kt_efivars_sbat_level(const struct kt_efivars *s, struct kt_sbat_level *out,
                          const struct kt_efivar **which, struct kt_error *err);

/* The Boot#### variable, or NULL. */
KT_API const struct kt_efivar *kt_efivars_boot(const struct kt_efivars *s, unsigned number);


/* ---- applying a signed update ("what if this update were installed") ---- */

/* What kt_efivars_apply did with one EFI_VARIABLE_AUTHENTICATION_2 file. */
struct kt_efivars_change {
    int verdict;               /* 0 applied; else why not (state unchanged):
                                  -ENOKEY no PK/KEK certificate vouches,
                                  -EKEYREJECTED the signature covers no
                                  secure-boot variable, -EBADMSG malformed,
                                  -ENOPKG an algorithm firmware refuses */
    struct kt_error error;     /* the reason when not applied */
    enum kt_efivar_id target;  /* the variable the signature covers
                                  (KT_EFIVAR__COUNT: none) */
    bool append;               /* an append write (else a replace) */
    bool setup_mode;           /* written without an authority: no PK
                                  (setup mode; firmware checks only the
                                  format; a PK must sign itself) */
    char authority[512];       /* the PK/KEK certificate that vouched ("") */
    const char *accepted_from; /* not applied by the firmware modelled (EDK2
                                  2022.11, Debian 12's OVMF) but by this EDK2
                                  release on ("edk2-stable202302"), or NULL */
    size_t n_present;          /* append: entries already there, dropped as
                                  firmware drops them */
    char **gained, **lost;     /* one line per entry ("X509 CN=...",
                                  "sha256 <hex>"), owned */
    size_t n_gained, n_lost;
};

/* Apply one signed update (the whole file's bytes) to *s as firmware's
 * SetVariable would (EDK2 AuthService.c): the target is the variable whose
 * name the signature covers (PK, KEK, db, dbx, dbt, dbr are tried); PK and
 * KEK writes need the PK, db/dbx/dbt/dbr writes the PK or a KEK
 * (ktrust/verify.h's rules for signed updates); in setup mode KEK and db-type
 * writes need no authority and a PK write must be signed by the PK it
 * enrolls.  An append write adds the entries the variable lacks; a replace
 * write replaces the data (an empty payload deletes the variable).  Stored
 * time stamps are not in efivarfs, so a replace's "newer than the stored
 * time" rule is not checked.  Returns 0 when applied, the reason's code when
 * not (the state is then unchanged), -ENOMEM.  *c is filled in every case;
 * free it with kt_efivars_change_free. */
KT_API int kt_efivars_apply(struct kt_efivars *s, const uint8_t *buf, size_t len,
                            struct kt_efivars_change *c);
KT_API void kt_efivars_change_free(struct kt_efivars_change *c);

/* kt_efivars_apply on a file's contents; a file that cannot be read is
 * c->verdict (-ENOENT, -EACCES, ...), c->error naming why. */
KT_API int kt_efivars_apply_file(struct kt_efivars *s, const char *path,
                                 struct kt_efivars_change *c);

/* Write every present variable of s into dir (which must exist) as
 * efivarfs files NAME-GUID: what kt_efivars_read reads back.  Returns 0 or
 * the first write error (err names the file). */
KT_API int kt_efivars_write(const struct kt_efivars *s, const char *dir, struct kt_error *err);

#ifdef __cplusplus
}
#endif
#endif
