/* efivars.h - what an efivars directory tells the chain, read one way for
 * `chain --efivars` and `audit`: the variables fed to the chain, one-byte
 * switches (SecureBoot, SetupMode), the SbatLevel shim left. */
#ifndef KT_AUDIT_EFIVARS_H
#define KT_AUDIT_EFIVARS_H

#include <stddef.h>
#include <stdint.h>

#include "chain/chain.h"
#include "sbat/sbat.h"

/* db, dbx, MokListRT (MOK) and MokListXRT (shim's MOK deny list: a
 * blacklist), in that order, with the chain call each goes to. */
struct kt_efivar_feed {
    const char *name;
    int (*add)(struct kt_chain *ch, const uint8_t *buf, size_t len, const char *source,
               struct kt_error *err);
};
#define KT_EFIVAR_FEEDS 4
extern const struct kt_efivar_feed kt_efivar_feeds[KT_EFIVAR_FEEDS];

/* The first data byte of a one-byte variable NAME-<GUID> in dir (after the
 * attribute word): 1 (non-zero), 0, or -1 (absent, unreadable or short). */
int kt_efivar_byte(const char *dir, const char *name);

/* SbatLevelRT (else SbatLevel) of dir into *out (source "variable").
 * Returns 1 when read, 0 when neither exists, or -errno (unreadable or
 * malformed) with err set and path (cap bytes) naming the file. */
int kt_efivar_sbat_level(const char *dir, struct kt_sbat_level *out, char *path, size_t cap,
                         struct kt_error *err);

#endif
