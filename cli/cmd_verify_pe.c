/* ktrust verify-pe FILE... : Authenticode verification of PE/COFF images. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sbat_print.h"
#include "verdict_print.h"


enum { OPT_PURPOSE = OPT_FIRST_PRIVATE, OPT_ALLOW_SHA1, OPT_CHECK_TIME, OPT_SBAT_LEVEL };

static void usage(FILE *f)
{
    fputs("usage: ktrust verify-pe FILE... [--trust FILE]... [--trust-system] [--store PATH]\n"
          "                        [--kernel VMLINUZ] [--keyring NAME]... [--purpose uefi|kexec]\n"
          "                        [--allow-sha1] [--check-time[=T]] [--sbat-level SPEC]\n"
          "                        [--json] [-q] [-v]\n"
          "Verify the Authenticode signatures of PE/COFF images (EFI binaries, kernels,\n"
          "Windows executables).  uefi (default): builtin, secondary, machine and platform\n"
          "keys vouch, through any top-level signature; kexec: the first signature only.\n"
          "Nested signatures never vouch.\n\n"
          "  --trust FILE     certificates or an EFI signature list trusted for this run\n"
          "                   (repeatable; --cert is the same, sbverify's name); a\n"
          "                   certificate the strict parser refuses is skipped with a warning\n"
          "  --trust-system   the distribution's CA bundle (" CLI_SYSTEM_BUNDLE ")\n"
          "  --keyring NAME   let that keyring (a user keyring, say) vouch in this run\n"
          "  --check-time[=T] refuse a chain certificate outside its validity at T (ISO 8601\n"
          "                   UTC, default now), as the kernel never does for images\n"
          "  --sbat-level SPEC  a payload file, an efivarfs SbatLevel dump, original,\n"
          "                   automatic, latest, shim:FILE[:latest|:automatic]: an image\n"
          "                   whose .sbat that level revokes is rejected, as shim rejects it\n"
          "  -v               which store is used\n\n"
          "Exit code: the verdict (0 trusted, 1 unsigned, 2 untrusted, 3 unsupported,\n"
          "4 malformed, 5 rejected); the highest over all files; 64 usage (also an option's\n"
          "file of the wrong kind), 66 unreadable input or store.\n",
          f);
}

int cmd_verify_pe(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_VERIFY_LONGOPTS,
        {"purpose", required_argument, NULL, OPT_PURPOSE},
        {"allow-sha1", no_argument, NULL, OPT_ALLOW_SHA1},
        {"check-time", optional_argument, NULL, OPT_CHECK_TIME},
        {"sbat-level", required_argument, NULL, OPT_SBAT_LEVEL},
        {NULL, 0, NULL, 0},
    };
    struct cli_common co = {0};
    struct kt_policy pol = {.type = KT_VERIFY_PE};
    const char *sbat_spec = NULL;
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
        case OPT_ALLOW_SHA1: pol.allow_sha1 = true; break;
        case OPT_CHECK_TIME:
            pol.check_time = true;
            if (kt_parse_time(optarg, &pol.at_time) < 0)
                return cli_usage_error("verify-pe", "bad time '%s' (want 2026-12-02T22:14:16Z)",
                                       optarg);
            break;
        case OPT_SBAT_LEVEL: sbat_spec = optarg; break;
        case OPT_PURPOSE:
            if (cli_parse_verify_purpose(optarg, false, &pol.purpose) < 0)
                return cli_usage_error("verify-pe", "unknown purpose '%s' (uefi or kexec)",
                                       optarg);
            break;
        default: return cli_usage_error("verify-pe", "bad option");
        }
    }
    if (optind >= argc)
        return cli_usage_error("verify-pe", "no file given");

    struct kt_sbat_level level = {0};
    if (sbat_spec) {
        int lrc = cli_sbat_level_load(sbat_spec, &level);
        if (lrc)
            return lrc;
    }
    if (sbat_spec)
        pol.sbat_level = &level;
    struct kt_ctx *ctx = NULL;
    int rc = vp_open_ctx(&co, &ctx, "pe", argv + optind, argc - optind);
    if (rc > 0) {
        kt_sbat_level_free(&level);
        return rc;
    }
    int worst = 0;
    for (int i = optind; i < argc; i++) {
        const char *path = argv[i];
        struct kt_error e = {0};
        struct kt_result *r = NULL;
        rc = kt_verify_file(ctx, path, &pol, &r, &e);
        if (!r) {
            vp_print_unreadable(path, "pe", rc, &e, co.json);
        } else {
            struct vp_result vr;
            vp_from_result(&vr, path, r);
            struct cli_sbat cs = {.sbat = &r->sbat, .level = r->sbat_level, .img = r->sbat_img,
                                  .lvl = r->sbat_lvl, .rc = r->sbat_rc};
            if (r->sbat_checked) {
                vr.extra_json = cli_sbat_json;
                vr.extra_text = cli_sbat_text;
                vr.extra_ctx = &cs;
            }
            vp_print(&vr, co.json, co.quiet, true);
            if (kt_verdict_of(rc) == KT_MALFORMED || kt_verdict_of(rc) == KT_INTERNAL)
                cli_error(path, &r->err); /* the one-line error with its offset */
            kt_result_free(r);
        }
        int code = cli_exit_code(rc);
        if (code > worst)
            worst = code;
    }
    kt_ctx_free(ctx);
    kt_sbat_level_free(&level);
    return worst;
}
