/* keyload.h - the keyrings a verifying command works with: the store's
 * keyrings, plus --trust FILE and --kernel VMLINUZ keys for this run. */
#ifndef KT_CLI_KEYLOAD_H
#define KT_CLI_KEYLOAD_H

#include "cli.h"
#include "policy/keyrings.h"
#include "store/store.h"

/* Build *rings for a verifying command:
 *  - opens the store cli_store_path() selects, read-only (none with --trust
 *    or --kernel and no --store/$KTRUST_STORE; a missing default store means
 *    empty keyrings, a missing --store/$KTRUST_STORE is -ENOENT "no store")
 *    and loads its keyrings; -v says which store;
 *  - adds each --trust FILE (DER, PEM, PEM bundle, certificate list or EFI
 *    signature list) to builtin, KT_ADD_EXPLICIT, for this run only; a
 *    certificate the strict parser refuses is skipped with a warning;
 *  - adds each --kernel VMLINUZ's compiled-in keys to builtin.
 * Run-only keys are flagged ephemeral: a store save never writes them.
 * *store (may be NULL if the caller does not want it) receives the open
 * store or NULL; close it with kt_store_close.  On failure returns -errno,
 * err has the detail, *bad_file names the store file for "ktrust: FILE:
 * WHAT" (NULL for --trust/--kernel: their detail starts "--trust FILE: ");
 * an option's file of the wrong kind is -EMEDIUMTYPE (exit 64), other
 * content errors -EBADMSG/-ENOPKG/-EKEYREJECTED, never a verdict of 1, 2
 * or 6; nothing is left allocated. */
int cli_load_keyrings(const struct cli_common *co, struct kt_keyrings **rings,
                      struct kt_store **store, struct kt_error *err, const char **bad_file);

/* The run-only keys of --trust (lenient: refused certificates skipped with a
 * warning) and --kernel, into builtin; errors as cli_load_keyrings says.
 * store (may be NULL) caches --kernel's keys (kt_store_add_kernel_keys). */
int cli_add_run_keys(const struct cli_common *co, struct kt_keyrings *k, struct kt_store *store,
                     struct kt_error *err);

/* Add the keys of one file to ring r (flagged ephemeral when run_only).
 * source is "file:PATH".  *n_added may be NULL. */
int cli_add_key_file(struct kt_keyrings *k, struct kt_keyring *r, const char *path,
                     enum kt_add_how how, bool run_only, size_t *n_added, struct kt_error *err);


/* What a file given where certificates (or a kernel) are wanted is instead:
 * "a PE image", "a kernel module", "an empty file", "an ELF file", "a binary
 * file of another kind" ...; NULL for certificates, ESLs and text. */
const char *cli_wrong_kind(const uint8_t *p, size_t n, const char *name);

/* The store a command that writes uses: --store, else $KTRUST_STORE, else
 * the XDG default, even with --trust. */
const char *cli_write_store_path(const struct cli_common *co, char *buf, size_t cap);

/* Open the store at path for writing and start its transaction; only the
 * default store gets its missing directories created. */
int cli_open_store_write(const struct cli_common *co, const char *path, struct kt_store **s,
                         struct kt_error *err);

/* For commands that change the store (load-pe-key): open the store
 * (cli_write_store_path) for writing, start its transaction (BEGIN
 * IMMEDIATE), load it, then add the run-only --trust/--kernel keys.  A store
 * that does not exist is not created: *store is NULL and the keyrings start
 * empty (the caller creates it with cli_open_store_write only when it has
 * something to save).  The caller saves+commits or rolls back, then
 * closes *store and frees *rings. */
int cli_open_keyrings_for_write(const struct cli_common *co, struct kt_keyrings **rings,
                                struct kt_store **store, struct kt_error *err,
                                const char **bad_file);

#endif
