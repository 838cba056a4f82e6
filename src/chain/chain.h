/* chain.h - the secure-boot trust chain, simulated offline.
 *
 *   db (platform keyring) --vouches--> shim        (dbx can revoke)
 *   shim's .vendor_cert + MOK --vouch--> loader, kernel  (vendor dbx, MokListX revoke)
 *   kernel's builtin keys (+ machine) --vouch--> modules
 *
 * A kt_chain holds one kt_keyrings that grows as links verify: db and dbx
 * first; a trusted shim adds its vendor certificate to `platform`, its vendor
 * dbx to the blacklist and the MOK lists to `platform` (to `machine` only
 * when MokListTrustedRT says the owner trusts them for the kernel's own
 * keyrings: kt_chain_set_mok_trusted); a trusted kernel adds
 * its compiled-in keys to `builtin`.  A link whose parent is not trusted adds
 * nothing, so what hangs below it cannot be trusted either.
 *
 * Each kt_chain_* step verifies one file (which the caller maps and keeps
 * alive only for the call) and fills a kt_chain_link with the verdict and
 * the reason in words.
 */
#ifndef KT_CHAIN_CHAIN_H
#define KT_CHAIN_CHAIN_H

#include <stdbool.h>

#include "efivars/efivars.h"
#include "ktrust/chain.h"
#include "policy/keyrings.h"
#include "sbat/sbat.h"

struct kt_chain;

int kt_chain_new(struct kt_chain **out);
void kt_chain_free(struct kt_chain *c);
/* The keyrings as they stand (for listings). */
const struct kt_keyrings *kt_chain_keyrings(const struct kt_chain *c);

/* Firmware variables: certificates or EFI signature lists.  db -> platform,
 * dbx -> blacklist; MOK lists are held until a trusted shim reads them
 * (MokList -> platform, or machine with MokListTrustedRT).  Errors name the offset in the file. */
int kt_chain_add_db(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                    struct kt_error *err);
/* kt_chain_add_dbx without a copy: buf must stay valid as long as c. */
int kt_chain_add_dbx_borrowed(struct kt_chain *c, const uint8_t *buf, size_t len,
                              const char *name, struct kt_error *err);
int kt_chain_add_dbx(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                     struct kt_error *err);
int kt_chain_add_mok(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                     struct kt_error *err);
/* MokListXRT: shim's deny list (the blacklist; firmware never reads it). */
int kt_chain_add_mokx(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                      struct kt_error *err);
/* Firmware's verdict on one image under the chain's db and dbx, the chain
 * left as it is: l->verdict, l->reason and the structured l->db, l->dbx
 * (chain_fw.h).  Returns 0 (the verdict in l), or the parse error of an
 * image that cannot be read as a PE (-EBADMSG, -ELIBBAD; err set), or
 * -ENOMEM. */
int kt_chain_judge_firmware(const struct kt_chain *c, const uint8_t *buf, size_t len,
                            const char *name, struct kt_chain_link *l, struct kt_error *err);
/* Firmware's verdict on a boot application that is not shim (a Windows
 * boot manager): db and dbx only, no vendor certificate asked of it
 * (chain_app.c).  Returns l->verdict (a file or parse error included). */
int kt_chain_firmware_app_buf(const struct kt_efivars *vars, const uint8_t *buf, size_t len,
                              const char *name, struct kt_chain_link *l);
int kt_chain_firmware_app(const struct kt_efivars *vars, const char *path, struct kt_chain_link *l);
/* The db entry firmware takes for signature sig of r (verified with the
 * chain's keyrings) alone: kt_fw_db_entry over the chain's db. */
struct kt_pe_result;
int kt_chain_sig_db_entry(const struct kt_chain *c, const struct kt_pe_result *r, size_t sig,
                          struct kt_chain_entry *out);
/* MokListTrustedRT is set: MOK keys go to `machine` (vouching for modules
 * too) instead of `platform` (boot images only), as the kernel does. */
void kt_chain_set_mok_trusted(struct kt_chain *c, bool trusted);
/* MokIgnoreDB is set: once shim runs, db no longer vouches (for shim's
 * links, nor in the kernel's platform keyring); its image hashes no longer
 * admit anything. */
void kt_chain_set_ignore_db(struct kt_chain *c, bool ignore);
/* Modules may be saved ones (an audit of a saved root). */
/* kt_chain_is_systemd_boot on bytes already read. */
bool kt_chain_is_systemd_boot_buf(const uint8_t *buf, size_t len);
/* No shim: loader and kernel judged by firmware's db and dbx (kt_chain_opts.firmware_only). */
void kt_chain_set_firmware_only(struct kt_chain *c, bool on);
void kt_chain_set_saved_modules(struct kt_chain *c, bool saved);
/* The kernel's builtin keys through the cache directory dir (kept, not
 * copied; NULL: decoded every time): kt_chain_opts.kernel_cache. */
void kt_chain_set_kernel_cache(struct kt_chain *c, const char *dir);

/* Firmware's variables of vars (may be NULL): db and dbx, as firmware
 * holds them before any image runs; a list that does not parse is left
 * out (the caller reports it).  Returns 0 or -ENOMEM. */
int kt_chain_add_firmware(struct kt_chain *c, const struct kt_efivars *vars);

/* Verify one link; returns link->verdict. */
int kt_chain_shim(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                  struct kt_chain_link *link);
int kt_chain_loader(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                    struct kt_chain_link *link);
int kt_chain_kernel(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                    struct kt_chain_link *link);
int kt_chain_module(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                    struct kt_chain_link *link);

/* kt_chain_firmware and kt_chain_firmware_sigs on an image already in
 * memory (name: how the link names it), for a caller that read it once
 * (audit's snapshot). */
int kt_chain_firmware_buf(const struct kt_efivars *vars, const uint8_t *buf, size_t len,
                          const char *name, struct kt_chain_link *l);
int kt_chain_firmware_sigs_buf(const struct kt_efivars *vars, const uint8_t *buf, size_t len,
                               struct kt_chain_sig *sigs, size_t cap, size_t *n,
                               struct kt_error *err);

/* the link and the engine (struct kt_chain_link, kt_chain_run ...):
 * ktrust/chain.h */

#endif
