/* ktrust ima-list [LIST] [--root DIR] [--pcrs FILE] [--eventlog LOG] [--bank ALG]...
 *                 [-v] [--json] [-q]
 * The IMA measurement list: read it (binary or ASCII), replay the PCRs it
 * extends (PCR 10) in every bank, check them against the TPM, check its
 * boot_aggregate against PCRs 0-9; with -v, every entry.  A command of its
 * own rather than `eventlog --ima`: another log, written by the kernel, not
 * firmware, in another format, whose checks (the PCR 10 replay, the
 * boot_aggregate, its signatures) are not the event log's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cannot_answer.h"
#include "cli.h"
#include "eventlog_cli.h"
#include "ima_list_cli.h"
#include "json_summary.h"
#include "keyload.h"
#include "text_escape.h"
#include "ktrust/boot.h"
#include "ktrust/eventlog.h"
#include "ktrust/imalist.h"

enum {
    OPT_ROOT = OPT_FIRST_PRIVATE,
    OPT_PCRS,
    OPT_EVLOG,
    OPT_BANK,
};

static const struct cli_opt opts[] = {
    CLI_OPT("root", 0, required_argument, OPT_ROOT, "DIR",
            "read the live paths (the list, the TPM's PCRs) under DIR"),
    CLI_OPT("pcrs", 0, required_argument, OPT_PCRS, "FILE",
            "the TPM's PCR values, to check the replay (PCR 10) and the boot_aggregate (PCRs "
            "0-9) against: tpm2_pcrread YAML, 'BANK PCR HEX' lines, or a directory of pcr-BANK/N "
            "files (default: " KT_SYS_TPM_PCRS_PATH " when present)"),
    CLI_OPT("eventlog", 0, required_argument, OPT_EVLOG, "LOG",
            "the TCG event log of the same boot: its replayed PCRs 0-9 check the boot_aggregate"),
    CLI_OPT("bank", 0, required_argument, OPT_BANK, "ALG",
            "replay this bank (sha1, sha256, sha384, sha512, sm3_256; repeatable; default sha1 and "
            "sha256, and every bank --pcrs has PCR 10 of)"),
    CLI_OPTS(cli_opts_ima),
    CLI_OPT("allow-sha1", 0, no_argument, OPT_ALLOW_SHA1, NULL,
            "judge SHA-1 signatures (unsupported without it)"),
    CLI_OPTS(cli_opts_common),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust ima-list [LIST] [--root DIR] [--pcrs FILE] [--eventlog LOG]\n"
        "                       [--bank ALG]... [--ima-key CERT]... [--kernel-config FILE]\n"
        "                       [--machine-ca] [--trust FILE]... [--store PATH] [-v] [--json] [-q]\n\n"
        "Read the IMA measurement list (default " KT_SYS_IMA_LIST_PATH ";\n"
        "the binary or the ASCII form; ima, ima-ng, ima-sig, ima-buf templates), replay the\n"
        "PCRs it extends (PCR 10) in every bank, check them against the TPM (--pcrs), and its\n"
        "boot_aggregate against PCRs 0-9 (--eventlog, or --pcrs).  A per-bank list of a newer\n"
        "kernel (..._measurements_sha256) lists that bank's digests: the name says which.\n"
        "Each signature an ima-sig entry measured is judged against the .ima keyring (the\n"
        "store's, or this run's: --ima-key under the kernel's rule, --kernel-config;\n"
        "under --root, ROOT/boot/config-* of the newest release): which files were signed,\n"
        "by whom, and which were not.  -v: every entry.\n",
        opts,
        "exit codes: 0 ok (every PCR checked matches), 4 malformed list or PCR file,\n"
        "5 a PCR or the boot_aggregate differs from the replay, or an entry's data does not\n"
        "hash to its listed digest (the list was altered), 64 usage, 66 unreadable input\n");
}

static int parse_args(int argc, char **argv, struct ima_args *a)
{
    struct cli_getopt g;
    memset(a, 0, sizeof(*a));
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    int c;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        int r = cli_common_opt(&a->co, c, optarg);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        if ((r = cli_ima_opt(&a->keys, "ima-list", c, optarg)) != 0) {
            if (r > 1)
                return r;
            continue;
        }
        switch (c) {
        case OPT_ROOT: a->root = optarg; break;
        case OPT_PCRS: a->pcrs = optarg; break;
        case OPT_EVLOG: a->evlog = optarg; break;
        case OPT_BANK:
            if (!kt_evlog_alg_from_name(optarg))
                return cli_usage_error("ima-list", "--bank: no bank '%s'", optarg);
            if (a->n_banks == KT_EVLOG_MAX_BANKS)
                return cli_usage_error("ima-list", "--bank: at most %d", KT_EVLOG_MAX_BANKS);
            a->banks[a->n_banks++] = kt_evlog_alg_from_name(optarg);
            break;
        case OPT_ALLOW_SHA1: a->allow_sha1 = true; break;
        case 'h': usage(stdout); return -1;
        default: return EXIT_USAGE;
        }
    }
    if (optind < argc)
        a->list = argv[optind++];
    if (optind < argc)
        return cli_usage_error("ima-list", "unexpected argument '%s' (one LIST)", argv[optind]);
    static char lb[4200], pb[4200];
    if (!a->list && kt_sys_path_under(a->root, KT_SYS_IMA_LIST, lb, sizeof(lb)) == 0)
        a->list = lb;
    if (!a->pcrs)
        a->pcrs = ev_sys_part(a->root, KT_SYS_TPM_PCRS, pb, sizeof(pb));
    static char cb[4400];
    if (a->root && !a->keys.kernel_config && kt_sys_kernel_config_under(a->root, cb, sizeof(cb)) == 0)
        a->keys.kernel_config = cb;
    return 0;
}

/* The bank of the listed digests: sha1, or the suffix of a per-bank file
 * (binary_runtime_measurements_sha256). */
