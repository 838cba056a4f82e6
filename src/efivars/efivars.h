/* efivars.h - the variable state (the one efivarfs reader): declared in
 * ktrust/efivars.h (struct kt_efivars, kt_efivars_read, kt_efivar_data,
 * kt_efivars_byte, kt_efivars_sbat_level, kt_efivars_boot). */
#ifndef KT_EFIVARS_EFIVARS_H
#define KT_EFIVARS_EFIVARS_H

#include "authvar/authvar.h"
#include "ktrust/efivars.h"
#include "sbat/sbat.h"
#include "util/err.h"

/* Who may write a state's secure-boot variables: its PK and KEK
 * certificates (parsed once) and whether it is in setup mode.  For trying
 * many updates against one state (plan-updates): kt_efivars_apply parses
 * them again for each update. */
struct kt_efivars_auth {
    struct kt_certset pk, kek;
    bool setup_mode;
    /* the variable tried first (db; plan-updates: the last update's):
     * a guess that changes only the time, never the answer */
    enum kt_efivar_id guess;
    /* setup mode: a write whose signature names no variable goes to the one
     * the file's name says (--apply FILE: one file the user means to write;
     * plan-updates never trusts a file's name) */
    bool by_file_name;
};
/* Is s in setup mode (no PK, or an empty one)?  EDK2 derives the platform
 * mode from the PK alone (AuthVariableLibInitialize, 2022.11; SetupMode
 * only reflects it), and sets SecureBoot to 0 at the next boot in setup
 * mode: no image is verified then. */
bool kt_efivars_in_setup_mode(const struct kt_efivars *s);
/* Is s a whole view of a machine's variables?  Firmware always exposes
 * SetupMode, so a state that holds it is one (a live efivarfs, a saved
 * root); one without it holds only the variables someone gave, and a
 * variable absent there may simply not have been given.  In a whole view
 * an absent variable does not exist. */
bool kt_efivars_whole(const struct kt_efivars *s);
/* Setup mode at the next boot: a whole view without a PK. */
bool kt_efivars_next_setup_mode(const struct kt_efivars *s);

void kt_efivars_auth_of(const struct kt_efivars *s, struct kt_efivars_auth *a);
void kt_efivars_auth_free(struct kt_efivars_auth *a);

/* kt_efivars_apply / kt_efivars_apply_file with the authorities of s given
 * (a: kt_efivars_auth_of(s), or of a state with the same PK and KEK). */
int kt_efivars_apply_auth(struct kt_efivars *s, const struct kt_efivars_auth *a,
                          const uint8_t *buf, size_t len, struct kt_efivars_change *c);
int kt_efivars_apply_file_auth(struct kt_efivars *s, const struct kt_efivars_auth *a,
                               const char *path, struct kt_efivars_change *c);

#endif
