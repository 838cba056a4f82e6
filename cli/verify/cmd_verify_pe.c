/* ktrust verify-pe FILE... : Authenticode verification of PE/COFF images. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sbat_print.h"
#include "json_summary.h"
#include "verdict_print.h"


enum { OPT_PURPOSE = OPT_FIRST_PRIVATE, OPT_SBAT_LEVEL };

static const struct cli_opt opts[] = {
    CLI_OPT("purpose", 0, required_argument, OPT_PURPOSE, "uefi|kexec",
            "which keyrings vouch, through which signatures (default uefi)"),
    CLI_OPT("allow-sha1", 0, no_argument, OPT_ALLOW_SHA1, NULL,
            "accept SHA-1 image digests (refused as unsupported, 3, without it; MD5 never)"),
    CLI_OPT("check-time", 0, optional_argument, OPT_CHECK_TIME, "T",
            "refuse a chain certificate outside its validity at T (ISO 8601 UTC, default "
            "now), as the kernel never does for images"),
    CLI_OPT("sbat-level", 0, required_argument, OPT_SBAT_LEVEL, "SPEC",
            "a payload file, an efivarfs SbatLevel dump, original, automatic, latest, "
            "shim:FILE[:latest|:automatic]: an image whose .sbat that level revokes is "
            "rejected, as shim rejects it"),
    CLI_OPTS(cli_opts_verify),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust verify-pe FILE... [--trust FILE]... [--trust-system] [--store PATH]\n"
        "                        [--kernel VMLINUZ] [--keyring NAME]... [--purpose uefi|kexec]\n"
        "                        [--allow-sha1] [--check-time[=T]] [--sbat-level SPEC]\n"
        "                        [--json] [-q] [-v]\n"
        "Verify the Authenticode signatures of PE/COFF images (EFI binaries, kernels,\n"
        "Windows executables).  uefi (default): builtin, secondary, machine and platform\n"
        "keys vouch, through any top-level signature; kexec: the first signature only.\n"
        "Nested signatures never vouch.  Each signature's details are always shown;\n"
        "-v adds which store is used.\n",
        opts,
        "Exit code: the verdict (0 trusted, 1 unsigned, 2 untrusted, 3 unsupported,\n"
        "4 malformed, 5 rejected); the highest over all files; 64 usage (also an option's\n"
        "file of the wrong kind), 66 unreadable input or store.\n");
}

static void uki_flag_json(struct jw *w, const void *ctx)
{
    (void)ctx;
    jw_bool(w, "uki", true);
}

static void uki_flag_text(FILE *f, const void *ctx)
{
    (void)ctx;
    fprintf(f, "  a unified kernel image: 'ktrust uki verify' shows its sections and PCR 11\n");
}

int cmd_verify_pe(int argc, char **argv)
{
    struct cli_common co = {0};
    struct kt_policy pol = {.type = KT_VERIFY_PE};
    const char *sbat_spec = NULL;
    struct cli_getopt g;
    int c;
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        int r = cli_common_opt(&co, c, optarg);
        if (r == 0)
            r = cli_policy_opt(&pol, c, optarg, "verify-pe", argc, argv);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case 'h': usage(stdout); return 0;
        case OPT_SBAT_LEVEL: sbat_spec = optarg; break;
        case OPT_PURPOSE:
            if (cli_parse_verify_purpose(optarg, false, &pol.purpose) < 0)
                return cli_usage_error("verify-pe", "unknown purpose '%s' (uefi or kexec)",
                                       optarg);
            break;
        default: return EXIT_USAGE; /* cli_getopt said why */
        }
    }
    if (optind >= argc)
        return cli_usage_error("verify-pe", "no file given");

    struct kt_sbat_level *level = NULL;
    if (sbat_spec) {
        struct kt_error le = KT_ERROR_INIT;
        int lrc = kt_sbat_level_open(sbat_spec, &level, &le);
        if (lrc < 0) {
            cli_error(sbat_spec, &le);
            return cli_exit_code(lrc);
        }
        pol.sbat_level = level;
    }
    struct kt_ctx *ctx = NULL;
    int rc = vp_open_ctx(&co, &ctx, "pe", argv + optind, argc - optind);
    if (rc > 0) {
        kt_sbat_level_close(level);
        return rc;
    }
    int worst = 0;
    struct cli_tally tally = {0};
    for (int i = optind; i < argc; i++) {
        const char *path = argv[i];
        struct kt_error e = KT_ERROR_INIT;
        struct kt_result *r = NULL;
        rc = kt_verify_file(ctx, path, &pol, &r, &e);
        if (!r) {
            vp_print_unreadable(path, "pe", rc, &e, co.json);
        } else {
            struct vp_result vr;
            vp_from_result(&vr, path, r);
            struct cli_sbat cs;
            if (kt_result_sbat(r, &cs.sbat, &cs.level, &cs.img, &cs.lvl, &cs.rc)) {
                vr.extra_json = cli_sbat_json;
                vr.extra_text = cli_sbat_text;
                vr.extra_ctx = &cs;
            }
            if (kt_result_uki(r) && !vr.extra_json) { /* a UKI: said, and where its parts are shown */
                vr.extra_json = uki_flag_json;
                vr.extra_text = uki_flag_text;
            }
            vp_print(&vr, co.json, co.quiet, true);
            if (kt_verdict_of(rc) == KT_MALFORMED || kt_verdict_of(rc) == KT_INTERNAL)
                cli_error(path, kt_result_error(r)); /* the one-line error with its offset */
            kt_result_free(r);
        }
        cli_tally_add(&tally, rc, r != NULL);
        int code = cli_exit_code(rc);
        if (code > worst)
            worst = code;
    }
    if (co.json && argc - optind > 1)
        cli_tally_summary(&tally, stdout, worst, false);
    kt_ctx_free(ctx);
    kt_sbat_level_close(level);
    return worst;
}
