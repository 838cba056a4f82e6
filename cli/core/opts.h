/* opts.h - a command's options as one table, which drives both getopt_long
 * and the "Options:" section of its --help, so that the two cannot drift.
 * The options several commands share are tables defined once (opts.c) that
 * a command's table includes. */
#ifndef KT_CLI_OPTS_H
#define KT_CLI_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* Option ids of the shared options (what cli_getopt returns for them). */
enum {
    OPT_STORE = 1000,
    OPT_TRUST,
    OPT_KERNEL,
    OPT_JSON,
    OPT_HELP,
    OPT_VOUCH_RING,
    OPT_TRUST_SYSTEM,
    OPT_CHECK_TIME,
    OPT_ALLOW_SHA1,
    OPT_IMA_KEY,
    OPT_MACHINE_CA,
    OPT_KERNEL_CONFIG,
    OPT_FIRST_PRIVATE = 1100, /* commands number their own long options from here */
};

/* One option, or (only .group set) every option of another table, in its
 * place.  A table ends with an all-zero entry. */
struct cli_opt {
    const char *long_name; /* "store" for --store, or NULL */
    char short_name;       /* 'q' for -q, or 0 */
    int has_arg;           /* no_argument, required_argument, optional_argument */
    int id;                /* what cli_getopt returns; == short_name when there is one */
    const char *arg_name;  /* "PATH": shown as --store PATH, or --check-time[=T] */
    const char *help;      /* what it does; wrapped in --help, '\n' starts a new line */
    const struct cli_opt *group;
};

/* Entries: an option (long name or NULL, short name or 0, getopt's
 * has_arg, id, argument name or NULL, help), or another table's options. */
#define CLI_OPT(l, s, a, i, an, h)                                                            \
    {.long_name = (l), .short_name = (s), .has_arg = (a), .id = (i), .arg_name = (an), .help = (h)}
#define CLI_OPTS(table) {.group = (table)}

/* The shared tables.  An alias (--cert for --trust) is an entry of its own
 * with the same id. */
extern const struct cli_opt cli_opts_help[];   /* -h, --help */
extern const struct cli_opt cli_opts_quiet[];  /* -q, --quiet */
extern const struct cli_opt cli_opts_output[]; /* --json, -q, -h */
/* x509/esl/sbat show, kernel-keys: --json, -q, -v (accepted, no effect), -h */
extern const struct cli_opt cli_opts_show[];
/* what cli_common_opt handles: --store, --trust, --cert, --trust-system,
 * --kernel, --json, -q, -v, -h (also what may come before the command) */
extern const struct cli_opt cli_opts_common[];
/* the verifying commands: cli_opts_common and --keyring NAME (a voucher) */
extern const struct cli_opt cli_opts_verify[];
/* what cli_policy_opt handles: --check-time[=ISO-TIME], --allow-sha1
 * (verify-pe has its own help for the same ids) */
extern const struct cli_opt cli_opts_policy[];
/* --ima-key, --machine-ca, --kernel-config: the run's .ima keyring and the
 * kernel rule it follows (verify-ima, ima-list; keyload.h's cli_ima_opt). */
extern const struct cli_opt cli_opts_ima[];

#define CLI_OPTS_MAX 40 /* options in one command's table, its groups included */

/* getopt_long's arrays, built from a table into the caller's storage. */
struct cli_getopt {
    struct option longopts[CLI_OPTS_MAX + 1];
    char shortopts[3 * CLI_OPTS_MAX + 1];
};

/* The options of table, its groups expanded, in order, into out[cap]:
 * their number, or -1 when there are more than cap. */
int cli_opts_flatten(const struct cli_opt *table, const struct cli_opt **out, size_t cap);

/* Build g from table and reset getopt (optind = 1) for a new parse.
 * Returns 0, or -1 after a message when the table is wrong (too many
 * options, a name twice, an id that is not its short name): a bug. */
int cli_opts_init(struct cli_getopt *g, const struct cli_opt *table);

/* The command being run ("keyring"), for cli_getopt's messages: main sets it. */
extern const char *cli_command;

/* getopt_long over g: the next option's id, -1 after the last, or '?' for
 * one that is not in the table or lacks its argument, after the one line
 * that says so on stderr ("ktrust CMD: unknown option '--x' (try ...)"):
 * the caller only returns EXIT_USAGE. */
int cli_getopt(int argc, char **argv, const struct cli_getopt *g);

/* Print "Options:" and one entry per option of table: its spellings and
 * argument, then its help in an aligned, wrapped column. */
void cli_opts_print(FILE *f, const struct cli_opt *table);

/* A command's --help: head (synopsis and description), a blank line, the
 * options, then, after a blank line, tail (exit codes; may be NULL). */
void cli_usage_print(FILE *f, const char *head, const struct cli_opt *table, const char *tail);

#endif
