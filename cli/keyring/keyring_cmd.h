/* keyring_cmd.h - what the `ktrust keyring` actions share: their options,
 * the store session around them (keyring_session.c), and the actions that
 * live in files of their own (cmd_keyring_remove.c, cmd_keyring_io.c),
 * which cmd_keyring.c dispatches to.  Calls go one way: cmd_keyring.c ->
 * the action files -> keyring_session.c. */
#ifndef KT_CLI_KEYRING_CMD_H
#define KT_CLI_KEYRING_CMD_H

#include "cli.h"
#include "keyload.h"
#include "update_check.h"

struct kr_opts {
    struct cli_common co;
    const char *keyring, *format, *out, *to, *restrict_spec;
    bool all, dry_run;
    struct cli_update_auth ua; /* add: --pk/--kek for signed EFI variable updates */
};

/* ---- keyring_session.c ---- */

/* Print "ktrust: FILE: WHAT" and return the exit code of rc. */
int kr_fail(const char *file, int rc, const struct kt_error *e);
/* The keyring called name, or NULL after printing why (*ret = 64). */
struct kt_keyring *kr_need_ring(struct kt_keyrings *k, const char *name, int *ret);
/* Read the store for list/export/push into a context (*k: its keyrings;
 * free with kt_ctx_free): a store that does not exist is an error ("no store
 * at PATH", 66), as is a directory.  *path names the store.  On failure
 * prints the error and returns the exit code (>0). */
int kr_load_read(const struct kr_opts *o, struct kt_ctx **ctx, struct kt_keyrings **k,
                 const char **path);
/* Open the store for writing (only the default store's directories are
 * created), start the transaction, load everything (kt_ctx_open, WRITE). */
int kr_begin(const struct kr_opts *o, struct kt_ctx **ctx, struct kt_keyrings **k,
             const char **path, struct kt_error *e);
/* Save and commit (kt_ctx_commit); on failure everything is rolled back. */
int kr_finish(struct kt_ctx *ctx, struct kt_error *e);

/* ---- the actions: cmd_keyring_remove.c, cmd_keyring_io.c ---- */

int kr_do_remove(const struct kr_opts *o, int nids, char **ids);
int kr_do_export(const struct kr_opts *o, int nargs);
int kr_do_push(const struct kr_opts *o, int nargs);

#endif
