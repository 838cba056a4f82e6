/* ktrust - command dispatch. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_summary.h"

#define WEAK __attribute__((weak))
/* Commands are linked from their own files; weak references let a build
 * without one of them say so instead of failing to link. */
WEAK int cmd_x509(int, char **);
WEAK int cmd_keyring(int, char **);
WEAK int cmd_kernel_keys(int, char **);
WEAK int cmd_verify_pkcs7(int, char **);
WEAK int cmd_verify_module(int, char **);
WEAK int cmd_verify_pe(int, char **);
WEAK int cmd_load_pe_key(int, char **);
WEAK int cmd_wrap_key(int, char **);
WEAK int cmd_chain(int, char **);
WEAK int cmd_scan(int, char **);
WEAK int cmd_esl(int, char **);
WEAK int cmd_sbat(int, char **);
WEAK int cmd_verify_var(int, char **);
WEAK int cmd_check_update(int, char **);
WEAK int cmd_audit(int, char **);
WEAK int cmd_plan_updates(int, char **);
WEAK int cmd_eventlog(int, char **);
WEAK int cmd_unseal_check(int, char **);
WEAK int cmd_uki(int, char **);
WEAK int cmd_ima_list(int, char **);
WEAK int cmd_verify_ima(int, char **);

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"x509", cmd_x509, "x509 show FILE...: parse certificates and print them"},
    {"keyring", cmd_keyring, "keyring list|add|remove|export|push|create: manage the key store"},
    {"kernel-keys", cmd_kernel_keys, "kernel-keys VMLINUZ: the builtin keys compiled into a kernel"},
    {"verify-pkcs7", cmd_verify_pkcs7, "verify-pkcs7 SIG [--data FILE]: verify a PKCS#7 message"},
    {"verify-module", cmd_verify_module, "verify-module FILE...: verify kernel module signatures"},
    {"verify-pe", cmd_verify_pe, "verify-pe FILE...: verify Authenticode signatures of PE images"},
    {"verify-ima", cmd_verify_ima, "verify-ima FILE...: verify IMA file signatures (security.ima, FILE.sig, modsig)"},
    {"load-pe-key", cmd_load_pe_key, "load-pe-key FILE...: add the keys a trusted PE wraps"},
    {"wrap-key", cmd_wrap_key, "wrap-key CERT... -o OUT.efi: wrap certificates in a PE"},
    {"chain", cmd_chain, "chain --db FILE SHIM LOADER KERNEL [MODULE...]: simulate secure boot"},
    {"scan", cmd_scan, "scan PATH...: find and verify every signed object"},
    {"esl", cmd_esl, "esl show FILE...: what EFI signature lists (db, dbx, MokList) hold"},
    {"sbat", cmd_sbat, "sbat show PE...: the .sbat entries of PE images"},
    {"uki", cmd_uki, "uki show|verify UKI...: a Unified Kernel Image's sections, verdict and PCR 11; uki entries ESP: systemd-boot's menu, what boots next"},
    {"verify-var", cmd_verify_var,
     "verify-var FILE... --var NAME: verify signed EFI variable updates (db, dbx, KEK ...)"},
    {"check-update", cmd_check_update,
     "check-update [--dbx FILE]... [--sbat-level SPEC] PATH...: would an update revoke a boot file?"},
    {"audit", cmd_audit,
     "audit [--root DIR] [--esp DIR] [--efivars DIR] [--dbx FILE]...: is this system's boot chain sound?"},
    {"plan-updates", cmd_plan_updates,
     "plan-updates [--efivars DIR] [--esp DIR] UPDATES...: which signed db/dbx/KEK updates apply, in what order"},
    {"eventlog", cmd_eventlog,
     "eventlog [LOG] [--pcrs FILE] [--predict]: parse, replay and check a TCG event log; predict PCR 7"},
    {"ima-list", cmd_ima_list,
     "ima-list [LIST] [--pcrs FILE] [--eventlog LOG]: read the IMA measurement list, replay PCR 10, check it"},
    {"unseal-check", cmd_unseal_check,
     "unseal-check DEVICE... [--eventlog LOG] [--efivars DIR] [--apply FILE]: do the TPM-sealed LUKS2 keys unseal, today and after a change"},
};

static const struct cli_opt opts[] = {
    CLI_OPTS(cli_opts_common),
    CLI_OPT("version", 'V', no_argument, 'V', NULL, "print the version and exit"),
    {0},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: ktrust [OPTIONS] COMMAND [OPTIONS] [ARGS...]\n\n"
               "The Linux kernel's asymmetric-key trust system, in user space.\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(f, "  %s\n", commands[i].summary);
    fputs("\nThe common options (all but -h and -V) may come before the command too, for\n"
          "the commands that take them ('ktrust COMMAND --help' lists a command's options;\n"
          "man ktrust(1) says more).\n",
          f);
    cli_usage_print(f, "", opts,
                    "exit codes: 0 trusted, 1 unsigned, 2 untrusted, 3 unsupported, 4 malformed,\n"
                    "5 rejected, 6 refused, 7 not ready (audit --require-ready), 64 usage, 66 unreadable\n"
                    "input, 70 internal error\n");
}

