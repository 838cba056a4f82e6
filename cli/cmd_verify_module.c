/* ktrust verify-module FILE... : kernel module appended signatures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "modsig/modsig.h"
#include "util/file.h"
#include "result_vp.h"
#include "verdict_print.h"

enum { OPT_CHECK_TIME = OPT_FIRST_PRIVATE, OPT_ALLOW_SHA1 };

static void usage(FILE *f)
{
    fputs("usage: ktrust verify-module FILE... [--trust FILE]... [--store PATH]\n"
          "                            [--kernel VMLINUZ] [--check-time[=ISO-TIME]]\n"
          "                            [--keyring NAME]... [--allow-sha1] [--json] [-q] [-v]\n"
          "Verify the appended signatures of kernel modules (.ko, .ko.xz, .ko.zst, .ko.gz)\n"
          "as the kernel does (builtin, secondary and machine keys vouch; platform and\n"
          "user keyrings never, unless named for this run with --keyring NAME).  Exit code: the\n"
          "verdict (0 trusted, 1 unsigned, 2 untrusted, 3 unsupported, 4 malformed,\n"
          "5 rejected), the highest over all files.\n"
          "Common options: --trust FILE (also --cert; repeatable; a certificate the\n"
          "strict parser refuses is skipped with a warning), --trust-system (the\n"
          "distribution CA bundle), --store PATH, --kernel VMLINUZ, --json (one NDJSON\n"
          "object per input), -q, -v (each signature's details and which store is used).\n"
          "An option's file of the wrong kind: 64; unreadable input or store: 66.\n",
          f);
}

static int verify_one(const char *path, const struct kt_keyrings *rings,
                      const struct kt_pkcs7_policy *policy, const struct cli_common *co,
                      bool verbose)
{
    struct kt_error err = {0};
    struct kt_file f;
    int rc = kt_file_open(path, &f, &err);
    if (rc < 0) {
        vp_print_unreadable(path, "module", rc, &err, co->json);
        return cli_exit_code(rc);
    }
    struct kt_modsig_result res;
    memset(&res, 0, sizeof(res));
    res.policy = *policy;
    rc = kt_modsig_verify(f.data, f.len, rings, &res, &err);

    struct vp_sig sigs[8];
    size_t n = vp_sigs_from_module(sigs, 8, &res, rc, &err);
    struct vp_result r = {
        .file = path,
        .type = "module",
        .rc = rc,
        .error = &err,
        .sigs = sigs,
        .n_sigs = n,
        .compression = kt_modsig_comp_name(res.comp),
    };
    vp_print(&r, co->json, co->quiet, verbose);
    if (rc < 0 && kt_verdict_of(rc) >= KT_MALFORMED && kt_verdict_of(rc) != KT_REJECTED &&
        !co->quiet)
        cli_error(path, &err);
    kt_modsig_result_free(&res);
    kt_file_close(&f);
    return cli_exit_code(rc);
}

int cmd_verify_module(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_VERIFY_LONGOPTS,
        {"check-time", optional_argument, NULL, OPT_CHECK_TIME},
        {"allow-sha1", no_argument, NULL, OPT_ALLOW_SHA1},
        {NULL, 0, NULL, 0},
    };
    struct cli_common co = {0};
    struct kt_pkcs7_policy policy = {0};
    bool verbose = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qhv", longopts, NULL)) != -1) {
        int r = cli_common_opt(&co, c, optarg);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case 'h': usage(stdout); return 0;
        case OPT_ALLOW_SHA1: policy.allow_sha1 = true; break;
        case OPT_CHECK_TIME:
            policy.check_time = true;
            if (vp_parse_time(optarg, &policy.at_time) < 0)
                return cli_usage_error("verify-module", "bad time '%s' (want 2026-12-02T22:14:16Z)",
                                       optarg);
            break;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    verbose = co.verbose;
    if (!policy.check_time)
        vp_parse_time(NULL, &policy.at_time); /* dates are still reported */
    if (optind >= argc)
        return cli_usage_error("verify-module", "no module given");

    struct kt_keyrings *rings;
    struct kt_store *store;
    int code = vp_load_keyrings(&co, &rings, &store, "module", argv + optind, argc - optind);
    if (code)
        return code;
    int worst = 0;
    for (int i = optind; i < argc; i++) {
        int e = verify_one(argv[i], rings, &policy, &co, verbose);
        if (e > worst)
            worst = e;
    }
    vp_unload_keyrings(rings, store);
    return worst;
}
