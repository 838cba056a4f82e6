/* ktrust uki show|verify UKI... : a Unified Kernel Image read as systemd
 * 252's stub reads it; verify adds its Authenticode verdict (and SBAT). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cannot_answer.h"
#include "cli.h"
#include "json_summary.h"
#include "ktrust/chain.h"
#include "ktrust/efivars.h"
#include "ktrust/uki.h"
#include "sbat_print.h"
#include "text_escape.h"
#include "uki_entries.h"
#include "uki_print.h"
#include "util/file.h"
#include "util/fmt.h"
#include "verdict_print.h"

enum { OPT_SBAT_LEVEL = OPT_FIRST_PRIVATE, OPT_BANK, OPT_PCRLOCK, OPT_EFIVARS };

#define MAX_BANKS 4

#define BANK_OPT                                                                           \
    CLI_OPT("bank", 0, required_argument, OPT_BANK, "BANK",                              \
            "PCR 11 in this bank: sha1, sha256 (default), sha384, sha512 (repeatable)")

static const struct cli_opt show_opts[] = {
    BANK_OPT,
    CLI_OPT("pcrlock", 0, no_argument, OPT_PCRLOCK, NULL,
            "print only a systemd.pcrlock(5) record set: each of the stub's PCR 11 "
            "measurements of the UKI, in the --bank banks"),
    CLI_OPTS(cli_opts_show),
    {0},
};

static const struct cli_opt verify_opts[] = {
    BANK_OPT,
    CLI_OPT("sbat-level", 0, required_argument, OPT_SBAT_LEVEL, "SPEC",
            "a payload file, an efivarfs SbatLevel dump, original, automatic, latest, "
            "shim:FILE[:latest|:automatic]: a UKI whose .sbat that level revokes is "
            "rejected, as shim rejects it"),
    CLI_OPT("efivars", 0, required_argument, OPT_EFIVARS, "DIR",
            "judge the UKI as systemd-boot would start it under this snapshot of the "
            "variables (an efivarfs directory) instead of the key store: the firmware's db "
            "and dbx, or, when shim ran (SbatLevelRT or MokListRT present), db and MokListRT, "
            "dbx and MokListXRT and the SbatLevel in force"),
    CLI_OPT("allow-sha1", 0, no_argument, OPT_ALLOW_SHA1, NULL,
            "accept SHA-1 image digests (refused as unsupported, 3, without it)"),
    CLI_OPTS(cli_opts_verify),
    {0},
};

#define UKI_ABOUT                                                                          \
    "A Unified Kernel Image as systemd 252's stub (Debian 12) reads it: its sections\n"    \
    "(which the stub measures, which it ignores, duplicates, order), .osrel, .uname,\n"   \
    "and PCR 11 after the stub and after each boot phase systemd-pcrphase extends\n"      \
    "(enter-initrd, leave-initrd, sysinit, ready).\n"

static void usage_show(FILE *f)
{
    cli_usage_print(f,
                    "usage: ktrust uki show UKI... [--bank BANK]... [--pcrlock] [--json] [-q]\n" UKI_ABOUT,
                    show_opts,
                    "Exit code: 0, 4 when an image is malformed or has no .linux, 66 when a\n"
                    "file cannot be read; the highest over all files.\n");
}

static void usage_verify(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust uki verify UKI... [--trust FILE]... [--store PATH] [--sbat-level SPEC]\n"
        "                                [--efivars DIR] [--bank BANK]... [--allow-sha1]\n"
        "                                [--json] [-q]\n" UKI_ABOUT
        "verify adds the Authenticode verdict of the whole image, as verify-pe gives it\n"
        "(the stub's sections are covered by it), and the stub's refusal of an image\n"
        "without .linux.\n",
        verify_opts,
        "Exit code: the verdict (0 trusted, 1 unsigned, 2 untrusted, 3 unsupported,\n"
        "4 malformed, 5 rejected); the highest over all files; 64 usage, 66 unreadable\n"
        "input or store.\n");
}

static void usage(FILE *f)
{
    usage_show(f);
    fputc('\n', f);
    usage_verify(f);
    fputc('\n', f);
    uki_entries_usage(f);
}

static const char *const default_banks[] = {"sha256", NULL};

/* show: the UKI without a verdict. */
static void print_show(const char *path, const struct cli_common *co, const struct uki_print *up)
{
    if (up->pcrlock) {
        uki_pcrlock(stdout, up);
    } else if (co->json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "file", path);
        jw_str(&w, "type", "uki");
        uki_json(&w, up);
        jw_obj_end(&w);
        jw_newline(&w);
    } else if (!co->quiet) {
        printf("%s: unified kernel image\n", tx(path));
        uki_text(stdout, up);
    }
}

/* One UKI: open it, then the verdict when ctx is given, then print. */
/* --efivars: the boot's verdict (kt_chain_uki) in place of the store's. */
static int boot_verdict(const char *path, const struct kt_efivars *vars, struct kt_error *e,
                        struct uki_print *up)
{
    struct kt_chain_link l;
    memset(&l, 0, sizeof(l));
    int rc = kt_chain_uki(vars, path, &l, e);
    if (rc < 0)
        return rc;
    up->boot_via = kt_chain_uki_via_shim(vars) ? "shim" : "firmware";
    *e = (struct kt_error)KT_ERROR_INIT;
    if (l.verdict < 0)
        e->code = l.verdict;
    kt_fmt(e->what, sizeof(e->what), "%s", l.reason);
    return l.verdict;
}

