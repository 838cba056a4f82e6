/* ktrust verify-pkcs7 SIG [--data FILE] : PKCS#7 / CMS signed data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ktrust/advanced.h"
#include "verdict_print.h"

enum { OPT_DATA = OPT_FIRST_PRIVATE, OPT_PURPOSE };

static const struct cli_opt opts[] = {
    CLI_OPT("data", 0, required_argument, OPT_DATA, "FILE",
            "the signed content of a detached signature"),
    CLI_OPT("purpose", 0, required_argument, OPT_PURPOSE, "module|uefi|kexec|builtin",
            "which keyrings vouch and which content rules apply (default: as for modules)"),
    CLI_OPTS(cli_opts_policy),
    CLI_OPTS(cli_opts_verify),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust verify-pkcs7 SIG [--data FILE] [--trust FILE]... [--store PATH]\n"
        "                            [--kernel VMLINUZ] [--purpose module|uefi|kexec|builtin]\n"
        "                            [--keyring NAME]... [--check-time[=ISO-TIME]] [--allow-sha1]\n"
        "                            [--json] [-q] [-v]\n"
        "Verify a PKCS#7/CMS signed-data message (DER, BER or PEM), attached or detached\n"
        "(--data: the signed content).  Keys vouch as for kernel modules (builtin,\n"
        "secondary, machine) unless --purpose says otherwise; --keyring NAME lets another\n"
        "keyring vouch for this run.\n",
        opts,
        "Exit code: the verdict (0 trusted, 1 unsigned, 2 untrusted, 3 unsupported,\n"
        "4 malformed, 5 rejected); an option's file of the wrong kind: 64; unreadable\n"
        "input or store: 66.\n");
}

int cmd_verify_pkcs7(int argc, char **argv)
{
    struct cli_common co = {0};
    struct kt_policy policy = {.type = KT_VERIFY_PKCS7};
    bool verbose = false;
    const char *data_path = NULL;
    struct cli_getopt g;
    int c;
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        int r = cli_common_opt(&co, c, optarg);
        if (r == 0)
            r = cli_policy_opt(&policy, c, optarg, "verify-pkcs7", argc, argv);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case 'h': usage(stdout); return 0;
        case OPT_DATA: data_path = optarg; break;
        case OPT_PURPOSE:
            if (cli_parse_verify_purpose(optarg, true, &policy.purpose) < 0)
                return cli_usage_error("verify-pkcs7", "unknown purpose '%s'", optarg);
            break;
        default: return EXIT_USAGE; /* cli_getopt said why */
        }
    }
    verbose = co.verbose;
    if (optind != argc - 1)
        return cli_usage_error("verify-pkcs7", optind >= argc ? "no signature given"
                                                              : "exactly one signature file");
    const char *path = argv[optind];

    struct kt_error err = KT_ERROR_INIT;
    struct kt_file sig, data = {0};
    int rc = kt_file_open(path, &sig, &err);
    if (rc < 0) {
        vp_print_unreadable(path, "pkcs7", rc, &err, co.json);
        return cli_exit_code(rc);
    }
    if (data_path && (rc = kt_file_open(data_path, &data, &err)) < 0) {
        cli_error(data_path, &err);
        struct kt_error de = err;
        kt_error_prefix(&de, "--data %s", data_path);
        de.offset = KT_NO_OFFSET;
        cli_json_setup_failed(&co, "pkcs7", argv + optind, 1, rc, &de);
        kt_file_close(&sig);
        return cli_exit_code(rc);
    }
    struct kt_ctx *ctx = NULL;
    int code = vp_open_ctx(&co, &ctx, "pkcs7", argv + optind, argc - optind);
    if (code) {
        kt_file_close(&sig);
        if (data_path)
            kt_file_close(&data);
        return code;
    }
    if (data_path) {
        policy.has_detached = true;
        policy.detached = data.data;
        policy.detached_len = data.len;
    }
    struct kt_result *res = NULL;
    rc = kt_verify_buf(ctx, path, sig.data, sig.len, &policy, &res, &err);
    if (!res) {
        vp_print_unreadable(path, "pkcs7", rc, &err, co.json);
    } else {
        struct vp_result r;
        vp_from_result(&r, path, res);
        vp_print(&r, co.json, co.quiet, verbose);
        if (rc < 0 && kt_verdict_of(rc) >= KT_MALFORMED && kt_verdict_of(rc) != KT_REJECTED &&
            !co.quiet)
            cli_error(path, kt_result_error(res));
    }
    kt_result_free(res);
    kt_ctx_free(ctx);
    kt_file_close(&sig);
    if (data_path)
        kt_file_close(&data);
    return cli_exit_code(rc);
}
