/* ktrust unseal-check [--root DIR] [DEVICE|IMAGE|TOKEN.json]... [--eventlog LOG]
 *                     [--pcrs FILE] [--efivars DIR] [--apply FILE]...
 *                     [--sbat-level SPEC] [--esp DIR] [--uki FILE]
 * Will the TPM-sealed LUKS2 keys unseal at the next boot: today (the TPM's
 * PCRs, --pcrs, or the log's replay) and after the change the other options
 * describe (the log's prediction, kt_evlog_predict).  The verdicts are the
 * library's (kt_seal_check); this reads the inputs, prints, picks the exit
 * code (0 every token unseals, 5 one does not, 3 cannot tell). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "apply_print.h"
#include "cli.h"
#include "eventlog_cli.h"
#include "json_summary.h"
#include "predict_opts.h"
#include "ktrust/advanced.h"
#include "ktrust/efivars.h"
#include "ktrust/eventlog.h"
#include "ktrust/seal.h"
#include "sbat_payload.h"
#include "seal_lines.h"
#include "unseal_check.h"

#define LIVE_LOG KT_SYS_EVENTLOG_PATH
#define LIVE_PCRS KT_SYS_TPM_PCRS_PATH
#define LIVE_EFIVARS KT_SYS_EFIVARS_PATH

enum {
    OPT_EVENTLOG = OPT_FIRST_PRIVATE,
    OPT_INSTALL,
    OPT_PCRLOCK,
    OPT_UKI,
};

static const struct cli_opt opts[] = {
    CLI_OPTS(cli_opts_predict),
    CLI_OPT("eventlog", 0, required_argument, OPT_EVENTLOG, "LOG",
            "the TCG event log of this boot (default: " LIVE_LOG "): today's PCRs when no TPM "
            "is read, and the base of the prediction"),
    CLI_OPT("install", 0, required_argument, OPT_INSTALL, "NEW_SHIM",
            "the change is installing NEW_SHIM (and NEW_LOADER: the PE image among the "
            "arguments) in place of the boot applications the log shows: their digests "
            "(PCR 4) and the db entries that verify them (PCR 7)"),
    CLI_OPT("pcrlock", 0, required_argument, OPT_PCRLOCK, "FILE",
            "with a change: write a systemd-pcrlock record set (systemd.pcrlock(5)) of the "
            "PCRs the tokens are bound to, as predicted after the change, into FILE: the "
            "next boot's variant for systemd-pcrlock make-policy"),
    CLI_OPT("uki", 0, required_argument, OPT_UKI, "FILE",
            "the UKI that boots: a signed PCR policy (systemd-cryptenroll "
            "--tpm2-public-key) unseals when its .pcrsig signs its PCR 11 at enter-initrd "
            "with the token's key (default: the one UKI in --esp's EFI/Linux)"),
    CLI_OPTS(cli_opts_output),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust unseal-check [--root DIR] [DEVICE|IMAGE|TOKEN.json]... [--eventlog LOG]\n"
        "                           [--pcrs FILE] [--efivars DIR] [--apply FILE]...\n"
        "                           [--sbat-level SPEC] [--esp DIR] [--install NEW_SHIM [NEW_LOADER]]\n"
        "                           [--pcrlock FILE] [--uki FILE] [--json] [-q]\n\n"
        "For each TPM-sealed LUKS2 token (systemd-cryptenroll's systemd-tpm2, clevis' tpm2\n"
        "pin) of the devices, images or exported token files (default: the volumes of\n"
        "/etc/crypttab, under --root): its policy digest recomputed\n"
        "from today's PCRs (the TPM, --pcrs, or the event log's replay) and from the PCRs\n"
        "the change predicts (--efivars, --apply, --sbat-level, --esp, --install on the\n"
        "event log):\n"
        "unseals, does NOT unseal (the recovery key is asked for), or cannot tell; with\n"
        "the re-seal to run before the change.  With no change option, today only.\n",
        opts,
        "exit codes: 0 every token unseals (after the change), 5 one does not, 3 ktrust\n"
        "cannot tell for one, 4 a malformed header, token, log or PCR file, 64 usage,\n"
        "66 unreadable input\n");
}

struct args {
    const char *log, *shim, *loader, *pcrlock, *uki;
    struct cli_predict_args p; /* --root, --pcrs, --efivars, --apply, --sbat-level, --esp */
    bool json, quiet, change, offline;
    char **src;
    int n_src;
};

