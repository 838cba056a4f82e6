/* ktrust verify-pe FILE... : Authenticode verification of PE/COFF images. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert_print.h"
#include "cli.h"
#include "result_vp.h"
#include "verdict_print.h"
#include "policy/keyrings.h"
#include "pe/pe_verify.h"
#include "scan/detect.h"
#include "util/file.h"
#include "x509/x509.h"


enum { OPT_PURPOSE = OPT_FIRST_PRIVATE, OPT_ALLOW_SHA1 };

static void usage(FILE *f)
{
    fputs("usage: ktrust verify-pe FILE... [--trust FILE]... [--store PATH] [--kernel VMLINUZ]\n"
          "                        [--keyring NAME]... [--purpose uefi|kexec] [--allow-sha1] [--json] [-q]\n"
          "Verify the Authenticode signatures of PE/COFF images (EFI binaries, kernels,\n"
          "Windows executables).  uefi (default): builtin, secondary, machine and platform\n"
          "keys vouch, through any top-level signature; kexec: the first signature only.\n"
          "Nested signatures never vouch.  --keyring NAME lets a user keyring vouch too.  Exit code: the verdict (0 trusted, 1 unsigned,\n"
          "2 untrusted, 3 unsupported, 4 malformed, 5 rejected); the highest over all files.\n",
          f);
}

int cmd_verify_pe(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_VERIFY_LONGOPTS,
        {"purpose", required_argument, NULL, OPT_PURPOSE},
        {"allow-sha1", no_argument, NULL, OPT_ALLOW_SHA1},
        {NULL, 0, NULL, 0},
    };
    struct cli_common co = {0};
    struct kt_pe_verify_opts opts = {.purpose = kt_ftype_purpose(KT_FT_PE)};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        int r = cli_common_opt(&co, c, optarg);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case 'h': usage(stdout); return 0;
        case OPT_ALLOW_SHA1: opts.allow_sha1 = true; break;
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

    struct kt_keyrings *rings = NULL;
    struct kt_store *store = NULL;
    int rc = vp_load_keyrings(&co, &rings, &store);
    if (rc > 0)
        return rc;
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
            code = cli_exit_code(rc);
            struct vp_tree t = {0};
            if (r && vp_tree_from_pe(&t, r->sigs, r->n_sigs) < 0) {
                rc = -ENOMEM;
                code = EXIT_INTERNAL;
            }
            struct vp_result vr = {.file = path, .type = "pe", .rc = rc, .error = &e,
                                   .sigs = t.sigs, .n_sigs = t.n};
            vp_print(&vr, co.json, co.quiet, true);
            if (kt_verdict_of(rc) == KT_MALFORMED || kt_verdict_of(rc) == KT_INTERNAL)
                cli_error(path, &e); /* the one-line error with its offset */
            vp_tree_free(&t);
            kt_pe_result_free(r);
            kt_file_close(&f);
        }
        if (code > worst)
            worst = code;
    }
    vp_unload_keyrings(rings, store);
    return worst;
}
