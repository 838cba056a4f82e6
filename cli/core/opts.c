/* opts.c - option tables: the shared ones, getopt_long's arrays and the
 * "Options:" section of --help, all from the same entries. */
#include <string.h>

#include "cli.h"
#include "opts.h"

const struct cli_opt cli_opts_help[] = {
    CLI_OPT("help", 'h', no_argument, 'h', NULL, "print this help and exit"),
    {0},
};

const struct cli_opt cli_opts_quiet[] = {
    CLI_OPT("quiet", 'q', no_argument, 'q', NULL, "no output but errors: only the exit code"),
    {0},
};

static const struct cli_opt json[] = {
    CLI_OPT("json", 0, no_argument, OPT_JSON, NULL,
            "one JSON object per line (NDJSON); the fields are in ktrust(1)"),
    {0},
};

const struct cli_opt cli_opts_output[] = {
    CLI_OPTS(json),
    CLI_OPTS(cli_opts_quiet),
    CLI_OPTS(cli_opts_help),
    {0},
};

const struct cli_opt cli_opts_show[] = {
    CLI_OPTS(json),
    CLI_OPTS(cli_opts_quiet),
    CLI_OPT(NULL, 'v', no_argument, 'v', NULL, "accepted; changes nothing here"),
    CLI_OPTS(cli_opts_help),
    {0},
};

/* where the keys come from: the store and this run's own */
static const struct cli_opt keys[] = {
    CLI_OPT("store", 0, required_argument, OPT_STORE, "PATH",
            "the key store (else $KTRUST_STORE, else $XDG_DATA_HOME/ktrust/keyrings.db)"),
    CLI_OPT("trust", 0, required_argument, OPT_TRUST, "FILE",
            "certificates or an EFI signature list, builtin keys for this run only (repeatable); "
            "a certificate the strict parser refuses is skipped with a warning"),
    CLI_OPT("cert", 0, required_argument, OPT_TRUST, "FILE",
            "the same as --trust (sbverify's name)"),
    CLI_OPT("trust-system", 0, no_argument, OPT_TRUST_SYSTEM, NULL,
            "--trust the distribution's CA bundle (" CLI_SYSTEM_BUNDLE ")"),
    CLI_OPT("kernel", 0, required_argument, OPT_KERNEL, "VMLINUZ",
            "that kernel image's builtin keys join builtin for this run"),
    {0},
};

static const struct cli_opt say[] = {
    CLI_OPTS(json),
    CLI_OPTS(cli_opts_quiet),
    CLI_OPT("verbose", 'v', no_argument, 'v', NULL,
            "each signature's details (text output) and which store is used"),
    CLI_OPTS(cli_opts_help),
    {0},
};

const struct cli_opt cli_opts_common[] = {CLI_OPTS(keys), CLI_OPTS(say), {0}};

const struct cli_opt cli_opts_verify[] = {
    CLI_OPTS(keys),
    CLI_OPT("keyring", 0, required_argument, OPT_VOUCH_RING, "NAME",
            "let that keyring (a user keyring, say) vouch for every purpose in this run "
            "(repeatable)"),
    CLI_OPTS(say),
    {0},
};

const struct cli_opt cli_opts_policy[] = {
    CLI_OPT("check-time", 0, optional_argument, OPT_CHECK_TIME, "ISO-TIME",
            "refuse a chain certificate outside its validity at that time (UTC, default "
            "now)"),
    CLI_OPT("allow-sha1", 0, no_argument, OPT_ALLOW_SHA1, NULL,
            "accept SHA-1 digests (refused as unsupported, 3, without it)"),
    {0},
};

