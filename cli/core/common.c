#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char cli_system_bundle[] = CLI_SYSTEM_BUNDLE;

/* The advice the library leaves to us: the options that change its answer. */
void cli_hints_register(void)
{
    static const struct {
        enum kt_hint hint;
        const char *text;
    } hints[] = {
        {KT_HINT_ALLOW_SHA1, " (use --allow-sha1 to accept it)"},
        {KT_HINT_ALLOW_SHA1_BRIEF, " (use --allow-sha1)"},
        {KT_HINT_DETACHED_DATA, " (--data)"},
        {KT_HINT_SUPPLY_KEY, " (supply the key with --trust, --kernel or --store)"},
        {KT_HINT_SUPPLY_ROOT, " (supply it with --trust or --store)"},
        {KT_HINT_SUPPLY_ISSUER, " (supply the issuer with --trust, --kernel or --store)"},
        {KT_HINT_PLATFORM_VOUCH, " (use --keyring platform, or --trust its authority for this run)"},
        {KT_HINT_PK, " (--pk)"},
        {KT_HINT_PK_KEK, " (--pk, --kek)"},
        {KT_HINT_NO_STORE, " (--store and $KTRUST_STORE name an existing store; "
                           "'ktrust keyring add' makes one)"},
        {KT_HINT_NO_STORE_KEYRING, " (keys are stored by 'ktrust keyring add'; "
                                   "--store PATH or $KTRUST_STORE picks another)"},
        {KT_HINT_NO_KEYRING, " (see keyring list)"},
        {KT_HINT_STORE_NONE, " (--trust/--kernel keys only; --store PATH adds one)"},
        {KT_HINT_NAME_TRUST, "--trust"},
        {KT_HINT_NAME_KERNEL, "--kernel"},
        {KT_HINT_NAME_KEYRING, "--keyring"},
    };
    for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
        kt_hint_set(hints[i].hint, hints[i].text);
}

int cli_policy_opt(struct kt_policy *pol, int c, const char *arg, const char *cmd,
                   int argc, char **argv)
{
    int64_t t;
    switch (c) {
    case OPT_ALLOW_SHA1: pol->allow_sha1 = true; return 1;
    case OPT_CHECK_TIME:
        pol->check_time = true;
        if (!arg && optind < argc && kt_parse_time(argv[optind], &t) == 0) {
            cli_usage_error(cmd, "--check-time takes its time after '=': write "
                                 "--check-time=%s ('%s' would be read as a file and the "
                                 "check made now)", argv[optind], argv[optind]);
            return -1;
        }
        if (kt_parse_time(arg, &pol->at_time) < 0) {
            cli_usage_error(cmd, "bad time '%s' (want 2026-12-02T22:14:16Z)", arg);
            return -1;
        }
        return 1;
    default: return 0;
    }
}

int cli_common_opt(struct cli_common *co, int c, const char *arg)
{
    switch (c) {
    case OPT_STORE: co->store = arg; return 1;
    case OPT_TRUST:
        if (co->n_trust >= CLI_MAX_TRUST) {
            fprintf(stderr, "ktrust: too many --trust options (at most %d)\n", CLI_MAX_TRUST);
            return -1;
        }
        co->trust[co->n_trust++] = arg;
        return 1;
    case OPT_TRUST_SYSTEM:
        if (co->n_trust >= CLI_MAX_TRUST) {
            fprintf(stderr, "ktrust: too many --trust options (at most %d)\n", CLI_MAX_TRUST);
            return -1;
        }
        co->trust[co->n_trust++] = cli_system_bundle;
        return 1;
    case OPT_KERNEL: co->kernel = arg; return 1;
    case OPT_VOUCH_RING:
        if (co->n_vouch >= CLI_MAX_TRUST) {
            fprintf(stderr, "ktrust: too many --keyring options (at most %d)\n", CLI_MAX_TRUST);
            return -1;
        }
        co->vouch[co->n_vouch++] = arg;
        return 1;
    case OPT_JSON: co->json = true; return 1;
    case 'q': co->quiet = true; return 1;
    case 'v': co->verbose = true; return 1;
    default: return 0;
    }
}

