/* chain_sbat.h - the CLI side of SBAT and --efivars in `chain` (kept apart
 * from cmd_chain.c so that the chain command stays small). */
#ifndef KT_CLI_CHAIN_SBAT_H
#define KT_CLI_CHAIN_SBAT_H

#include <stdbool.h>

#include "chain/chain.h"
#include "chain/chain_sbat.h"

struct chain_sb {
    bool on;                       /* --efivars, --sbat-level or --sbat-policy given */
    enum kt_sbat_policy policy;
    bool secure;                   /* SecureBoot (efivars), default on */
    struct kt_sbat_level current;  /* the SbatLevel variable, if any */
    bool have_current;
    struct kt_sbat_level applied;  /* what shim leaves in SbatLevel */
    bool have_applied;
    char note[512];
    char (*text)[256];             /* per link */
    size_t n;
    size_t efivars_loaded;
};

/* --efivars DIR: db and dbx (and MokListXRT) into the chain, MokListRT as
 * MOK, SbatLevelRT (or SbatLevel) as the current level, SecureBoot.  Files
 * are found by their efivarfs names NAME-GUID.  Returns 0 or an exit code
 * (the error printed). */
int chain_efivars_load(struct kt_chain *ch, const char *dir, struct chain_sb *sb);

/* After the links ran: compute the level from the shim, check shim (self),
 * the loader (.sbat required) and the kernel (not required).  A refused
 * shim or loader stops what it would have loaded.  links[0..2] are shim,
 * loader, kernel.  Returns 0 or an exit code. */
int chain_sbat_apply(struct chain_sb *sb, struct kt_chain_link *links, size_t n,
                     const char *const *paths);
void chain_sb_free(struct chain_sb *sb);

#endif