static int one(const char *path, const struct cli_common *co, const struct kt_ctx *ctx,
               const struct kt_policy *pol, const struct uki_print *opt, struct cli_tally *t)
{
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    struct kt_uki *u = NULL;
    struct kt_result *r = NULL;
    int rc = kt_file_open(path, &f, &e);
    if (rc == 0)
        rc = kt_uki_open_buf(f.data, f.len, &u, &e);
    if (rc < 0) {
        vp_print_unreadable(path, "uki", rc, &e, co->json);
        cli_tally_add(t, rc, false);
        kt_file_close(&f);
        return cli_exit_code(rc);
    }
    struct uki_print up = *opt;
    up.uki = u;
    struct vp_result vr = {.file = path, .type = "uki", .rc = rc};
    struct kt_error ue = KT_ERROR_INIT;
    if (opt->vars) {
        rc = boot_verdict(path, opt->vars, &e, &up);
        vr.rc = rc;
        vr.error = &e;
    } else if (ctx) {
        rc = kt_verify_buf(ctx, path, f.data, f.len, pol, &r, &e);
        if (r)
            vp_from_result(&vr, path, r);
    }
    vr.type = "uki";
    vr.extra_json = uki_json;
    vr.extra_text = uki_text;
    vr.extra_ctx = &up;
    int was = rc;
    rc = kt_uki_verdict(u, rc, &ue);
    if (ue.code && rc != was) { /* the stub's refusal is the worse: its reason */
        vr.rc = rc;
        vr.error = &ue;
    }
    if (ctx || opt->vars)
        vp_print(&vr, co->json, co->quiet, true);
    else
        print_show(path, co, &up);
    if (ue.code || kt_verdict_of(rc) == KT_MALFORMED)
        cli_error(path, ue.code ? &ue : &e);
    cli_tally_add(t, rc, true);
    kt_result_free(r);
    kt_uki_free(u);
    kt_file_close(&f);
    return cli_exit_code(rc);
}

static int add_bank(const char **banks, size_t *n, const char *b)
{
    static const char *const known[] = {"sha1", "sha256", "sha384", "sha512"};
    for (size_t i = 0; i < 4; i++)
        if (strcmp(b, known[i]) == 0) {
            if (*n < MAX_BANKS)
                banks[(*n)++] = known[i];
            return 0;
        }
    return cli_usage_error("uki", "unknown bank '%s' (sha1, sha256, sha384, sha512)", b);
}

/* --efivars DIR: the snapshot, and whether it can answer (kt_chain_uki_vars_check). */
static int read_vars(const char *dir, struct kt_efivars *vars, const struct cli_common *co)
{
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_efivars_read(dir, vars, &e);
    if (rc < 0)
        return cli_cannot_answer_err(co->json, co->quiet, dir, cli_exit_code(rc), &e);
    rc = kt_chain_uki_vars_check(vars, &e);
    if (rc < 0) {
        kt_efivars_free(vars);
        return cli_cannot_answer_err(co->json, co->quiet, dir, cli_exit_code(rc), &e);
    }
    return 0;
}

static int run(int argc, char **argv, bool verify)
{
    struct cli_common co = {0};
    struct kt_policy pol = {.type = KT_VERIFY_PE};
    const char *banks[MAX_BANKS + 1] = {0}, *sbat_spec = NULL, *efivars = NULL;
    bool pcrlock = false;
    size_t nb = 0;
    struct cli_getopt g;
    int c;
    if (cli_opts_init(&g, verify ? verify_opts : show_opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        int r = cli_common_opt(&co, c, optarg);
        if (r == 0 && verify)
            r = cli_policy_opt(&pol, c, optarg, "uki", argc, argv);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case 'h': (verify ? usage_verify : usage_show)(stdout); return 0;
        case OPT_SBAT_LEVEL: sbat_spec = optarg; break;
        case OPT_PCRLOCK: pcrlock = true; break;
        case OPT_EFIVARS: efivars = optarg; break;
        case OPT_BANK:
            if (add_bank(banks, &nb, optarg))
                return EXIT_USAGE;
            break;
        default: return EXIT_USAGE; /* cli_getopt said why */
        }
    }
    if (optind >= argc)
        return cli_usage_error("uki", "no UKI given");
    struct kt_sbat_level *level = NULL;
    if (sbat_spec && (c = cli_sbat_level_load(sbat_spec, &level)) != 0)
        return c;
    pol.sbat_level = level;
    struct kt_ctx *ctx = NULL;
    struct kt_efivars vars;
    int worst = efivars ? read_vars(efivars, &vars, &co)
                        : verify ? vp_open_ctx(&co, &ctx, "uki", argv + optind, argc - optind) : 0;
    struct cli_tally tally = {0};
    if (worst > 0) {
        kt_sbat_level_close(level);
        return worst;
    }
    struct uki_print opt = {NULL, nb ? banks : default_banks, pcrlock, efivars ? &vars : NULL, NULL};
    for (int i = optind; i < argc; i++) {
        int code = one(argv[i], &co, ctx, &pol, &opt, &tally);
        if (code > worst)
            worst = code;
    }
    if (co.json && argc - optind > 1)
        cli_tally_summary(&tally, stdout, worst, false);
    kt_ctx_free(ctx);
    kt_sbat_level_close(level);
    if (efivars)
        kt_efivars_free(&vars);
    return worst;
}

int cmd_uki(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    if (!strcmp(argv[1], "entries"))
        return uki_entries_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "show") != 0 && strcmp(argv[1], "verify") != 0)
        return cli_usage_error("uki", "unknown subcommand '%s' (show, verify, entries)", argv[1]);
    return run(argc - 1, argv + 1, argv[1][0] == 'v');
}
