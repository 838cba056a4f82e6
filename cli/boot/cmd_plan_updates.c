/* ktrust plan-updates [--root DIR | --efivars DIR] [--esp DIR] UPDATES... :
 * which signed db/dbx/KEK/PK updates apply to this machine, in what order,
 * and does the ESP's chain still boot after each step (ktrust/plan.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply_print.h"
#include "cannot_answer.h"
#include "cli.h"
#include "json_summary.h"
#include "ktrust/advanced.h"
#include "ktrust/audit.h"
#include "ktrust/eventlog.h"
#include "ktrust/plan.h"
#include "evlog_load.h"
#include "nvram_print.h"
#include "seal_lines.h"
#include "text_escape.h"

enum {
    OPT_ROOT = OPT_FIRST_PRIVATE, OPT_EFIVARS, OPT_ESP, OPT_WRITE_EFIVARS, OPT_EVENTLOG,
    OPT_APPLY, OPT_KEK_MAP, OPT_ALL_ARCHES, OPT_HASHES
};

static const struct cli_opt opts[] = {
    CLI_OPT("root", 0, required_argument, OPT_ROOT, "DIR",
            "a system's files under DIR (its efivars and ESP, as audit --root reads them)"),
    CLI_OPT("efivars", 0, required_argument, OPT_EFIVARS, "DIR",
            "the variables in force, efivarfs form (default: " KT_SYS_EFIVARS_PATH ")"),
    CLI_OPT("esp", 0, required_argument, OPT_ESP, "DIR",
            "the EFI system partition whose shim and loader each step is judged by"),
    CLI_OPT("eventlog", 0, required_argument, OPT_EVENTLOG, "LOG",
            "the last boot's TCG event log: PCR 7 predicted after each step (default: the "
            "system's, under --root, or live without --efivars, when readable)"),
    CLI_OPTS(cli_opts_luks),
    CLI_OPT("apply", 0, required_argument, OPT_APPLY, "FILE",
            "an update to plan (repeatable): the same as an UPDATES argument"),
    CLI_OPT("kek-map", 0, required_argument, OPT_KEK_MAP, "JSON",
            "Microsoft's kek_update_map.json (default: one found among the UPDATES): names "
            "this PK's KEK update"),
    CLI_OPT("write-efivars", 0, required_argument, OPT_WRITE_EFIVARS, "DIR",
            "write the variables after the plan into DIR (a new or empty directory), "
            "efivarfs form"),
    CLI_OPT("all-arches", 0, no_argument, OPT_ALL_ARCHES, NULL,
            "apply the dbx updates of every architecture, not only this machine's (its "
            "shim's or loader's)"),
    CLI_OPTS(cli_opts_nvram),
    CLI_OPT("verbose", 'v', no_argument, 'v', NULL,
            "list every update file (other platform keys' KEK files too) and the boot chain "
            "after every step"),
    CLI_OPT("hashes", 0, no_argument, OPT_HASHES, NULL,
            "--json lists every entry an update adds or removes, the hashes too (by default "
            "the certificates, and how many entries)"),
    CLI_OPTS(cli_opts_output),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust plan-updates [--root DIR | --efivars DIR] [--esp DIR] [--eventlog LOG]\n"
        "                           [--luks SOURCE]... [--uki FILE] [--kek-map JSON]\n"
        "                           [--write-efivars DIR]\n"
        "                           [--all-arches] [--max-var-size BYTES] [--var-store-free BYTES]\n"
        "                           [--json [--hashes]] [-q] [-v] [--apply FILE]... [UPDATES...]\n"
        "Which signed db/dbx/KEK/PK updates (EFI_VARIABLE_AUTHENTICATION_2 files, or\n"
        "directories such as a clone of microsoft/secureboot_objects) apply to this\n"
        "machine, in what order, and what its boot chain says after each step.  An update\n"
        "applies when its signature verifies under this PK/KEK (or one an earlier step\n"
        "adds), never by its name.  Order: KEK, db, dbx (after the db updates), PK.\n",
        opts,
        "Exit code: 0 when the ESP's chain (if given) boots after every step; 5 when a step\n"
        "would stop it booting; 64 usage; 66 the variables or an UPDATES path cannot be\n"
        "read (or a directory holds no update), 4 a file is not a signed update: then\n"
        "\"cannot answer\", never \"0 found\".\n");
}

static const char *verdict_word(int v)
{
    return kt_verdict_name(kt_verdict_of(v));
}

static const char *yes(bool b)
{
    return b ? "yes" : "no";
}

/* ---- text -------------------------------------------------------------- */