static uint16_t list_bank(const char *path)
{
    const char *u = strrchr(path, '_');
    return u && strstr(path, "runtime_measurements_") ? kt_evlog_alg_from_name(u + 1) : 0;
}

/* The banks to replay: those asked for, else sha1, sha256 and every other
 * bank x has PCR 10 of. */
static void pick_banks(struct ima_args *a, const struct kt_pcr_values *x)
{
    if (a->n_banks)
        return;
    a->banks[a->n_banks++] = KT_TPM_ALG_SHA1;
    a->banks[a->n_banks++] = KT_TPM_ALG_SHA256;
    for (size_t b = 0; x && b < x->n_banks && a->n_banks < KT_EVLOG_MAX_BANKS; b++) {
        uint16_t alg = x->bank[b].alg;
        if (alg != KT_TPM_ALG_SHA1 && alg != KT_TPM_ALG_SHA256 && x->bank[b].have[10] &&
            alg != KT_TPM_ALG_SM3_256)
            a->banks[a->n_banks++] = alg;
    }
}

/* The event log's replay, for the boot_aggregate.  0 or an exit code
 * (cannot answer, said). */
static int evlog_replay(const struct ima_args *a, struct kt_evlog_pcrs *p)
{
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    struct kt_evlog log;
    int rc = kt_file_open(a->evlog, &f, &e);
    if (rc < 0)
        return cli_cannot_answer_err(a->co.json, a->co.quiet, a->evlog, cli_exit_code(rc), &e);
    rc = kt_evlog_parse(f.data, f.len, &log, &e);
    if (rc == 0)
        rc = kt_evlog_replay(&log, p);
    kt_evlog_free(&log);
    kt_file_close(&f);
    return rc < 0 ? cli_cannot_answer_err(a->co.json, a->co.quiet, a->evlog, cli_exit_code(rc), &e)
                  : 0;
}

/* The keys the signatures are judged with: the store's (or --trust's)
 * keyrings, their .ima made for the run when the store has none, the
 * --ima-key certificates added to it.  0 or an exit code. */
static int open_keys(struct ima_args *a, struct kt_ctx **ctx)
{
    struct kt_error e = KT_ERROR_INIT;
    const char *bad = NULL;
    int rc = cli_open_ctx(&a->co, ctx, &e, &bad);
    if (rc == 0)
        rc = cli_ima_keys_load(kt_ctx_keyrings(*ctx), &a->keys, a->co.quiet, &bad, &e);
    return rc < 0 ? cli_cannot_answer_err(a->co.json, a->co.quiet, bad, cli_exit_code(rc), &e) : 0;
}

static int run(struct ima_args *a, const uint8_t *buf, size_t len, struct ima_counts *c)
{
    struct kt_pcr_values x;
    struct kt_evlog_pcrs ev;
    struct kt_error e = KT_ERROR_INIT;
    int code = 0;
    if (a->pcrs && (code = kt_pcrs_read(a->pcrs, &x, &e)) < 0)
        return cli_cannot_answer_err(a->co.json, a->co.quiet, NULL, code == -EBADMSG ? 4 : EXIT_NOINPUT,
                                     &e); /* e names the file */
    if (a->evlog && (code = evlog_replay(a, &ev)) != 0)
        return code;
    pick_banks(a, a->pcrs ? &x : NULL);
    struct kt_ctx *ctx = NULL;
    if ((code = open_keys(a, &ctx)) != 0) {
        kt_ctx_free(ctx);
        return code;
    }
    struct kt_ima_sig_opts so = {.allow_sha1 = a->allow_sha1};
    struct kt_ima_opts o = {.detect = true, .digest_alg = list_bank(a->list),
                            .banks = a->banks, .n_banks = a->n_banks,
                            .each = a->co.verbose ? ima_entry_print : NULL, .arg = a,
                            .keys = kt_ctx_keyrings(ctx), .sig_opts = &so};
    struct kt_ima_summary *s = calloc(1, sizeof(*s));
    int rc = s ? kt_ima_replay(buf, len, &o, s, &e) : -ENOMEM;
    if (rc < 0)
        code = cli_cannot_answer_err(a->co.json, a->co.quiet, a->list, cli_exit_code(rc), &e);
    else
        code = ima_report(a, s, a->pcrs ? &x : NULL, a->evlog ? &ev : NULL, c);
    free(s);
    kt_ctx_free(ctx);
    return code;
}

int cmd_ima_list(int argc, char **argv)
{
    struct ima_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    struct ima_counts c = {0};
    int code;
    rc = kt_file_open(a.list, &f, &e);
    if (rc < 0)
        return cli_cannot_answer_err(a.co.json, a.co.quiet, a.list, cli_exit_code(rc), &e);
    code = run(&a, f.data, f.len, &c);
    kt_file_close(&f);
    if (c.read) /* else the conclusion was said */
        ima_summary(&a, code, &c);
    return code;
}
