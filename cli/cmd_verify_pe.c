/* ktrust verify-pe FILE... : Authenticode verification of PE/COFF images. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert_print.h"
#include "cli.h"
#include "result_vp.h"
#include "sbat_print.h"
#include "verdict_print.h"
#include "policy/keyrings.h"
#include "pe/pe_verify.h"
#include "scan/detect.h"
#include "util/file.h"
#include "x509/x509.h"


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
    struct kt_pe_verify_opts opts = {.purpose = kt_ftype_purpose(KT_FT_PE)};
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
        case OPT_ALLOW_SHA1: opts.allow_sha1 = true; break;
        case OPT_CHECK_TIME:
            opts.check_time = true;
            if (vp_parse_time(optarg, &opts.at_time) < 0)
                return cli_usage_error("verify-pe", "bad time '%s' (want 2026-12-02T22:14:16Z)",
                                       optarg);
            break;
        case OPT_SBAT_LEVEL: sbat_spec = optarg; break;
        case OPT_PURPOSE:
            if (cli_parse_purpose(optarg, false, &opts.purpose) < 0)
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
    struct kt_keyrings *rings = NULL;
    struct kt_store *store = NULL;
    int rc = vp_load_keyrings(&co, &rings, &store, "pe", argv + optind, argc - optind);
    if (rc > 0) {
        kt_sbat_level_free(&level);
        return rc;
    }
    int worst = 0;
    for (int i = optind; i < argc; i++) {
        const char *path = argv[i];
        struct kt_file f;
        struct kt_error e = {0};
        struct kt_pe_result *r = NULL;
        int code;
        rc = kt_file_open(path, &f, &e);
        if (rc < 0) {
            vp_print_unreadable(path, "pe", rc, &e, co.json);
            code = cli_exit_code(rc);
        } else {
            rc = kt_pe_verify(f.data, f.len, rings, &opts, &r, &e);
            struct kt_sbat sbat = {0};
            struct cli_sbat cs = {.sbat = &sbat, .level = &level};
            if (sbat_spec && r && r->pe) {
                struct kt_error se = {0};
                cs.rc = kt_sbat_from_pe(r->pe, &sbat, &se);
                if (cs.rc == 0)
                    cs.rc = kt_sbat_check(&sbat, &level, &cs.img, &cs.lvl, &se);
                int folded = kt_sbat_fold(rc, cs.rc);
                if (folded != rc) {
                    e = se; /* SBAT decided: its reason is the file's */
                    rc = folded;
                }
            }
            code = cli_exit_code(rc);
            struct vp_tree t = {0};
            if (r && vp_tree_from_pe(&t, r->sigs, r->n_sigs) < 0) {
                rc = -ENOMEM;
                code = EXIT_INTERNAL;
            }
            struct vp_result vr = {.file = path, .type = "pe", .rc = rc, .error = &e,
                                   .sigs = t.sigs, .n_sigs = t.n};
            if (sbat_spec && r && r->pe) {
                vr.extra_json = cli_sbat_json;
                vr.extra_text = cli_sbat_text;
                vr.extra_ctx = &cs;
            }
            vp_print(&vr, co.json, co.quiet, true);
            if (kt_verdict_of(rc) == KT_MALFORMED || kt_verdict_of(rc) == KT_INTERNAL)
                cli_error(path, &e); /* the one-line error with its offset */
            vp_tree_free(&t);
            kt_sbat_free(&sbat);
            kt_pe_result_free(r);
            kt_file_close(&f);
        }
        if (code > worst)
            worst = code;
    }
    vp_unload_keyrings(rings, store);
    kt_sbat_level_free(&level);
    return worst;
}