static bool same_link(const struct kt_plan_state *a, const struct kt_plan_state *b, int i)
{
    if (!a || !a->checked)
        return false;
    if (i == 2)
        return a->windows_verdict == b->windows_verdict &&
               !strcmp(a->windows_reason, b->windows_reason);
    return i == 0 ? a->shim_verdict == b->shim_verdict && !strcmp(a->shim_reason, b->shim_reason)
                  : a->loader_verdict == b->loader_verdict &&
                        !strcmp(a->loader_reason, b->loader_reason);
}

/* A state; its shim and loader lines only when they differ from prev's
 * (prev NULL: always). */
static void text_state(const char *when, const struct kt_plan_state *s,
                       const struct kt_plan_state *prev, const struct kt_seal_found *sealed)
{
    printf("%s: KEK 2023 %s; db: UEFI CA 2011 %s%s, UEFI CA 2023 %s; a shim signed only by "
           "the 2023 CA would %sboot\n",
           when, yes(s->kek_2023), yes(s->db_uefi_2011), s->dbx_uefi_2011 ? " (revoked in dbx)" : "",
           yes(s->db_uefi_2023), s->shim_2023_only_boots ? "" : "not ");
    if (s->pcr7_known)
        printf("  PCR 7 (%s): %s%s\n", s->pcr7_bank, s->pcr7,
               s->pcr7_changes ? " -- differs from the last boot: secrets sealed to PCR 7 will not "
                                 "unseal; re-enroll after the update (systemd-cryptenroll "
                                 "--wipe-slot=tpm2 --tpm2-device=auto --tpm2-pcrs=7) or seal to a "
                                 "signed policy"
                               : " (as at the last boot)");
    cli_seal_text(sealed, s->seal, "  ");
    if (!s->checked)
        return;
    if (s->shim_found && !same_link(prev, s, 0))
        printf("  shim: %s: %s\n", verdict_word(s->shim_verdict), tx(s->shim_reason));
    if (s->loader_found && !same_link(prev, s, 1))
        printf("  loader: %s: %s\n", verdict_word(s->loader_verdict), tx(s->loader_reason));
    if (s->windows_found && !same_link(prev, s, 2))
        printf("  Windows boot manager: %s: %s\n", verdict_word(s->windows_verdict),
               tx(s->windows_reason));
}

/* The update files: one line each; other platform keys' KEK/PK files in
 * one line unless verbose. */
static void text_files(const struct kt_plan *p, bool verbose)
{
    size_t applies = 0;
    for (size_t i = 0; i < p->n_files; i++)
        applies += p->files[i].applies;
    printf("updates: %zu found, %zu apply\n", p->n_files, applies);
    if (p->arch[0])
        printf("  this machine is %s (%s)%s\n", p->arch, tx(p->arch_from),
               p->n_other_arch ? ": dbx updates for other architectures are skipped "
                                 "(--all-arches applies them)" : "");
    for (size_t i = 0; i < p->n_files; i++) {
        const struct kt_plan_file *f = &p->files[i];
        if (f->other_pk && !verbose && p->n_other_pk > 1)
            continue;
        const char *var = f->change.target < KT_EFIVAR__COUNT ? kt_efivar_name(f->change.target)
                                                              : "?";
        printf("  %-7s %-4s %s: %s\n",
               f->step         ? "step"
               : f->other_arch ? "skip"
               : f->no_fit     ? "no fit"
               : f->held       ? "held"
               : f->applies    ? "in force"
                               : "no",
               var,
               tx(f->path), tx(f->reason));
    }
    if (p->n_other_pk > 1 && !verbose)
        printf("  no      KEK  %zu KEK updates for other platform keys (not this PK; -v lists "
               "them)\n", p->n_other_pk);
}