const struct cli_opt cli_opts_ima[] = {
    CLI_OPT("ima-key", 0, required_argument, OPT_IMA_KEY, "CERT",
            "add a certificate to the .ima keyring of this run, obeying the kernel's rule for "
            "it (see --kernel-config; repeatable)"),
    CLI_OPT("kernel-config", 0, required_argument, OPT_KERNEL_CONFIG, "FILE",
            "the kernel's build configuration (/boot/config-RELEASE): which keyring IMA "
            "searches and who may add to it (CONFIG_INTEGRITY_TRUSTED_KEYRING: the restricted "
            ".ima; unset: the unrestricted _ima user space fills), and whether a modsig is "
            "read (CONFIG_IMA_APPRAISE_MODSIG); without it the restricted .ima (builtin and "
            "secondary vouch) is assumed, and said"),
    CLI_OPT("machine-ca", 0, no_argument, OPT_MACHINE_CA, NULL,
            "the kernel links .machine into .secondary_trusted_keys "
            "(CONFIG_INTEGRITY_CA_MACHINE_KEYRING): machine keys vouch for .ima keys too"),
    {0},
};

static int flatten(const struct cli_opt *t, const struct cli_opt **out, size_t cap, size_t *n,
                   int depth)
{
    if (depth > 8)
        return -1; /* a table that includes itself */
    for (; t->long_name || t->short_name || t->group; t++) {
        if (t->group) {
            if (flatten(t->group, out, cap, n, depth + 1) < 0)
                return -1;
            continue;
        }
        if (*n >= cap)
            return -1;
        out[(*n)++] = t;
    }
    return 0;
}

int cli_opts_flatten(const struct cli_opt *table, const struct cli_opt **out, size_t cap)
{
    size_t n = 0;
    return flatten(table, out, cap, &n, 0) < 0 ? -1 : (int)n;
}

static int table_bug(const char *what, const struct cli_opt *o)
{
    fprintf(stderr, "ktrust: internal error: option table: %s (%s%s)\n", what,
            o && o->long_name ? "--" : "", o && o->long_name ? o->long_name : "");
    return -1;
}

int cli_opts_init(struct cli_getopt *g, const struct cli_opt *table)
{
    const struct cli_opt *v[CLI_OPTS_MAX];
    int n = cli_opts_flatten(table, v, CLI_OPTS_MAX);
    if (n < 0)
        return table_bug("too many options", NULL);
    memset(g, 0, sizeof(*g));
    size_t nl = 0, ns = 0;
    g->shortopts[ns++] = ':'; /* a missing argument is ':', not '?' */
    for (int i = 0; i < n; i++) {
        const struct cli_opt *o = v[i];
        if (o->short_name && o->id != o->short_name)
            return table_bug("an id that is not its short name", o);
        for (int j = 0; j < i; j++)
            if ((o->long_name && v[j]->long_name && !strcmp(o->long_name, v[j]->long_name)) ||
                (o->short_name && o->short_name == v[j]->short_name))
                return table_bug("an option twice", o);
        if (o->long_name)
            g->longopts[nl++] = (struct option){o->long_name, o->has_arg, NULL, o->id};
        if (o->short_name) {
            g->shortopts[ns++] = o->short_name;
            for (int k = 0; k < o->has_arg; k++) /* ':' required, '::' optional */
                g->shortopts[ns++] = ':';
        }
    }
    optind = 1;
    opterr = 0; /* cli_getopt says what is wrong, in one line */
    return 0;
}

const char *cli_command;

/* The one line for an option getopt refused, in getopt's own words (which
 * scripts and tests know) between "ktrust CMD: " and the hint. */