/* Is argv[*i] one of the common options (not -h)?  Then skip it and its
 * argument (*i moves to the last word it takes) and return true. */
static bool skip_common_option(int argc, char **argv, int *i)
{
    const struct cli_opt *v[CLI_OPTS_MAX];
    int n = cli_opts_flatten(cli_opts_common, v, CLI_OPTS_MAX);
    const char *a = argv[*i];
    for (int k = 0; k < n; k++) {
        const struct cli_opt *o = v[k];
        bool arg = o->has_arg == required_argument;
        size_t len = o->long_name ? strlen(o->long_name) : 0;
        bool is_long = len && !strncmp(a, "--", 2) && !strncmp(a + 2, o->long_name, len);
        if (o->id == 'h')
            continue;
        if (is_long && arg && a[2 + len] == '=')
            return true; /* --store=PATH */
        if (!(is_long && !a[2 + len]) && !(o->short_name && a[1] == o->short_name && !a[2]))
            continue;
        if (arg && ++*i >= argc)
            return false; /* --store with no PATH */
        return true;
    }
    return false;
}

/* "ktrust: options before the command may only be --store, ..., -v" */
static int refuse_global_options(void)
{
    const struct cli_opt *v[CLI_OPTS_MAX];
    int n = cli_opts_flatten(cli_opts_common, v, CLI_OPTS_MAX);
    fputs("ktrust: options before the command may only be", stderr);
    for (int k = 0, first = 1; k < n; k++) {
        if (v[k]->id == 'h')
            continue;
        if (v[k]->short_name)
            fprintf(stderr, "%s -%c", first ? "" : ",", v[k]->short_name);
        else
            fprintf(stderr, "%s --%s", first ? "" : ",", v[k]->long_name);
        first = 0;
    }
    fputs(" (try 'ktrust --help')\n", stderr);
    return EXIT_USAGE;
}

/* Global options may come before the command ("ktrust --json verify-pe F",
 * "ktrust --store S keyring list"): they are moved after it.  Returns the
 * new argv (argv[0] is the program), or NULL when the options before the
 * command are not the common ones (a usage error). */
static char **hoist_global_options(int argc, char **argv, int *new_argc)
{
    int i = 1;
    while (i < argc && argv[i][0] == '-' && strcmp(argv[i], "--help") && strcmp(argv[i], "-h") &&
           strcmp(argv[i], "--version") && strcmp(argv[i], "-V")) {
        if (!skip_common_option(argc, argv, &i))
            return NULL;
        i++;
    }
    if (i == 1 || i >= argc) {
        *new_argc = i >= argc ? 1 : argc; /* options but no command: usage */
        return argv;
    }
    /* [prog, globals (1..i-1), command, rest...] -> [prog, command, rest..., globals]
     * (the commands' getopt permutes, so options may come last); before a
     * "--" if there is one */
    char **v = calloc((size_t)argc + 1, sizeof(*v));
    if (!v)
        return NULL;
    int o = 0, dd = argc;
    for (int j = i; j < argc; j++)
        if (!strcmp(argv[j], "--")) {
            dd = j;
            break;
        }
    v[o++] = argv[0];
    for (int j = i; j < dd; j++)
        v[o++] = argv[j];
    for (int j = 1; j < i; j++)
        v[o++] = argv[j];
    for (int j = dd; j < argc; j++)
        v[o++] = argv[j];
    *new_argc = o;
    return v;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
    cli_hints_register();
    if (argc >= 2 && argv[1][0] == '-') {
        int n;
        char **v = hoist_global_options(argc, argv, &n);
        if (!v)
            return refuse_global_options();
        int rc = dispatch(n, v);
        if (v != argv)
            free(v);
        return rc;
    }
    return dispatch(argc, argv);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("ktrust 0.1.0\n");
        return 0;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        if (!commands[i].fn) {
            fprintf(stderr, "ktrust: %s: not available in this build\n", argv[1]);
            return EXIT_INTERNAL;
        }
        cli_command = commands[i].name;
        cli_json_run_start(argc - 1, argv + 1);
        return cli_json_run_end(commands[i].fn(argc - 1, argv + 1));
    }
    fprintf(stderr, "ktrust: unknown command '%s' (try 'ktrust --help')\n", tx(argv[1]));
    return EXIT_USAGE;
}