/* sealed: the tokens each state is checked against */
static void text(const struct kt_plan *p, bool verbose, const struct kt_seal_found *sealed)
{
    if (p->pk[0])
        printf("PK: %s (SHA-1 %s)\n", tx(p->pk), p->pk_sha1);
    text_state("now", &p->before, NULL, sealed);
    text_files(p, verbose);
    if (p->n_steps)
        printf("plan:\n");
    for (size_t i = 0; i < p->n_steps; i++) {
        const struct kt_plan_file *f = &p->files[p->order[i]];
        printf("%zu. %s\n", i + 1, tx(f->path));
        cli_apply_text(f->path, &f->change);
        if (f->revokes[0])
            printf("  revokes: %s\n", tx(f->revokes));
        cli_nv_fit_text(&f->nv, &p->nv, f->nv.free_after + f->nv.after - f->nv.before);
        char when[48];
        snprintf(when, sizeof(when), "   after step %zu", i + 1);
        text_state(when, &p->after[i], verbose ? NULL : i ? &p->after[i - 1] : &p->before,
                   sealed);
    }
    cli_nv_summary_text(&p->nv, p->nv_free, &p->shim_nv, "after the plan");
    printf("KEK: %s\n", tx(p->kek_note));
    if (p->seal_step) {
        printf("sealed secrets: after step %zu a disk asks for its recovery key; re-seal before "
               "the plan, to the PCRs after its last step:\n", p->seal_step);
        cli_seal_reseal(sealed, p->after[p->n_steps - 1].seal, "  ");
    }
    if (p->end_missing[0])
        printf("not given: %s\n", tx(p->end_missing));
    static const char *const state[] = {"ready", "still AT RISK", "still NOT READY"};
    printf("after the %s: %s: %s\n", p->n_steps ? "last step" : "plan (no step applies)",
           p->end_state >= 0 && p->end_state <= 2 ? state[p->end_state] : "unknown",
           tx(p->end_why));
    if (p->breaks_step)
        printf("plan: step %zu stops the ESP's chain booting\n", p->breaks_step);
    else if (p->before.checked)
        printf("plan: %zu step%s; the ESP's chain boots after %s\n", p->n_steps,
               p->n_steps == 1 ? "" : "s", p->n_steps == 1 ? "it" : "each");
    else
        printf("plan: %zu step%s; no ESP given: the boot chain was not judged\n", p->n_steps,
               p->n_steps == 1 ? "" : "s");
}

/* The summary's verdict, in plan words (CONTRACT's summary shape). */
static const char *plan_word(const struct kt_plan *p)
{
    return p->breaks_step ? "stops_booting" : p->before.checked ? "keeps_booting" : "not_judged";
}

/* ---- JSON -------------------------------------------------------------- */

static void json_state(struct jw *w, const char *key, const struct kt_plan_state *s,
                       const struct kt_seal_found *sealed)
{
    jw_obj(w, key);
    jw_bool(w, "kek_2023", s->kek_2023);
    jw_bool(w, "db_uefi_ca_2011", s->db_uefi_2011);
    jw_bool(w, "db_uefi_ca_2023", s->db_uefi_2023);
    jw_bool(w, "dbx_uefi_ca_2011", s->dbx_uefi_2011);
    jw_bool(w, "shim_2023_only_boots", s->shim_2023_only_boots);
    if (s->pcr7_known) {
        jw_obj(w, "pcr7");
        jw_str(w, "bank", s->pcr7_bank);
        jw_str(w, "value", s->pcr7);
        jw_bool(w, "changes", s->pcr7_changes);
        jw_obj_end(w);
    } else {
        jw_null(w, "pcr7");
    }
    cli_seal_json(w, "sealed", sealed, s->seal);
    const char *names[3] = {"shim", "loader", "windows_boot_manager"};
    const bool found[3] = {s->shim_found, s->loader_found, s->windows_found};
    const int verdict[3] = {s->shim_verdict, s->loader_verdict, s->windows_verdict};
    const char *reason[3] = {s->shim_reason, s->loader_reason, s->windows_reason};
    for (int i = 0; i < 3; i++) {
        if (!s->checked || !found[i]) {
            jw_null(w, names[i]);
            continue;
        }
        jw_obj(w, names[i]);
        jw_str(w, "verdict", verdict_word(verdict[i]));
        jw_str(w, "reason", reason[i]);
        jw_obj_end(w);
    }
    jw_obj_end(w);
}

/* An entry of an update's change ("X509 CN=...", "sha256 <hex>"): listed
 * in --json when a certificate, the rest (hashes, SVN records: one dbx
 * update adds hundreds) only with --hashes; entries_added/_removed count all. */
