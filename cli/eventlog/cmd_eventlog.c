/* ktrust eventlog [LOG] [--root DIR] [--pcrs FILE] [--efivars DIR] [--json]
 * ktrust eventlog [LOG] --predict [--efivars DIR] [--apply FILE]...
 *                 [--sbat-level SPEC] [--esp DIR] [--uki FILE] [--predict-format yaml|pcrlock]
 * The TCG event log: parse, replay, check against the TPM's PCRs and the
 * variables in force, explain PCR 7, predict PCR 7 after a change. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply_print.h"
#include "cannot_answer.h"
#include "cli.h"
#include "eventlog_cli.h"
#include "json_summary.h"
#include "predict_opts.h"
#include "sbat_payload.h"
#include "ktrust/advanced.h"
#include "ktrust/boot.h"
#include "ktrust/efivars.h"
#include "ktrust/eventlog.h"
#include "ktrust/sbat.h"
#include "ktrust/sdboot.h"

#define LIVE_LOG KT_SYS_EVENTLOG_PATH
#define LIVE_PCRS KT_SYS_TPM_PCRS_PATH
#define LIVE_EFIVARS KT_SYS_EFIVARS_PATH

enum {
    OPT_PREDICT = OPT_FIRST_PRIVATE,
    OPT_PREDICT_FORMAT,
    OPT_UKI,
    OPT_UKI_OPTIONS,
};

static const struct cli_opt opts[] = {
    CLI_OPTS(cli_opts_predict),
    CLI_OPT("predict", 0, no_argument, OPT_PREDICT, NULL,
            "predict PCR 7 for the state of --efivars (after --apply, --sbat-level)"),
    CLI_OPT("uki", 0, required_argument, OPT_UKI, "FILE",
            "with --predict: the unified kernel image that boots next, for PCR 11 (systemd-stub's "
            "measurements of its sections) and 12 (the load options systemd-boot passes it, "
            "the stub's credentials)"),
    CLI_OPT("uki-options", 0, required_argument, OPT_UKI_OPTIONS, "TEXT",
            "with --uki: the options line of the systemd-boot Type #1 entry that starts it "
            "(default: a Type #2 entry, the UKI's own .cmdline), for PCR 12"),
    CLI_OPT("predict-format", 0, required_argument, OPT_PREDICT_FORMAT, "FMT",
            "with --predict: print only the predicted PCRs as 'yaml' (tpm2_pcrread style) or "
            "'pcrlock' (a systemd-pcrlock record set of every PCR 7 measurement, with --uki "
            "also of PCRs 4, 11 and 12)"),
    CLI_OPT("verbose", 'v', no_argument, 'v', NULL,
            "every PCR the TPM gave no value for on a line of its own"),
    CLI_OPTS(cli_opts_output),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust eventlog [LOG] [--root DIR] [--pcrs FILE] [--efivars DIR] [--json] [-q]\n"
        "       ktrust eventlog [LOG] --predict [--efivars DIR] [--apply FILE]...\n"
        "                       [--sbat-level SPEC] [--esp DIR] [--uki FILE [--uki-options TEXT]]\n"
        "                       [--predict-format yaml|pcrlock]\n\n"
        "Parse a TCG event log (default " LIVE_LOG "),\n"
        "SHA-1 or crypto-agile, every bank; print each event decoded; replay every PCR;\n"
        "check the replay against the TPM's PCRs (--pcrs); check that the Secure Boot\n"
        "variables measured into PCR 7 are the ones in force (--efivars); explain PCR 7\n"
        "(which db entry, vendor certificate or MOK authorized each image).  --predict:\n"
        "PCR 7 after a change (new db/dbx/KEK/PK, a signed update, an SbatLevel), next to\n"
        "today's, and which sealed secrets break.\n",
        opts,
        "exit codes: 0 ok (every PCR checked matches), 4 malformed log or PCR file,\n"
        "5 a PCR read from the TPM differs from the replay, or an event's data does not\n"
        "match its digest (the log was altered: no prediction is built on it), 64 usage,\n"
        "66 unreadable input\n");
}

struct args {
    const char *log, *format, *uki, *uki_options;
    struct cli_predict_args p; /* --root, --pcrs, --efivars, --apply, --sbat-level, --esp */
    bool predict, json, quiet, verbose, pcrs_default, efivars_default;
};

