/* ktrust verify-pe FILE... : Authenticode verification of PE/COFF images. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert_print.h"
#include "cli.h"
#include "verdict_print.h"
#include "keyring/keyring.h"
#include "pe/pe_verify.h"
#include "util/file.h"
#include "x509/x509.h"


enum { OPT_PURPOSE = OPT_FIRST_PRIVATE, OPT_ALLOW_SHA1 };

static void usage(FILE *f)
{
    fputs("usage: ktrust verify-pe FILE... [--trust FILE]... [--store PATH] [--kernel VMLINUZ]\n"
          "                        [--purpose uefi|kexec] [--allow-sha1] [--json] [-q]\n"
          "Verify the Authenticode signatures of PE/COFF images (EFI binaries, kernels,\n"
          "Windows executables).  Exit code: the verdict (0 trusted, 1 unsigned,\n"
          "2 untrusted, 3 unsupported, 4 malformed, 5 rejected); the highest over all files.\n",
          f);
}

static const char *ts_kind(enum kt_pe_ts_kind k)
{
    return k == KT_PE_TS_RFC3161 ? "rfc3161" : k == KT_PE_TS_COUNTERSIG ? "countersignature"
                                                                        : "none";
}

/* The library's result as verdict_print structs (recursive for nested). */
struct vp_tree {
    struct vp_sig *sigs;
    struct vp_timestamp *ts;
    struct vp_tree *kids;
    size_t n;
};

static int to_vp(struct vp_tree *t, const struct kt_pe_signature *s, size_t n)
{
    t->n = n;
    t->sigs = calloc(n ? n : 1, sizeof(*t->sigs));
    t->ts = calloc(n ? n : 1, sizeof(*t->ts));
    t->kids = calloc(n ? n : 1, sizeof(*t->kids));
    if (!t->sigs || !t->ts || !t->kids)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        struct vp_sig *v = &t->sigs[i];
        const struct kt_pe_signature *p = &s[i];
        if (p->msg && p->msg->n_signers)
            vp_sig_from_pkcs7(v, &p->msg->signers[0], NULL);
        v->index = p->index;
        v->digest_alg = p->digest_alg;
        v->digest = p->digest_len ? p->image_digest : NULL;
        v->digest_len = p->digest_len;
        v->signer = p->signer;
        v->chain = p->chain;
        v->chain_len = p->chain_len;
        v->trusted_by = p->trusted_by;
        v->verdict = p->verdict;
        v->reason = p->verdict ? p->error.what : NULL;
        v->timestamp = NULL;
        if (p->timestamp.kind != KT_PE_TS_NONE) {
            struct vp_timestamp *ts = &t->ts[i];
            ts->kind = ts_kind(p->timestamp.kind);
            ts->time = p->timestamp.time;
            ts->signer = p->timestamp.signer;
            ts->trusted_by = p->timestamp.trusted_by;
            ts->verdict = p->timestamp.verify_rc ? p->timestamp.verify_rc
                                                 : p->timestamp.trust_rc;
            v->timestamp = ts;
        }
        if (to_vp(&t->kids[i], p->nested, p->n_nested) < 0)
            return -ENOMEM;
        v->nested = t->kids[i].sigs;
        v->n_nested = p->n_nested;
    }
    return 0;
}

static void free_vp(struct vp_tree *t)
{
    for (size_t i = 0; t->kids && i < t->n; i++)
        free_vp(&t->kids[i]);
    free(t->sigs);
    free(t->ts);
    free(t->kids);
}

int cmd_verify_pe(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"purpose", required_argument, NULL, OPT_PURPOSE},
        {"allow-sha1", no_argument, NULL, OPT_ALLOW_SHA1},
        {NULL, 0, NULL, 0},
    };
    struct cli_common co = {0};
    struct kt_pe_verify_opts opts = {.purpose = KT_PURPOSE_UEFI};
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
            if (strcmp(optarg, "uefi") == 0)
                opts.purpose = KT_PURPOSE_UEFI;
            else if (strcmp(optarg, "kexec") == 0)
                opts.purpose = KT_PURPOSE_KEXEC;
            else
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
            cli_error(path, &e);
            code = cli_exit_code(rc);
        } else {
            rc = kt_pe_verify(f.data, f.len, rings, &opts, &r, &e);
            code = cli_exit_code(rc);
            struct vp_tree t = {0};
            if (r && to_vp(&t, r->sigs, r->n_sigs) < 0) {
                rc = -ENOMEM;
                code = EXIT_INTERNAL;
            }
            struct vp_result vr = {.file = path, .type = "pe", .rc = rc, .error = &e,
                                   .sigs = t.sigs, .n_sigs = t.n};
            vp_print(&vr, co.json, co.quiet, true);
            if (kt_verdict_of(rc) == KT_MALFORMED || kt_verdict_of(rc) == KT_INTERNAL)
                cli_error(path, &e); /* the one-line error with its offset */
            free_vp(&t);
            kt_pe_result_free(r);
            kt_file_close(&f);
        }
        if (code > worst)
            worst = code;
    }
    vp_unload_keyrings(rings, store);
    return worst;
}
