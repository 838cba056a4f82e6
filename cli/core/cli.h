/* cli.h - what every ktrust subcommand shares: common options, error lines,
 * exit codes.  The CLI parses arguments, prints and picks exit codes; every
 * decision lives in libktrust. */
#ifndef KT_CLI_CLI_H
#define KT_CLI_CLI_H

#include <getopt.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>

#include "json.h"
#include "ktrust/error.h"
#include "ktrust/verify.h"
#include "opts.h"
#include "text_escape.h"
#include "util/err.h"
#include "util/file.h"
#include "util/fmt.h"
#include "util/walk.h"

#define EXIT_USAGE 64
#define EXIT_NOINPUT 66
#define EXIT_NOT_READY 7 /* audit --require-ready: the 2023 rollover is not ready */
#define EXIT_INTERNAL 70

#define CLI_MAX_TRUST 64

/* Options shared by verifying commands (CONTRACT.md). */
struct cli_common {
    const char *store;                 /* --store, else $KTRUST_STORE, else XDG */
    const char *trust[CLI_MAX_TRUST];  /* --trust FILE (repeatable) */
    size_t n_trust;
    const char *kernel;                /* --kernel VMLINUZ */
    const char *vouch[CLI_MAX_TRUST];  /* --keyring NAME on verifying commands: keyrings
                                        * that vouch for every purpose in this run */
    size_t n_vouch;
    bool json;                         /* --json */
    bool quiet;                        /* -q */
    bool verbose;                      /* -v: per-signature lines, which store */
};

/* --trust-system: the distribution's CA bundle (Debian, Ubuntu, Fedora's
 * compat link, Arch, Alpine). */
#define CLI_SYSTEM_BUNDLE "/etc/ssl/certs/ca-certificates.crt"
/* The one copy --trust-system puts in cli_common.trust[] (compared by address). */
extern const char cli_system_bundle[];

/* Handle an option of cli_opts_common or cli_opts_verify (opts.h); returns 1
 * if it was one, 0 if not, -1 on error. */
int cli_common_opt(struct cli_common *co, int c, const char *arg);
/* Handle --check-time / --allow-sha1 into a policy; 1 if it was one, 0 if
 * not, -1 after a usage error for cmd (a bad time, or a bare --check-time
 * followed by a word that is a time: argv[optind], the next word, would
 * otherwise be taken for a file and the check made at "now"). */
int cli_policy_opt(struct kt_policy *pol, int c, const char *arg, const char *cmd,
                   int argc, char **argv);

/* `ktrust NOUN show FILE... [--json] [-q]` (x509, esl, sbat): parse the
 * options (cli_opts_show: usage prints them with cli_usage_print), call
 * show_file for each FILE, return the highest exit code. */
typedef int (*cli_show_fn)(const char *path, const struct cli_common *co);
/* The same driver for any command of that shape: parse opts (its own
 * options first through own_opt, which returns true for one it took; then
 * the common ones), say no_file when no FILE is given, call each(FILE, co,
 * arg) for every FILE, return the highest exit code. */
struct cli_files_cmd {
    const char *cmd;               /* for the one-line usage error */
    const struct cli_opt *opts;
    void (*usage)(FILE *f);
    const char *no_file;           /* "no FILE given" */
    bool (*own_opt)(void *arg, int ch);
    void *arg;
};
int cli_files_main(const struct cli_files_cmd *fc, int argc, char **argv,
                   int (*each)(const char *path, const struct cli_common *co, void *arg));
int cli_show_main(const char *noun, int argc, char **argv, void (*usage)(FILE *f),
                  cli_show_fn show_file);

/* Print the one-line error: "ktrust: FILE: WHAT (at offset N)". */
void cli_error(const char *file, const struct kt_error *e);
/* The first error cli_error, cli_errorf or cli_usage_error reported in this
 * run ("FILE: WHAT"), for --json's summary; NULL when none. */
const char *cli_first_error(void);
/* Same, from a printf-style message (no offset). */
void cli_errorf(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Exit code for a library result (0/-errno), per CONTRACT.md.  I/O errors on
 * opening an input are 66. */
int cli_exit_code(int rc);
/* Register the hints (kt_hint_set) that name our options; main does it once. */
void cli_hints_register(void);
/* With --json: the objects for inputs never verified because a setup step
 * (store, --trust, --kernel) failed with rc/e (verdict_print.c). */
void cli_json_setup_failed(const struct cli_common *co, const char *type, char *const *files,
                           int n, int rc, const struct kt_error *e);
/* Print usage text for cmd to stderr and return EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Is the store the default one ($XDG_DATA_HOME/...: no --store, no
 * $KTRUST_STORE)?  Only that one may be created with its directories. */
bool cli_store_is_default(const struct cli_common *co);

/* The store path the options select (may be NULL when --trust without --store). */
const char *cli_store_path(const struct cli_common *co, char *buf, size_t cap);
/* The kernel-key cache directory (kt_chain_opts.kernel_cache): $KTRUST_CACHE
 * ("off": none), else $XDG_CACHE_HOME/ktrust, else $HOME/.cache/ktrust (no
 * HOME: none).  buf holds it; NULL when there is none. */
const char *cli_cache_dir(char *buf, size_t cap);

/* --purpose NAME: "uefi", "kexec" (and with module_ok "module", "builtin"),
 * as a verification policy's purpose.  Returns 0, or -1 for an unknown name. */
int cli_parse_verify_purpose(const char *s, bool module_ok, enum kt_verify_purpose *p);

/* Subcommands: argv[0] is the subcommand name. */
int cmd_x509(int argc, char **argv);
int cmd_keyring(int argc, char **argv);
int cmd_kernel_keys(int argc, char **argv);
int cmd_verify_pkcs7(int argc, char **argv);
int cmd_verify_module(int argc, char **argv);
int cmd_verify_ima(int argc, char **argv);
int cmd_verify_pe(int argc, char **argv);
int cmd_load_pe_key(int argc, char **argv);
int cmd_wrap_key(int argc, char **argv);
int cmd_chain(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_esl(int argc, char **argv);
int cmd_sbat(int argc, char **argv);
int cmd_verify_var(int argc, char **argv);
int cmd_check_update(int argc, char **argv);
int cmd_plan_updates(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_eventlog(int argc, char **argv);

#endif
