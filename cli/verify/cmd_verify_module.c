/* ktrust verify-module FILE... : kernel module appended signatures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_summary.h"
#include "verdict_print.h"

static const struct cli_opt opts[] = {
    CLI_OPTS(cli_opts_policy),
    CLI_OPTS(cli_opts_verify),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust verify-module FILE... [--trust FILE]... [--store PATH]\n"
        "                            [--kernel VMLINUZ] [--check-time[=ISO-TIME]]\n"
        "                            [--keyring NAME]... [--allow-sha1] [--json] [-q] [-v]\n"
        "Verify the appended signatures of kernel modules (.ko, .ko.xz, .ko.zst, .ko.gz)\n"
        "as the kernel does (builtin, secondary and machine keys vouch; platform and\n"
        "user keyrings never, unless named for this run with --keyring NAME).\n"
        "A Debian --kernel also searches platform when those find no key (Debian's\n"
        "db-mok-keyring patch), and refuses a module whose whole file's SHA-256 is a\n"
        "blacklisted bin: hash (dbx); without --kernel, mainline's rule.\n",
        opts,
        "Exit code: the verdict (0 trusted, 1 unsigned, 2 untrusted, 3 unsupported,\n"
        "4 malformed, 5 rejected), the highest over all files; an option's file of the\n"
        "wrong kind: 64; unreadable input or store: 66.\n");
}

static int verify_one(const char *path, const struct kt_ctx *ctx, const struct kt_policy *pol,
                      const struct cli_common *co, bool verbose, struct cli_tally *t)
{
    struct kt_error err = KT_ERROR_INIT;
    struct kt_result *res = NULL;
    int rc = kt_verify_file(ctx, path, pol, &res, &err);
    cli_tally_add(t, rc, res != NULL);
    if (!res) {
        vp_print_unreadable(path, "module", rc, &err, co->json);
        return cli_exit_code(rc);
    }
    struct vp_result r;
    vp_from_result(&r, path, res);
    vp_print(&r, co->json, co->quiet, verbose);
    if (rc < 0 && kt_verdict_of(rc) >= KT_MALFORMED && kt_verdict_of(rc) != KT_REJECTED &&
        !co->quiet)
        cli_error(path, kt_result_error(res));
    kt_result_free(res);
    return cli_exit_code(rc);
}

int cmd_verify_module(int argc, char **argv)
{
    struct cli_common co = {0};
    struct kt_policy policy = {.type = KT_VERIFY_MODULE};
    bool verbose = false;
    struct cli_getopt g;
    int c;
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        int r = cli_common_opt(&co, c, optarg);
        if (r == 0)
            r = cli_policy_opt(&policy, c, optarg, "verify-module", argc, argv);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case 'h': usage(stdout); return 0;
        default: return EXIT_USAGE; /* cli_getopt said why */
        }
    }
    verbose = co.verbose;
    if (optind >= argc)
        return cli_usage_error("verify-module", "no module given");

    struct kt_ctx *ctx;
    int code = vp_open_ctx(&co, &ctx, "module", argv + optind, argc - optind);
    if (code)
        return code;
    int worst = 0;
    struct cli_tally tally = {0};
    for (int i = optind; i < argc; i++) {
        int e = verify_one(argv[i], ctx, &policy, &co, verbose, &tally);
        if (e > worst)
            worst = e;
    }
    if (co.json && argc - optind > 1)
        cli_tally_summary(&tally, stdout, worst, false);
    kt_ctx_free(ctx);
    return worst;
}