static void json_entries(struct jw *w, const char *key, char *const *e, size_t n, bool all)
{
    jw_arr(w, key);
    for (size_t k = 0; k < n; k++)
        if (all || !strncmp(e[k], "X509 ", 5))
            jw_str(w, NULL, e[k]);
    jw_arr_end(w);
}

static void json(const struct kt_plan *p, int code, bool hashes, const struct kt_seal_found *sealed)
{
    struct jw w;
    for (size_t i = 0; i < p->n_files; i++) {
        const struct kt_plan_file *f = &p->files[i];
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "update");
        jw_str(&w, "file", f->path);
        jw_bool(&w, "applies", f->applies);
        jw_str(&w, "variable", f->change.target < KT_EFIVAR__COUNT
                                   ? kt_efivar_name(f->change.target) : NULL);
        jw_str(&w, "authority", f->change.authority[0] ? f->change.authority : NULL);
        jw_str(&w, "reason", f->reason);
        if (f->step)
            jw_int(&w, "step", (long long)f->step);
        else
            jw_null(&w, "step");
        size_t gained = f->step ? f->change.n_gained : 0, lost = f->step ? f->change.n_lost : 0;
        jw_int(&w, "entries_added", (long long)gained);
        jw_int(&w, "entries_removed", (long long)lost);
        json_entries(&w, "adds", f->change.gained, gained, hashes);
        json_entries(&w, "removes", f->change.lost, lost, hashes);
        jw_str(&w, "arch", f->arch[0] ? f->arch : NULL);
        jw_bool(&w, "other_arch", f->other_arch);
        jw_bool(&w, "held", f->held);
        jw_str(&w, "revokes", f->revokes[0] ? f->revokes : NULL);
        if (f->step || f->no_fit)
            cli_nv_fit_json(&w, "nvram", &f->nv);
        else
            jw_null(&w, "nvram");
        jw_obj_end(&w);
        jw_newline(&w);
    }
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "type", "plan");
    jw_str(&w, "pk", p->pk[0] ? p->pk : NULL);
    jw_str(&w, "pk_sha1", p->pk_sha1[0] ? p->pk_sha1 : NULL);
    jw_str(&w, "kek", p->kek_note);
    jw_str(&w, "kek_update_map", p->map[0] ? p->map : NULL);
    jw_str(&w, "arch", p->arch[0] ? p->arch : NULL);
    jw_str(&w, "windows_boot_manager_file", p->windows[0] ? p->windows : NULL);
    cli_nv_summary_json(&w, "nvram_limits", &p->nv, p->nv_free, &p->shim_nv);
    json_state(&w, "before", &p->before, sealed);
    jw_arr(&w, "steps");
    for (size_t i = 0; i < p->n_steps; i++) {
        const struct kt_plan_file *f = &p->files[p->order[i]];
        jw_obj(&w, NULL);
        jw_int(&w, "step", (long long)(i + 1));
        jw_str(&w, "file", f->path);
        jw_str(&w, "variable", kt_efivar_name(f->change.target));
        json_state(&w, "after", &p->after[i], sealed);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    json_state(&w, "final", p->n_steps ? &p->after[p->n_steps - 1] : &p->before, sealed);
    if (p->seal_step)
        jw_int(&w, "seal_step", (long long)p->seal_step);
    else
        jw_null(&w, "seal_step");
    jw_obj(&w, "end");
    jw_str(&w, "readiness", kt_rollover_state_name((enum kt_rollover_state)p->end_state));
    jw_str(&w, "why", p->end_why);
    jw_str(&w, "not_given", p->end_missing[0] ? p->end_missing : NULL);
    jw_obj_end(&w);
    jw_obj_end(&w);
    jw_newline(&w);

    size_t applies = 0;
    for (size_t i = 0; i < p->n_files; i++)
        applies += p->files[i].applies;
    const struct cli_count counts[] = {
        {"updates", p->n_files},
        {"apply", applies},
        {"steps", p->n_steps},
        {"do_not_apply", p->n_files - applies},
    };
    struct cli_summary sum = {plan_word(p), code, counts,
                              sizeof(counts) / sizeof(counts[0]), false, NULL};
    cli_json_summary(stdout, &sum);
}

