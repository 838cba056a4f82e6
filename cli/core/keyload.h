/* keyload.h - the verification context (include/ktrust/verify.h) a command
 * works with, from its common options: the store they select and the
 * run-only --trust / --kernel keys and --keyring vouchers. */
#ifndef KT_CLI_KEYLOAD_H
#define KT_CLI_KEYLOAD_H

#include "cli.h"
#include "json.h"
#include "ktrust/ima.h"
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

/* The .ima options of verify-ima and ima-list (cli_opts_ima) and what the
 * run made of them. */
#define CLI_IMA_MAX_KEYS 64
struct cli_ima_keys {
    const char *files[CLI_IMA_MAX_KEYS]; /* --ima-key (and verify-ima's --evm-key) */
    const char *rings[CLI_IMA_MAX_KEYS]; /* "ima" or "evm", each file's */
    size_t n;
    bool machine_ca;                     /* --machine-ca */
    const char *kernel_config;           /* --kernel-config, or found under --root */
    struct kt_ima_kconfig config;        /* read, or assumed (cli_ima_keys_load) */
    struct kt_ima_ring_rule rule;        /* the .ima rule it makes */
    bool store_ring;                     /* the store has its own ima keyring:
                                          * used as it is, the rule not applied */
};

/* An option of cli_opts_ima for command cmd: 1 taken, 0 not one of them,
 * or the usage error's exit code (said). */
int cli_ima_opt(struct cli_ima_keys *a, const char *cmd, int c, const char *arg);
/* A certificate file for ring ("ima", "evm"): 0 or the usage error's exit code. */
int cli_ima_key_add(struct cli_ima_keys *a, const char *cmd, const char *ring, const char *file);

/* The run's .ima and .evm keyrings as the kernel config says
 * (kt_ima_ring_prepare_config: the config a->kernel_config names, else
 * the assumption, kt_ima_kconfig_assume; a->config and a->rule filled) and
 * the certificates of a->files[i] added to a->rings[i] under that rule; each
 * file's refused certificates said on stderr unless quiet.  0, or a
 * negative errno with err set and *bad the file at fault (NULL: the
 * keyrings themselves). */
int cli_ima_keys_load(struct kt_keyrings *k, struct cli_ima_keys *a, bool quiet, const char **bad,
                      struct kt_error *err);

/* The rule as JSON (object key: its name, the kernel's keyring, whether
 * restricted, the vouching keyrings, where the rule comes from) or as one
 * text line with indent. */
void cli_ima_rule_json(struct jw *w, const char *key, const struct cli_ima_keys *a);
void cli_ima_rule_text(FILE *f, const char *indent, const struct cli_ima_keys *a);
#endif
