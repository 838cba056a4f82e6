/* chain_sbat.h - SBAT in the secure-boot chain, as shim applies it:
 * the SbatLevel shim would set from SbatPolicy and its built-in
 * .sbatlevel (never older than the variable, never revoking itself), its
 * self-check, and the .sbat rule for the images it loads itself (loader,
 * MokManager, fallback) but not for those verified through its protocol
 * (a kernel GRUB checks). */
#ifndef KT_CHAIN_CHAIN_SBAT_H
#define KT_CHAIN_CHAIN_SBAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chain/chain.h"
#include "sbat/sbat.h"

/* The level shim (image shim/len) leaves in SbatLevel, as its
 * set_sbat_uefi_variable decides: its candidate from `policy` and its
 * .sbatlevel (outside secure mode, reset or no SbatPolicy: the original
 * 2021030218 payload, written whatever the variable holds); `current` kept
 * when kt_sbat_level_preserve says shim keeps it (its attributes, version
 * column and date stamp as shim's preserve_sbat_uefi_variable compares
 * them) or when the candidate would revoke shim itself.  current may be
 * NULL (no variable yet).  *applied owns its text; note (one line) says
 * what happened.  Returns 0, or 1 when the candidate would revoke shim
 * itself (*applied is then the current level; set_sbat_uefi_variable
 * fails, and in secure mode efi_main goes to die: nothing boots).  Errors:
 * the shim's PE/.sbatlevel errors (-ELIBBAD, -EBADMSG), -ENOMEM. */
int kt_chain_sbat_level(const uint8_t *shim, size_t len, const struct kt_sbat_level *current,
                        enum kt_sbat_policy policy, bool secure, struct kt_sbat_level *applied,
                        char *note, size_t note_cap, struct kt_error *err);

/* SbatPolicy (*policy left as it is unless DEFAULT; name gets the word,
 * "" none) and secure mode (SecureBoot; on unless it says 0) of vars
 * (may be NULL). */
void kt_chain_sbat_state(const struct kt_efivars *vars, enum kt_sbat_policy *policy,
                         bool *secure, char *name, size_t cap);

/* THE SbatLevel rule for a state: what shim (image shim/len) leaves in
 * SbatLevel at the next boot given vars' SbatLevel (else SbatLevelRT; or
 * `given` in their place), SbatPolicy and SecureBoot: kt_chain_sbat_state
 * then kt_chain_sbat_level, whose returns it has.  For the event log's
 * PCR 7 prediction and the boot engine alike. */
int kt_chain_sbat_next(const struct kt_efivars *vars, const struct kt_sbat_level *given,
                       const uint8_t *shim, size_t len, struct kt_sbat_level *applied,
                       char *note, size_t note_cap, struct kt_error *err);

/* Check one link's image against the level, folding the result into
 * link->verdict and link->reason.  required: shim loads it itself (loader,
 * MokManager, fallback): no .sbat is a rejection; shim itself: the
 * self-check (a revoked shim powers the machine off).  sbat_text receives a
 * line for the link ("passes level 2025021800: grub 5 >= 5 ...", "revoked
 * ...", "no .sbat (not required: verified through shim's protocol)").
 * Returns 0 when shim accepts the image's SBAT, -EKEYREJECTED when not. */
int kt_chain_sbat_link(const uint8_t *buf, size_t len, const struct kt_sbat_level *level,
                       bool required, struct kt_chain_link *link, char *sbat_text, size_t cap);

#endif
