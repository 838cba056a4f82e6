/* ktrust - command dispatch. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

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
WEAK int cmd_sbat(int, char **);
WEAK int cmd_verify_var(int, char **);
WEAK int cmd_check_update(int, char **);

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
    {"load-pe-key", cmd_load_pe_key, "load-pe-key FILE...: add the keys a trusted PE wraps"},
    {"wrap-key", cmd_wrap_key, "wrap-key CERT... -o OUT.efi: wrap certificates in a PE"},
    {"chain", cmd_chain, "chain --db FILE SHIM LOADER KERNEL [MODULE...]: simulate secure boot"},
    {"scan", cmd_scan, "scan PATH...: find and verify every signed object"},
    {"sbat", cmd_sbat, "sbat show PE...: the .sbat entries of PE images"},
    {"verify-var", cmd_verify_var,
     "verify-var FILE... --var NAME: verify signed EFI variable updates (db, dbx, KEK ...)"},
    {"check-update", cmd_check_update,
     "check-update [--dbx FILE]... [--sbat-level SPEC] PATH...: would an update revoke a boot file?"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: ktrust COMMAND [OPTIONS] [ARGS...]\n\n"
               "The Linux kernel's asymmetric-key trust system, in user space.\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(f, "  %s\n", commands[i].summary);
    fprintf(f, "\n'ktrust COMMAND --help' for a command's options; man ktrust(1) for more.\n"
               "exit codes: 0 trusted, 1 unsigned, 2 untrusted, 3 unsupported, 4 malformed,\n"
               "5 rejected, 6 refused, 64 usage, 66 unreadable input, 70 internal error\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
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
        return commands[i].fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "ktrust: unknown command '%s' (try 'ktrust --help')\n", argv[1]);
    return EXIT_USAGE;
}