static void bad_option(int argc, char **argv, int c, const struct cli_getopt *g)
{
    const char *cmd = cli_command ? cli_command : argc > 0 && argv[0] ? argv[0] : "ktrust";
    const char *word = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    if (strncmp(word, "--", 2) != 0) { /* a short option: optopt is the letter */
        if (c == ':')
            cli_usage_error(cmd, "option requires an argument -- '%c'", optopt);
        else
            cli_usage_error(cmd, "invalid option -- '%c'", optopt);
        return;
    }
    size_t len = strcspn(word, "=");
    int matches = 0;
    for (const struct option *o = g->longopts; o->name; o++)
        if (!strncmp(o->name, word + 2, len - 2))
            matches += strlen(o->name) == len - 2 ? 100 : 1;
    if (c == ':')
        cli_usage_error(cmd, "option '%.*s' requires an argument", (int)len, word);
    else if (word[len] == '=' && optopt)
        cli_usage_error(cmd, "option '%.*s' doesn't allow an argument", (int)len, word);
    else if (matches > 1 && matches < 100)
        cli_usage_error(cmd, "option '%.*s' is ambiguous", (int)len, word);
    else
        cli_usage_error(cmd, "unrecognized option '%.*s'", (int)len, word);
}

int cli_getopt(int argc, char **argv, const struct cli_getopt *g)
{
    int c = getopt_long(argc, argv, g->shortopts, g->longopts, NULL);
    if (c == '?' || c == ':') {
        bad_option(argc, argv, c, g);
        return '?';
    }
    return c;
}

#define HELP_WIDTH 79 /* the longest line */
#define SPEC_MAX 22   /* a longer spelling puts its help on the next line */

/* "-q, --quiet", "    --store PATH", "    --check-time[=T]", "-v" */
static void spec(const struct cli_opt *o, char *buf, size_t cap)
{
    const char *a = o->arg_name ? o->arg_name : "ARG";
    char arg[64] = "";
    if (o->has_arg == required_argument)
        snprintf(arg, sizeof(arg), " %s", a);
    else if (o->has_arg == optional_argument)
        snprintf(arg, sizeof(arg), o->long_name ? "[=%s]" : "[%s]", a);
    if (o->short_name && o->long_name)
        snprintf(buf, cap, "-%c, --%s%s", o->short_name, o->long_name, arg);
    else if (o->short_name)
        snprintf(buf, cap, "-%c%s", o->short_name, arg);
    else
        snprintf(buf, cap, "    --%s%s", o->long_name, arg);
}

/* The help text from column col on, words wrapped at HELP_WIDTH; at is
 * where the cursor is on the first line. */
static void wrap(FILE *f, const char *s, int col, int at)
{
    while (*s) {
        if (*s == '\n' || *s == ' ') {
            if (*s == '\n') {
                fprintf(f, "\n%*s", col, "");
                at = col;
            }
            s++;
            continue;
        }
        int len = (int)strcspn(s, " \n");
        if (at > col && at + 1 + len > HELP_WIDTH) {
            fprintf(f, "\n%*s", col, "");
            at = col;
        }
        if (at > col) {
            fputc(' ', f);
            at++;
        }
        fprintf(f, "%.*s", len, s);
        at += len;
        s += len;
    }
    fputc('\n', f);
}

void cli_opts_print(FILE *f, const struct cli_opt *table)
{
    const struct cli_opt *v[CLI_OPTS_MAX];
    int n = cli_opts_flatten(table, v, CLI_OPTS_MAX);
    char buf[96];
    int width = 0;
    for (int i = 0; i < n; i++) {
        spec(v[i], buf, sizeof(buf));
        int len = (int)strlen(buf);
        if (len <= SPEC_MAX && len > width)
            width = len;
    }
    int col = 2 + width + 2;
    fputs("Options:\n", f);
    for (int i = 0; i < n; i++) {
        spec(v[i], buf, sizeof(buf));
        int len = (int)strlen(buf);
        if (len > width)
            fprintf(f, "  %s\n%*s", buf, col, "");
        else
            fprintf(f, "  %-*s  ", width, buf);
        wrap(f, v[i]->help ? v[i]->help : "", col, col);
    }
}

void cli_usage_print(FILE *f, const char *head, const struct cli_opt *table, const char *tail)
{
    fputs(head, f);
    fputc('\n', f);
    cli_opts_print(f, table);
    if (tail) {
        fputc('\n', f);
        fputs(tail, f);
    }
}
