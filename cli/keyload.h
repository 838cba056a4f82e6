/* keyload.h - the keyrings a verifying command works with: the store's
 * keyrings, plus --trust FILE and --kernel VMLINUZ keys for this run. */
#ifndef KT_CLI_KEYLOAD_H
#define KT_CLI_KEYLOAD_H

#include "cli.h"
#include "policy/keyrings.h"
#include "store/store.h"

/* Build *rings for a verifying command:
 *  - opens the store cli_store_path() selects, read-only (none with --trust
 *    or --kernel and no --store/$KTRUST_STORE; a store file that does not
 *    exist yet means empty keyrings) and loads its keyrings;
 *  - adds each --trust FILE (DER, PEM, PEM bundle, certificate list or EFI
 *    signature list) to builtin, KT_ADD_EXPLICIT, for this run only;
 *  - adds each --kernel VMLINUZ's compiled-in keys to builtin.
 * Run-only keys are flagged ephemeral: a store save never writes them.
 * *store (may be NULL if the caller does not want it) receives the open
 * store or NULL; close it with kt_store_close.  On failure returns -errno,
 * err has the detail, *bad_file names the file (store, --trust or --kernel)
 * for "ktrust: FILE: WHAT"; nothing is left allocated. */
int cli_load_keyrings(const struct cli_common *co, struct kt_keyrings **rings,
                      struct kt_store **store, struct kt_error *err, const char **bad_file);

/* Add the keys of one file to ring r (flagged ephemeral when run_only).
 * source is "file:PATH".  *n_added may be NULL. */
int cli_add_key_file(struct kt_keyrings *k, struct kt_keyring *r, const char *path,
                     enum kt_add_how how, bool run_only, size_t *n_added, struct kt_error *err);


/* For commands that change the store (load-pe-key): open the store (--store,
 * else $KTRUST_STORE, else the XDG default, even with --trust) for writing,
 * start its transaction (BEGIN IMMEDIATE), load it, then add the run-only
 * --trust/--kernel keys.  The caller saves+commits or rolls back, then
 * closes *store and frees *rings. */
int cli_open_keyrings_for_write(const struct cli_common *co, struct kt_keyrings **rings,
                                struct kt_store **store, struct kt_error *err,
                                const char **bad_file);

#endif