/* 5 (rejected) when a step stops a chain that booted before it: the
 * library's verdict, p->breaks_step. */
static int exit_code(const struct kt_plan *p)
{
    return p->breaks_step || p->n_no_fit || p->n_held ? KT_REJECTED : 0;
}

/* --write-efivars DIR: a new or empty directory, then every variable. */
static int write_vars(const char *dir, const struct kt_efivars *s)
{
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        cli_errorf(dir, "cannot create: %s", strerror(errno));
        return EXIT_NOINPUT;
    }
    DIR *d = opendir(dir);
    if (!d) {
        cli_errorf(dir, "cannot open: %s", strerror(errno));
        return EXIT_NOINPUT;
    }
    struct dirent *de;
    bool empty = true;
    while ((de = readdir(d)) != NULL)
        empty &= !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
    closedir(d);
    if (!empty)
        return cli_usage_error("plan-updates", "--write-efivars %s: not empty", dir);
    struct kt_error e = KT_ERROR_INIT;
    if (kt_efivars_write(s, dir, &e) < 0) {
        cli_error(dir, &e);
        return EXIT_INTERNAL;
    }
    return 0;
}

struct args {
    struct kt_audit_opts ao;
    bool json, quiet;
    const char *write_dir, *log_path, *uki;
    char **luks; /* --luks SOURCE, in order */
    size_t n_luks;
    struct cli_apply up; /* --apply FILE and UPDATES alike: one list */
    const char *kek_map;
    bool verbose, all_arches, hashes;
    struct kt_nv_limits nv_opt; /* --max-var-size, --var-store-free */
};

/* 0 to go on, -1 after --help, else the exit code. */
static int parse_args(int argc, char **argv, struct args *a)
{
    struct cli_getopt g;
    int c;
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        switch (c) {
        case OPT_ROOT: a->ao.root = optarg; break;
        case OPT_EFIVARS: a->ao.efivars = optarg; break;
        case OPT_ESP: a->ao.esp = optarg; break;
        case OPT_WRITE_EFIVARS: a->write_dir = optarg; break;
        case OPT_EVENTLOG: a->log_path = optarg; break;
        case OPT_LUKS_SOURCE: a->luks[a->n_luks++] = optarg; break;
        case OPT_LUKS_UKI: a->uki = optarg; break;
        case OPT_KEK_MAP: a->kek_map = optarg; break;
        case OPT_APPLY:
            if (cli_apply_add(&a->up, "plan-updates", optarg) < 0)
                return EXIT_USAGE;
            break;
        case OPT_JSON: a->json = true; break;
        case 'q': a->quiet = true; break;
        case 'v': a->verbose = true; break;
        case OPT_HASHES: a->hashes = true; break;
        case OPT_ALL_ARCHES: a->all_arches = true; break;
        case OPT_NV_MAX_VAR: case OPT_NV_FREE:
            if (cli_nv_opt(&a->nv_opt, c, optarg, "plan-updates"))
                return EXIT_USAGE;
            break;
        case 'h': usage(stdout); return -1;
        default: return EXIT_USAGE; /* cli_getopt said why, on one line */
        }
    }
    /* --apply FILE and UPDATES alike: one list */
    while (optind < argc && a->up.n < CLI_MAX_APPLY)
        a->up.files[a->up.n++] = argv[optind++];
    if (optind < argc)
        return cli_usage_error("plan-updates", "at most %d UPDATES", CLI_MAX_APPLY);
    if (a->up.n == 0)
        return cli_usage_error("plan-updates", "no UPDATES given (files or directories)");
    if (a->ao.root && a->ao.efivars)
        return cli_usage_error("plan-updates", "--root or --efivars, not both");
    return 0;
}

/* The sealed tokens: --luks (each must read), else with a log the volumes
 * of /etc/crypttab under --root or live (none with --efivars alone: another
 * machine's variables). */
static int find_sealed(const struct args *a, bool have_log, struct kt_seal_found *sealed)
{
    if (a->n_luks && !have_log)
        return cli_usage_error("plan-updates", "--luks: the PCRs are predicted from this "
                                               "boot's event log: give --eventlog LOG");
    if (!have_log || (!a->n_luks && a->ao.efivars && !a->ao.root))
        return 0;
    return cli_seal_find("plan-updates", a->ao.root, a->luks, a->n_luks, !a->n_luks, sealed);
}