static int parse_args(int argc, char **argv, struct args *a)
{
    struct cli_getopt g;
    memset(a, 0, sizeof(*a));
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    int c;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        int taken = cli_predict_opt(c, "eventlog", &a->p);
        if (taken < 0)
            return EXIT_USAGE;
        if (taken)
            continue;
        switch (c) {
        case OPT_PREDICT: a->predict = true; break;
        case OPT_UKI: a->uki = optarg; break;
        case OPT_UKI_OPTIONS: a->uki_options = optarg; break;
        case OPT_PREDICT_FORMAT: a->format = optarg; break;
        case OPT_JSON: a->json = true; break;
        case 'q': a->quiet = true; break;
        case 'v': a->verbose = true; break;
        case 'h': usage(stdout); return -1;
        default: return EXIT_USAGE; /* cli_getopt said why, on one line */
        }
    }
    if (optind < argc)
        a->log = argv[optind++];
    if (optind < argc)
        return cli_usage_error("eventlog", "unexpected argument '%s' (one LOG)", argv[optind]);
    if (!a->predict && (a->p.apply.n || a->p.sbat || a->p.esp || a->format || a->uki))
        return cli_usage_error("eventlog", "--apply, --sbat-level, --esp, --uki and "
                                           "--predict-format need --predict");
    if (a->uki_options && !a->uki)
        return cli_usage_error("eventlog", "--uki-options needs --uki");
    if (a->format && strcmp(a->format, "yaml") && strcmp(a->format, "pcrlock"))
        return cli_usage_error("eventlog", "--predict-format: 'yaml' or 'pcrlock', not '%s'",
                               a->format);
    if (cli_predict_check("eventlog", &a->p))
        return EXIT_USAGE;
    static char lb[4200], pb[4200], eb[4200];
    if (!a->log && kt_sys_path_under(a->p.root, KT_SYS_EVENTLOG, lb, sizeof(lb)) == 0)
        a->log = lb; /* said to be missing when it is opened */
    if (!a->p.pcrs && !a->predict && (a->p.pcrs = ev_sys_part(a->p.root, KT_SYS_TPM_PCRS, pb, sizeof(pb))))
        a->pcrs_default = true;
    if (!a->p.efivars && (a->p.efivars = ev_sys_part(a->p.root, KT_SYS_EFIVARS, eb, sizeof(eb))))
        a->efivars_default = true;
    if (a->p.apply.n && !a->p.efivars)
        return cli_usage_error("eventlog", "--apply needs --efivars (the variables it changes)");
    return 0;
}

struct counts {
    size_t pcr_match, pcr_mismatch, vars_changed, vars_same, vars_unknown, ms2011, pcr7_banks,
        digests_bad;
};

static void summary(const struct args *a, const struct kt_evlog *log, int code,
                    const struct counts *c)
{
    if (!a->json)
        return;
    struct cli_count n[] = {
        {"events", log ? log->n_events : 0},
        {"pcrs_matching", c->pcr_match},
        {"pcrs_mismatching", c->pcr_mismatch},
        {"variables_changed", c->vars_changed},
        {"variables_same", c->vars_same},
        {"authorized_by_ms_uefi_ca_2011", c->ms2011},
        {"digests_mismatching", c->digests_bad},
        {"banks_pcr7_changes", c->pcr7_banks},
    };
    struct cli_summary sum = {code == EXIT_NOINPUT ? NULL : kt_verdict_name((enum kt_verdict)code),
                              code, n, sizeof(n) / sizeof(n[0]) - !a->predict, false, NULL};
    cli_json_summary(stdout, &sum);
}

static const char *varcmp_name(enum kt_evlog_varcmp r)
{
    switch (r) {
    case KT_VARCMP_SAME: return "same";
    case KT_VARCMP_CHANGED: return "changed";
    case KT_VARCMP_UNREADABLE: return "unreadable";
    default: return "absent";
    }
}

