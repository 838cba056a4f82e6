/* revoke.h - would a dbx and/or SbatLevel update revoke a boot binary?
 * (check-update, audit's outlook).  Not a rule of its own: the dbx inputs
 * (and db) go into a copy of the boot engine's firmware state and the
 * chain answers (kt_chain_judge_firmware: EDK2's IsForbiddenByDbx /
 * IsAllowedByDb, src/chain/chain_fw.h); its structured reasons (which dbx
 * entry, which db entry) become check-update's.  shim adds the SbatLevel
 * rule (sbat/sbat.h).  fwupd compares SHA-256 image hashes only and skips
 * 32-bit and unparsable images; this checks PE32 and PE32+ and reports
 * what it cannot parse.
 */
#ifndef KT_REVOKE_REVOKE_H
#define KT_REVOKE_REVOKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/crypto.h"
#include "ktrust/update.h"
#include "sbat/sbat.h"
#include "util/err.h"

/* enum kt_revoke_by: ktrust/chain.h; kt_revoke_by_name and struct
 * kt_update_check: ktrust/update.h */

/* Each image hash of the dbx inputs (not TBS hashes, not SVN records):
 * cb(ctx, alg, value, len). */
void kt_update_check_foreach_image_hash(const struct kt_update_check *u,
                                        void (*cb)(void *ctx, enum kt_hash alg,
                                                   const uint8_t *v, size_t len),
                                        void *ctx);
/* Microsoft's dbx_info held (NULL none), for arch.c. */
struct kt_json;
const struct kt_json *kt_update_check_info(const struct kt_update_check *u);

#endif