/* The live paths (under --root) for what was not given: the TPM's PCRs and
 * the log only when no file names today's PCRs, never the host's in an
 * offline run (files given without --root). */
static void defaults(struct args *a)
{
    static char lb[4200], pb[4200], eb[4200];
    bool live = a->p.root || !a->offline;
    if (!a->log && live)
        a->log = ev_sys_part(a->p.root, KT_SYS_EVENTLOG, lb, sizeof(lb));
    if (!a->p.pcrs && live)
        a->p.pcrs = ev_sys_part(a->p.root, KT_SYS_TPM_PCRS, pb, sizeof(pb));
    if (a->change && !a->p.efivars && live)
        a->p.efivars = ev_sys_part(a->p.root, KT_SYS_EFIVARS, eb, sizeof(eb));
}

/* A PE image (MZ) among the arguments: --install's NEW_LOADER. */
static bool is_pe(const char *path)
{
    FILE *f = fopen(path, "rb");
    char m[2] = {0, 0};
    if (f) {
        if (fread(m, 1, 2, f) != 2)
            m[0] = 0;
        fclose(f);
    }
    return m[0] == 'M' && m[1] == 'Z';
}

static int take_loader(struct args *a)
{
    for (int i = 0; i < a->n_src; i++) {
        if (!is_pe(a->src[i]))
            continue;
        if (a->loader)
            return cli_usage_error("unseal-check", "--install takes NEW_SHIM and one NEW_LOADER, "
                                                   "not '%s' too", a->src[i]);
        a->loader = a->src[i];
        memmove(a->src + i, a->src + i + 1, (size_t)(a->n_src - i - 1) * sizeof(*a->src));
        a->n_src--, i--;
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct args *a)
{
    struct cli_getopt g;
    memset(a, 0, sizeof(*a));
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    int c;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        int taken = cli_predict_opt(c, "unseal-check", &a->p);
        if (taken < 0)
            return EXIT_USAGE;
        if (taken)
            continue;
        switch (c) {
        case OPT_EVENTLOG: a->log = optarg; break;
        case OPT_PCRLOCK: a->pcrlock = optarg; break;
        case OPT_UKI: a->uki = optarg; break;
        case OPT_INSTALL: a->shim = optarg; break;
        case OPT_JSON: a->json = true; break;
        case 'q': a->quiet = true; break;
        case 'h': usage(stdout); return -1;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    a->src = argv + optind;
    a->n_src = argc - optind;
    if (a->shim && take_loader(a) < 0)
        return EXIT_USAGE;
    if (cli_predict_check("unseal-check", &a->p))
        return EXIT_USAGE;
    if (!a->n_src && !a->p.root && (a->log || a->p.pcrs || a->p.efivars))
        return cli_usage_error("unseal-check", "give the LUKS2 devices, images or token files "
                                               "to check (or --root DIR: its /etc/crypttab)");
    a->change = a->p.efivars || a->p.apply.n || a->p.sbat || a->p.esp || a->shim;
    if (a->pcrlock && !a->change)
        return cli_usage_error("unseal-check", "--pcrlock writes the PCRs after a change: give "
                                               "--efivars, --apply, --sbat-level, --esp or --install");
    if (a->shim && a->p.esp)
        return cli_usage_error("unseal-check", "--install predicts over the new binaries: no --esp");
    a->offline = a->log || a->p.pcrs || a->p.efivars;
    defaults(a);
    if (a->p.apply.n && !a->p.efivars)
        return cli_usage_error("unseal-check", "--apply needs --efivars (the variables it changes)");
    if (a->change && !a->log)
        return cli_usage_error("unseal-check", "a change is predicted from this boot's event "
                                               "log: give --eventlog LOG");
    return 0;
}

/* PCR values read from a TPM or a file, as the library takes them. */
static void to_pcrs(const struct kt_pcr_values *x, struct kt_evlog_pcrs *p)
{
    memset(p, 0, sizeof(*p));
    p->n_banks = x->n_banks;
    for (size_t b = 0; b < x->n_banks; b++) {
        p->bank[b].alg = x->bank[b].alg;
        p->bank[b].supported = true;
        for (unsigned i = 0; i < KT_EVLOG_PCRS; i++)
            if (x->bank[b].have[i]) {
                memcpy(p->bank[b].pcr[i], x->bank[b].val[i], x->bank[b].len[i]);
                p->bank[b].size = (uint16_t)x->bank[b].len[i];
                p->bank[b].used[i] = true;
            }
    }
}

struct state {
    struct kt_file logf;
    struct kt_evlog log;
    bool have_log, have_today;
    struct kt_evlog_pcrs today;
    const char *today_src;
    struct kt_seal_found found; /* every source's tokens */
    struct kt_seal_uki *uki;    /* the UKI that boots (NULL: none given or found) */
};

/* --uki FILE, else the UKI systemd-boot on --esp boots next (--efivars'
 * Loader* variables), else the one UKI in --esp's EFI/Linux (none: signed
 * policies are "cannot tell"). */
static int load_uki(const struct args *a, struct state *s)
{
    struct kt_error e = KT_ERROR_INIT;
    struct kt_efivars vars;
    bool have = !a->uki && a->p.esp && a->p.efivars && kt_efivars_read(a->p.efivars, &vars, NULL) == 0;
    int rc = kt_seal_uki_open_for(a->uki, a->p.esp, have ? &vars : NULL, s->found.tok, s->found.n,
                                  &s->uki, &e);
    if (have)
        kt_efivars_free(&vars);
    if (rc < 0) {
        cli_error(a->uki ? a->uki : a->p.esp, &e);
        return cli_exit_code(rc);
    }
    return 0;
}

static int load_log(const struct args *a, struct state *s)
{
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(a->log, &s->logf, &e);
    if (rc < 0) {
        cli_error(a->log, &e);
        return cli_exit_code(rc);
    }
    rc = kt_evlog_parse(s->logf.data, s->logf.len, &s->log, &e);
    s->have_log = true;
    if (rc < 0) {
        cli_error(a->log, &e);
        return cli_exit_code(rc);
    }
    return 0;
}

static int today(const struct args *a, struct state *s)
{
    int rc = a->log ? load_log(a, s) : 0;
    if (rc)
        return rc;
    if (a->p.pcrs) {
        struct kt_pcr_values *x = malloc(sizeof(*x));
        int ec = 0;
        if (!x)
            return EXIT_INTERNAL;
        rc = ev_pcrs_read(a->p.pcrs, x, &ec);
        if (rc == 0)
            to_pcrs(x, &s->today);
        free(x);
        if (rc < 0)
            return ec;
        s->have_today = true;
        s->today_src = a->p.pcrs;
    } else if (a->log) {
        if (kt_evlog_replay(&s->log, &s->today) < 0)
            return EXIT_INTERNAL;
        s->have_today = true;
        s->today_src = "the event log's replay";
    } else {
        s->today_src = "no TPM and no event log";
    }
    return 0;
}

/* The tokens of every source, in order (no source: the volumes of
 * /etc/crypttab, under --root). */
static int read_tokens(const struct args *a, struct state *s)
{
    struct kt_seal_found *f = &s->found;
    int code = cli_seal_find("unseal-check", a->p.root, a->src, (size_t)a->n_src, false, f);
    if (code || a->json || a->quiet)
        return code;
    if (f->crypttab && !f->n_path)
        printf("/etc/crypttab names no encrypted volume\n");
    for (size_t i = 0; i < f->n_path; i++)
        if (!f->count[i])
            printf("%s: no TPM2 token (systemd-tpm2, clevis tpm2)\n", tx(f->path[i]));
    return 0;
}

/* --pcrlock FILE: a systemd-pcrlock record set of the PCRs the tokens are
 * bound to, as the prediction has them after the change (written only when
 * asked: the rest of the command only reports). */
static int write_pcrlock(const struct args *a, const struct state *s,
                         const struct kt_evlog_prediction *pred)
{
    uint32_t mask = 0;
    for (size_t i = 0; i < s->found.n; i++)
        mask |= s->found.tok[i].pcrs;
    FILE *f = fopen(a->pcrlock, "w");
    if (!f) {
        cli_errorf(a->pcrlock, "cannot create: %s", strerror(errno));
        return EXIT_NOINPUT;
    }
    ev_pcrlock_write(f, &s->log, pred, mask);
    if (fclose(f) != 0) {
        cli_errorf(a->pcrlock, "write failed: %s", strerror(errno));
        return EXIT_NOINPUT;
    }
    return 0;
}

/* Each token against today's PCRs and, with a change, the prediction. */
static int check(const struct args *a, struct state *s, struct kt_seal_check *r)
{
    struct kt_error e = KT_ERROR_INIT;
    const struct kt_evlog_pcrs *now = s->have_today ? &s->today : NULL;
    int rc = 0;
    if (!a->change) {
        for (size_t i = 0; rc == 0 && i < s->found.n; i++)
            rc = kt_seal_check_uki(&s->found.tok[i], s->uki, now, NULL, NULL, &r[i]);
        if (rc == -ENOPKG)
            cli_errorf(s->found.path[0], "cannot compute policy digests (libtss2-mu.so.0 missing?)");
        return rc == -ENOPKG ? 3 : rc < 0 ? EXIT_INTERNAL : 0;
    }
    struct kt_efivars vars;
    if (a->p.efivars) {
        rc = kt_efivars_read(a->p.efivars, &vars, &e);
        if (rc < 0) {
            cli_error(a->p.efivars, &e);
            return cli_exit_code(rc);
        }
        struct cli_apply ap = a->p.apply;
        int code = cli_apply_all(&vars, &ap, a->json, a->quiet);
        if (code) { /* an update that does not apply: no prediction to trust */
            kt_efivars_free(&vars);
            return code;
        }
    }
    uint8_t *sbat = NULL;
    size_t sbat_len = 0;
    int code = a->p.sbat ? cli_sbat_payload(a->p.sbat, &sbat, &sbat_len) : 0;
    if (code == 0) {
        struct kt_evlog_predict_opts o = {.vars = a->p.efivars ? &vars : NULL, .sbat_level = sbat,
                                          .sbat_level_len = sbat_len, .esp = a->p.esp};
        struct kt_evlog_prediction *pred = NULL;
        struct kt_seal_change c = {.predict = &o, .shim = a->shim, .loader = a->loader,
                                   .keep = a->pcrlock ? &pred : NULL, .uki = s->uki};
        rc = kt_seal_check_change(&s->log, now, &c, s->found.tok, s->found.n, r, &e);
        if (rc == 0 && pred)
            code = write_pcrlock(a, s, pred);
        unseal_set_pcrlock(rc == 0 && pred && !code ? a->pcrlock : NULL);
        kt_evlog_prediction_free(pred);
        if (rc < 0) {
            cli_error(a->shim && rc != -ENODATA && rc != -EBADMSG ? a->shim : a->log, &e);
            code = rc == -ENOPKG ? 3 : cli_exit_code(rc);
        }
    }
    free(sbat);
    if (a->p.efivars)
        kt_efivars_free(&vars);
    return code;
}

static void summary(const struct args *a, int code, const struct unseal_tally *t)
{
    if (!a->json)
        return;
    struct cli_count n[] = {
        {"unseals", t->unseals},
        {"does_not_unseal", t->fails},
        {"cannot_tell", t->cannot_tell},
        {"does_not_unseal_today", t->fails_today},
    };
    const char *v = t->fails ? "does_not_unseal" : t->cannot_tell ? "cannot_tell"
                  : t->unseals ? "unseals" : NULL;
    struct cli_summary sum = {v, code, n, sizeof(n) / sizeof(n[0]), false, NULL};
    cli_json_summary(stdout, &sum);
}

int cmd_unseal_check(int argc, char **argv)
{
    struct args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct state *s = calloc(1, sizeof(*s));
    if (!s)
        return EXIT_INTERNAL;
    struct unseal_tally t = {0};
    struct kt_seal_check *r = NULL;
    int code = today(&a, s);
    struct kt_seal_found *f = &s->found;
    if (!code)
        code = read_tokens(&a, s);
    if (!code)
        code = load_uki(&a, s);
    unseal_set_uki(s->uki);
    if (!code && !(r = calloc(f->n + 1, sizeof(*r))))
        code = EXIT_INTERNAL;
    if (!code)
        code = check(&a, s, r);
    for (size_t i = 0; !code && i < f->n; i++)
        unseal_print(f->path[f->src[i]], &f->tok[i], &r[i], s->today_src, a.json, a.quiet, &t);
    if (!code)
        code = t.fails ? 5 : t.cannot_tell ? 3 : 0;
    summary(&a, code, &t);
    free(r);
    kt_seal_found_free(f);
    kt_seal_uki_free(s->uki);
    if (s->have_log) {
        kt_evlog_free(&s->log);
        kt_file_close(&s->logf);
    }
    free(s);
    return code;
}