static int check_vars(const struct args *a, const struct kt_evlog *log,
                      const struct kt_efivars *vars, struct counts *c)
{
    struct kt_evlog_varcheck *r;
    size_t n;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_evlog_check_vars(log, vars, &r, &n, &e);
    if (rc < 0) {
        cli_error(a->log, &e);
        return cli_exit_code(rc);
    }
    if (!a->json && !a->quiet)
        printf("The variables measured into PCR 7 against %s:\n", tx(a->p.efivars));
    for (size_t i = 0; i < n; i++) {
        c->vars_changed += r[i].result == KT_VARCMP_CHANGED;
        c->vars_same += r[i].result == KT_VARCMP_SAME;
        c->vars_unknown += r[i].result >= KT_VARCMP_ABSENT;
        if (a->json) {
            struct jw w;
            jw_init(&w, stdout);
            jw_obj(&w, NULL);
            jw_str(&w, "type", "variable_check");
            jw_int(&w, "event", (long long)r[i].event_index);
            jw_str(&w, "name", r[i].name);
            jw_str(&w, "result", varcmp_name(r[i].result));
            jw_int(&w, "logged_length", (long long)r[i].logged_len);
            if (r[i].result <= KT_VARCMP_CHANGED)
                jw_int(&w, "current_length", (long long)r[i].now_len);
            else
                jw_null(&w, "current_length");
            jw_obj_end(&w);
            jw_newline(&w);
        } else if (!a->quiet) {
            printf("  %-10s %s\n", r[i].name,
                   r[i].result == KT_VARCMP_SAME      ? "the same as measured at this boot"
                   : r[i].result == KT_VARCMP_CHANGED ? "CHANGED since this boot: the next boot's PCR 7 differs"
                   : r[i].result == KT_VARCMP_ABSENT  ? "not in the variables (not compared)"
                                                      : "unreadable (not compared)");
        }
    }
    if (!a->json && c->vars_changed)
        printf("  a Secure Boot variable changed since this boot: PCR 7 will differ at the next "
               "boot (ktrust eventlog --predict shows the new value)\n");
    free(r);
    return 0;
}

/* The UKI PCR 11 and 12 are predicted from, and why (the prediction's
 * choice: --uki, or systemd-boot's next entry): one JSON object, or said
 * once in text. */
static void say_uki(const struct args *a, const struct kt_evlog_prediction *p)
{
    const struct kt_sdboot_next_uki *c = kt_evlog_prediction_uki(p);
    char words[512];
    if (!c || a->quiet || a->format)
        return;
    if (a->json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "predicted_uki");
        ev_uki_choice_json(&w, c);
        jw_obj_end(&w);
        jw_newline(&w);
        return;
    }
    bool o = c->type1 || c->options[0];
    printf("UKI: %s, %s%s%s%s", tx(c->path), ev_uki_choice_words(c->entry, (int)c->rule, words, sizeof(words)),
           o ? ", options \"" : "", o ? tx(c->options) : "", o ? "\"" : "");
    if (c->image[0])
        printf("; on the ESP: %s", tx(c->image));
    printf("\n");
}

static int predict(const struct args *a, const struct kt_evlog *log, struct kt_efivars *vars,
                   struct counts *c)
{
    uint8_t *sbat = NULL;
    size_t sbat_len = 0;
    struct cli_apply ap = a->p.apply;
    struct kt_efivars was = {0};
    bool have_was = vars && ap.n && kt_efivars_copy(vars, &was) == 0;
    if (vars && ap.n && cli_apply_all(vars, &ap, a->json, a->quiet || a->format)) {
        if (have_was)
            kt_efivars_free(&was);
        return cli_apply_cannot_answer(&ap, false, a->quiet || a->json); /* the summary follows */
    }
    if (a->p.sbat) {
        int rc = cli_sbat_payload(a->p.sbat, &sbat, &sbat_len);
        if (rc) {
            if (have_was)
                kt_efivars_free(&was);
            return rc;
        }
    }
    /* with --apply: the variables the updates start from, so that another
     * machine's log is refused, not blamed on the updates (without it the
     * variables' own changes are what is predicted) */
    struct kt_evlog_predict_opts o = {.vars = vars, .sbat_level = sbat, .sbat_level_len = sbat_len,
                                      .esp = a->p.esp, .uki = a->uki,
                                      .uki_options = a->uki_options,
                                      .before = have_was ? &was : NULL};
    struct kt_evlog_prediction *p;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_evlog_predict(log, &o, &p, &e);
    if (have_was)
        kt_efivars_free(&was);
    if (rc == -EXDEV) {
        free(sbat);
        return cli_cannot_answer(false, a->quiet || a->json, a->log, EXIT_NOINPUT, "%s", e.what);
    }
    if (rc < 0) {
        cli_error(a->log, &e);
        free(sbat);
        kt_evlog_prediction_free(p);
        return cli_exit_code(rc);
    }
    say_uki(a, p);
    struct ev_predict_args pa = {a->format, a->json, a->quiet, a->uki != NULL};
    c->pcr7_banks = ev_predict_print(log, p, &pa);
    kt_evlog_prediction_free(p);
    free(sbat);
    return 0;
}

