/* ktrust verify-pkcs7 SIG [--data FILE] : PKCS#7 / CMS signed data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pkcs7/pkcs7.h"
#include "util/file.h"
#include "pkcs7/pkcs7_check.h"
#include "scan/detect.h"
#include "verdict_print.h"

enum { OPT_CHECK_TIME = OPT_FIRST_PRIVATE, OPT_ALLOW_SHA1, OPT_DATA, OPT_PURPOSE };

static void usage(FILE *f)
{
    fputs("usage: ktrust verify-pkcs7 SIG [--data FILE] [--trust FILE]... [--store PATH]\n"
          "                            [--kernel VMLINUZ] [--purpose module|uefi|kexec|builtin]\n"
          "                            [--keyring NAME]... [--check-time[=ISO-TIME]] [--allow-sha1]\n"
          "                            [--json] [-q] [-v]\n"
          "Verify a PKCS#7/CMS signed-data message (DER, BER or PEM), attached or detached\n"
          "(--data: the signed content).  Keys vouch as for kernel modules (builtin,\n"
          "secondary, machine) unless --purpose says otherwise; --keyring NAME lets another\n"
          "keyring vouch for this run.  Exit code: the verdict (0 trusted, 1 unsigned,\n"
          "2 untrusted, 3 unsupported, 4 malformed, 5 rejected).\n"
          "Common options: --trust FILE (also --cert; repeatable; a certificate the\n"
          "strict parser refuses is skipped with a warning), --trust-system (the\n"
          "distribution CA bundle), --store PATH, --kernel VMLINUZ, --json (one NDJSON\n"
          "object per input), -q, -v (each signature's details and which store is used).\n"
          "An option's file of the wrong kind: 64; unreadable input or store: 66.\n",
          f);
}

int cmd_verify_pkcs7(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_VERIFY_LONGOPTS,
        {"data", required_argument, NULL, OPT_DATA},
        {"purpose", required_argument, NULL, OPT_PURPOSE},
        {"check-time", optional_argument, NULL, OPT_CHECK_TIME},
        {"allow-sha1", no_argument, NULL, OPT_ALLOW_SHA1},
        {NULL, 0, NULL, 0},
    };
    struct cli_common co = {0};
    struct kt_pkcs7_policy policy = {0};
    enum kt_purpose purpose = kt_ftype_purpose(KT_FT_PKCS7);
    bool purpose_given = false, verbose = false;
    const char *data_path = NULL;
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
        case OPT_DATA: data_path = optarg; break;
        case OPT_ALLOW_SHA1: policy.allow_sha1 = true; break;
        case OPT_PURPOSE:
            purpose_given = true;
            if (cli_parse_purpose(optarg, true, &purpose) < 0)
                return cli_usage_error("verify-pkcs7", "unknown purpose '%s'", optarg);
            break;
        case OPT_CHECK_TIME:
            policy.check_time = true;
            if (vp_parse_time(optarg, &policy.at_time) < 0)
                return cli_usage_error("verify-pkcs7", "bad time '%s' (want 2026-12-02T22:14:16Z)",
                                       optarg);
            break;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    verbose = co.verbose;
    if (!policy.check_time)
        vp_parse_time(NULL, &policy.at_time);
    if (optind != argc - 1)
        return cli_usage_error("verify-pkcs7", optind >= argc ? "no signature given"
                                                              : "exactly one signature file");
    const char *path = argv[optind];

    struct kt_error err = {0};
    struct kt_file sig, data = {0};
    int rc = kt_file_open(path, &sig, &err);
    if (rc < 0) {
        vp_print_unreadable(path, "pkcs7", rc, &err, co.json);
        return cli_exit_code(rc);
    }
    if (data_path && (rc = kt_file_open(data_path, &data, &err)) < 0) {
        cli_error(data_path, &err);
        char why[sizeof(err.what)];
        snprintf(why, sizeof(why), "%s", err.what);
        kt_fail_over(&err, rc, KT_NO_OFFSET, "--data %s: %s", data_path, why);
        cli_json_setup_failed(&co, "pkcs7", argv + optind, 1, rc, &err);
        kt_file_close(&sig);
        return cli_exit_code(rc);
    }
    struct kt_keyrings *rings = NULL;
    struct kt_store *store = NULL;
    int code = vp_load_keyrings(&co, &rings, &store, "pkcs7", argv + optind, argc - optind);
    if (code) {
        kt_file_close(&sig);
        if (data_path)
            kt_file_close(&data);
        return code;
    }

    struct kt_pkcs7_check chk;
    rc = kt_pkcs7_check(sig.data, sig.len, data_path ? data.data : NULL, data_path ? data.len : 0,
                        rings, purpose, purpose_given, &policy, &chk, &err);
    struct kt_pkcs7 *msg = chk.msg;

    struct vp_sig sigs[64];
    size_t n = 0;
    for (size_t i = 0; msg && i < msg->n_signers && n < 64; i++) {
        vp_sig_from_pkcs7(&sigs[n], &msg->signers[i], err.what);
        n++;
    }
    struct vp_result r = {
        .file = path, .type = "pkcs7", .rc = rc, .error = &err, .sigs = sigs, .n_sigs = n,
    };
    vp_print(&r, co.json, co.quiet, verbose);
    if (rc < 0 && kt_verdict_of(rc) >= KT_MALFORMED && kt_verdict_of(rc) != KT_REJECTED &&
        !co.quiet)
        cli_error(path, &err);

    kt_pkcs7_check_free(&chk);
    vp_unload_keyrings(rings, store);
    kt_file_close(&sig);
    if (data_path)
        kt_file_close(&data);
    return cli_exit_code(rc);
}
