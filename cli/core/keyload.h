/* keyload.h - the verification context (include/ktrust/verify.h) a command
 * works with, from its common options: the store they select and the
 * run-only --trust / --kernel keys and --keyring vouchers. */
#ifndef KT_CLI_KEYLOAD_H
#define KT_CLI_KEYLOAD_H

#include "cli.h"
#include "ktrust/keyring.h"
#include "ktrust/verify.h"

/* kt_ctx_opts filled from the common options (the trust array lives here). */
struct cli_ctx_opts {
    struct kt_ctx_opts o;
    struct kt_ctx_trust trust[CLI_MAX_TRUST];
    char path[4096];
    char cache[4096]; /* o.kernel_cache */
};

/* Which store and keys: READ: the store cli_store_path() selects (none with
 * --trust or --kernel and no --store/$KTRUST_STORE; a missing default store
 * means empty keyrings), the run-only keys and the vouchers.  WRITE: the
 * store cli_write_store_path() selects, even with --trust; only the default
 * store gets its directories made; the run-only keys are added (no
 * vouchers).  Messages go to stderr: the store with -v, warnings unless -q. */
void cli_ctx_opts(const struct cli_common *co, enum kt_ctx_store_mode mode,
                  struct cli_ctx_opts *c);

/* kt_ctx_open with cli_ctx_opts(co, READ); on failure *bad_file names the
 * store when it is at fault. */
int cli_open_ctx(const struct cli_common *co, struct kt_ctx **ctx, struct kt_error *err,
                 const char **bad_file);

/* For load-pe-key: the store opened for writing when it exists (it is not
 * created until kt_ctx_commit), then the run-only keys. */
int cli_open_ctx_write(const struct cli_common *co, struct kt_ctx **ctx, struct kt_error *err,
                       const char **bad_file);

/* The store a command that writes uses: --store, else $KTRUST_STORE, else
 * the XDG default, even with --trust. */
const char *cli_write_store_path(const struct cli_common *co, char *buf, size_t cap);

/* The run's .ima and .evm keyrings (kt_ima_ring_prepare) and the
 * certificates of files[i] added to rings[i] ("ima" or "evm") under their
 * restriction (rings NULL: every file to "ima"), for verify-ima and
 * ima-list; each file's refused
 * certificates said on stderr unless quiet.  0, or a negative errno with
 * err set and *bad the file at fault (NULL: the keyrings themselves). */
int cli_ima_keys_load(struct kt_keyrings *k, bool machine_ca, const char *const *files,
                      const char *const *rings, size_t n, bool quiet, const char **bad,
                      struct kt_error *err);
#endif