static void header(const struct args *a, const struct kt_evlog *log)
{
    if (a->json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "eventlog");
        jw_str(&w, "file", a->log);
        jw_str(&w, "format", log->crypto_agile ? "crypto_agile" : "sha1");
        jw_arr(&w, "banks");
        for (size_t b = 0; b < log->n_banks; b++)
            jw_str(&w, NULL, ev_alg(log->bank[b].alg));
        jw_arr_end(&w);
        jw_int(&w, "events", (long long)log->n_events);
        if (log->have_locality)
            jw_int(&w, "startup_locality", log->startup_locality);
        else
            jw_null(&w, "startup_locality");
        jw_obj_end(&w);
        jw_newline(&w);
        return;
    }
    printf("%s: %s log, %zu events, banks", tx(a->log),
           log->crypto_agile ? "crypto-agile" : "SHA-1", log->n_events);
    for (size_t b = 0; b < log->n_banks; b++)
        printf(" %s%s", ev_alg(log->bank[b].alg), log->bank[b].supported ? "" : " (not computed)");
    if (log->have_locality)
        printf(", StartupLocality %u", log->startup_locality);
    printf("\n");
}

static int run(const struct args *a, const struct kt_evlog *log, struct counts *c)
{
    int code = 0;
    struct kt_efivars vars;
    bool have_vars = false;
    if (a->p.efivars) {
        struct kt_error e = KT_ERROR_INIT;
        int rc = kt_efivars_read(a->p.efivars, &vars, &e);
        if (rc < 0) {
            cli_error(a->p.efivars, &e);
            return cli_exit_code(rc);
        }
        have_vars = true;
    }
    if (!a->format) {
        header(a, log);
        ev_events_print(a->log, log, a->json, a->quiet || a->predict);
    }
    if (ev_integrity_print(log, a->json, a->quiet || a->format, &c->digests_bad) < 0) {
        code = EXIT_INTERNAL;
        goto out;
    }
    if (c->digests_bad)
        code = 5; /* the data of a measured event was altered */
    struct kt_evlog_pcrs p;
    int rc = kt_evlog_replay(log, &p);
    if (rc < 0) {
        code = EXIT_INTERNAL;
        goto out;
    }
    if (!a->predict && a->p.pcrs) {
        struct kt_pcr_values x;
        struct kt_pcr_tally pc;
        int ec = 0;
        if (ev_pcrs_read(a->p.pcrs, &x, &ec) < 0) {
            code = ec;
            goto out;
        }
        struct ev_show show = {a->json, a->quiet, a->verbose};
        if (ev_pcrs_compare(&p, &x, a->p.pcrs, &show, &pc) < 0) {
            code = EXIT_INTERNAL;
            goto out;
        }
        c->pcr_match = pc.match;
        c->pcr_mismatch = pc.mismatch;
        if (pc.mismatch)
            code = 5;
    } else if (!a->predict && !a->quiet) {
        ev_pcrs_print(&p, a->json);
    }
    if (!a->format && ev_authorities_print(log, a->json, a->quiet || a->predict, &c->ms2011) < 0) {
        code = 4;
        goto out;
    }
    if (!a->predict && have_vars) {
        rc = check_vars(a, log, &vars, c);
        if (rc > code)
            code = rc;
    }
    if (a->predict) {
        rc = predict(a, log, have_vars ? &vars : NULL, c);
        if (rc > code)
            code = rc;
    }
out:
    if (have_vars)
        kt_efivars_free(&vars);
    return code;
}

int cmd_eventlog(int argc, char **argv)
{
    struct args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    struct counts c = {0};
    rc = kt_file_open(a.log, &f, &e);
    if (rc < 0) {
        cli_error(a.log, &e);
        int code = cli_exit_code(rc);
        summary(&a, NULL, code, &c);
        return code;
    }
    struct kt_evlog log;
    rc = kt_evlog_parse(f.data, f.len, &log, &e);
    int code;
    if (rc < 0) {
        cli_error(a.log, &e);
        code = cli_exit_code(rc);
    } else {
        code = run(&a, &log, &c);
    }
    if (!a.format)
        summary(&a, rc < 0 ? NULL : &log, code, &c);
    kt_evlog_free(&log);
    kt_file_close(&f);
    return code;
}