static char first_error[512]; /* "FILE: WHAT", the run's first error ("" none) */

const char *cli_first_error(void)
{
    return first_error[0] ? first_error : NULL;
}

/* Keep the first error (the cause) for --json's summary; ap stays unread. */
static void note_verror(const char *who, const char *fmt, va_list ap)
{
    if (first_error[0])
        return;
    size_t n = who ? (size_t)snprintf(first_error, sizeof(first_error), "%s: ", who) : 0;
    if (n >= sizeof(first_error))
        return;
    va_list cp;
    va_copy(cp, ap);
    vsnprintf(first_error + n, sizeof(first_error) - n, fmt, cp);
    va_end(cp);
}

static void note_error(const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    note_verror(who, fmt, ap);
    va_end(ap);
}

void cli_error(const char *file, const struct kt_error *e)
{
    const char *what = e && e->what[0] ? e->what : "failed";
    note_error(file, "%s", what);
    if (file)
        fprintf(stderr, "ktrust: %s: %s", tx(file), tx(what));
    else
        fprintf(stderr, "ktrust: %s", tx(what));
    if (e && e->offset != KT_NO_OFFSET)
        fprintf(stderr, " (at offset %zu)", e->offset);
    fputc('\n', stderr);
}

void cli_errorf(const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    note_verror(file, fmt, ap);
    if (file)
        fprintf(stderr, "ktrust: %s: ", tx(file));
    else
        fputs("ktrust: ", stderr);
    cli_text_escape_vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int cli_exit_code(int rc)
{
    switch (rc) {
    case -ENOENT:
    case -EACCES:
    case -EISDIR:
    case -EFBIG:
    case -ENOTDIR:
    case -EIO: return EXIT_NOINPUT;
    case -ESRCH: return EXIT_USAGE; /* an option names a keyring that does not exist */
    case -EMEDIUMTYPE: return EXIT_USAGE; /* an option given the wrong kind of file */
    default: break;
    }
    enum kt_verdict v = kt_verdict_of(rc);
    return (int)v;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    note_verror(cmd, fmt, ap);
    fprintf(stderr, "ktrust %s: ", cmd);
    cli_text_escape_vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (try 'ktrust %s --help')\n", cmd);
    va_end(ap);
    return EXIT_USAGE;
}

bool cli_store_is_default(const struct cli_common *co)
{
    const char *env = getenv("KTRUST_STORE");
    return !co->store && !(env && *env);
}

const char *cli_store_path(const struct cli_common *co, char *buf, size_t cap)
{
    if (co->store)
        return co->store;
    const char *env = getenv("KTRUST_STORE");
    if (env && *env)
        return env;
    if (co->n_trust > 0 || co->kernel)
        return NULL; /* --trust/--kernel without --store: no store is opened */
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg)
        snprintf(buf, cap, "%s/ktrust/keyrings.db", xdg);
    else
        snprintf(buf, cap, "%s/.local/share/ktrust/keyrings.db", home ? home : ".");
    return buf;
}

const char *cli_cache_dir(char *buf, size_t cap)
{
    const char *env = getenv("KTRUST_CACHE");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (env && *env)
        n = strcmp(env, "off") ? snprintf(buf, cap, "%s", env) : -1;
    else if (xdg && *xdg)
        n = snprintf(buf, cap, "%s/ktrust", xdg);
    else if (home && *home)
        n = snprintf(buf, cap, "%s/.cache/ktrust", home);
    else
        n = -1;
    return n > 0 && (size_t)n < cap ? buf : NULL;
}

int cli_parse_verify_purpose(const char *s, bool module_ok, enum kt_verify_purpose *p)
{
    static const struct {
        const char *name;
        enum kt_verify_purpose p;
        bool module;
    } names[] = {{"uefi", KT_VERIFY_PURPOSE_UEFI, false},
                 {"kexec", KT_VERIFY_PURPOSE_KEXEC, false},
                 {"module", KT_VERIFY_PURPOSE_MODULE, true},
                 {"builtin", KT_VERIFY_PURPOSE_BUILTIN, true}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(s, names[i].name) && (module_ok || !names[i].module)) {
            *p = names[i].p;
            return 0;
        }
    return -1;
}