static int run(const struct args *a, struct kt_audit *loc, const struct kt_efivars *vars,
               const struct kt_evlog *log, const struct kt_seal_found *sealed)
{
    struct kt_nv_limits nv;
    kt_nv_limits_read(loc->path[KT_AUDIT_EFIVARS], &nv);
    nv.max_var = a->nv_opt.max_var;
    if (a->nv_opt.free_known) {
        nv.store_free = a->nv_opt.store_free;
        nv.free_known = true;
        snprintf(nv.source, sizeof(nv.source), "%s", a->nv_opt.source);
    }
    const char *esp = loc->found[KT_AUDIT_ESP] ? loc->path[KT_AUDIT_ESP] : NULL;
    struct kt_seal_uki *uki = NULL;
    int code = cli_seal_uki(a->uki, esp, vars, sealed, &uki);
    if (code)
        return code;
    struct kt_plan_opts po = {
        .nv = &nv,
        .all_arches = a->all_arches,
        .eventlog = log,
        .vars = vars,
        .updates = a->up.files,
        .n_updates = a->up.n,
        .kek_map = a->kek_map,
        .esp = esp,
        .tokens = sealed->tok,
        .n_tokens = sealed->n,
        .uki = uki,
    };
    struct kt_plan p;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_plan_run(&po, &p, &e);
    if (rc < 0) {
        code = cli_cannot_answer_err(a->json, a->quiet, NULL, cli_exit_code(rc), &e);
    } else if (a->write_dir && (rc = write_vars(a->write_dir, &p.final)) != 0) {
        code = rc;
    } else {
        code = exit_code(&p);
        if (a->json)
            json(&p, code, a->hashes, sealed);
        else if (!a->quiet)
            text(&p, a->verbose, sealed);
    }
    kt_plan_free(&p);
    cli_seal_uki_free(uki);
    return code;
}

int cmd_plan_updates(int argc, char **argv)
{
    struct args args = {.luks = calloc((size_t)argc + 1, sizeof(char *))};
    if (!args.luks)
        return EXIT_INTERNAL;
    int code = parse_args(argc, argv, &args);
    struct kt_audit *a = code ? NULL : calloc(1, sizeof(*a));
    if (code || !a) {
        free(args.luks);
        return code < 0 ? 0 : code ? code : EXIT_INTERNAL;
    }
    /* the variables and the ESP only: "" looks nowhere for the rest */
    args.ao.kernel = args.ao.modules = args.ao.release = "";
    kt_audit_locate(&args.ao, a);
    struct kt_efivars vars;
    struct kt_error e = KT_ERROR_INIT;
    if (kt_efivars_read(a->path[KT_AUDIT_EFIVARS], &vars, &e) < 0) {
        code = cli_cannot_answer_err(args.json, args.quiet, a->path[KT_AUDIT_EFIVARS],
                                     EXIT_NOINPUT, &e);
        free(a);
        free(args.luks);
        return code;
    }
    struct cli_evlog log = {0};
    struct kt_seal_found sealed = {0}; /* the tokens each state is checked against */
    if (args.ao.esp && !a->found[KT_AUDIT_ESP])
        code = cli_cannot_answer(args.json, args.quiet, args.ao.esp, EXIT_NOINPUT,
                                 "cannot open: not a directory");
    else
        code = cli_evlog_load(args.log_path, args.ao.root, args.ao.efivars, &log);
    char why[512];
    /* the plan starts from vars: another machine's log is not its doing */
    struct kt_evlog_predict_opts from = {.vars = &vars, .before = &vars};
    if (!code && log.have && kt_evlog_other_machine(&log.log, &from, why, sizeof(why)) == 1)
        code = cli_cannot_answer(args.json, args.quiet, args.log_path ? args.log_path : "the event log",
                                 EXIT_NOINPUT, "%s", why); /* not the plan's doing */
    if (!code)
        code = find_sealed(&args, log.have, &sealed);
    if (!code)
        code = run(&args, a, &vars, log.have ? &log.log : NULL, &sealed);
    kt_seal_found_free(&sealed);
    cli_evlog_free(&log);
    kt_efivars_free(&vars);
    free(a);
    free(args.luks);
    return code;
}
