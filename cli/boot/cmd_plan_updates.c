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
#include "cli.h"
#include "json_summary.h"
#include "ktrust/advanced.h"
#include "ktrust/audit.h"
#include "ktrust/eventlog.h"
#include "ktrust/plan.h"
#include "text_escape.h"

enum { OPT_ROOT = OPT_FIRST_PRIVATE, OPT_EFIVARS, OPT_ESP, OPT_WRITE_EFIVARS, OPT_EVENTLOG,
       OPT_HASHES };

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
    CLI_OPT("write-efivars", 0, required_argument, OPT_WRITE_EFIVARS, "DIR",
            "write the variables after the plan into DIR (a new or empty directory), "
            "efivarfs form"),
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
        "                           [--write-efivars DIR] [--json [--hashes]] [-q] UPDATES...\n"
        "Which signed db/dbx/KEK/PK updates (EFI_VARIABLE_AUTHENTICATION_2 files, or\n"
        "directories such as a clone of microsoft/secureboot_objects) apply to this\n"
        "machine, in what order, and what its boot chain says after each step.  An update\n"
        "applies when its signature verifies under this PK/KEK (or one an earlier step\n"
        "adds), never by its name.  Order: KEK, db, dbx (after the db updates), PK.\n",
        opts,
        "Exit code: 0 when the ESP's chain (if given) boots after every step; 5 when a step\n"
        "would stop it booting; 64 usage; 66 the variables cannot be read.\n");
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

static void text_state(const char *when, const struct kt_plan_state *s)
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
    if (!s->checked)
        return;
    if (s->shim_found)
        printf("  shim: %s: %s\n", verdict_word(s->shim_verdict), tx(s->shim_reason));
    if (s->loader_found)
        printf("  loader: %s: %s\n", verdict_word(s->loader_verdict), tx(s->loader_reason));
}

static void text(const struct kt_plan *p)
{
    if (p->pk[0])
        printf("PK: %s (SHA-1 %s)\n", tx(p->pk), p->pk_sha1);
    text_state("now", &p->before);
    size_t applies = 0;
    for (size_t i = 0; i < p->n_files; i++)
        applies += p->files[i].applies;
    printf("updates: %zu found, %zu apply\n", p->n_files, applies);
    for (size_t i = 0; i < p->n_files; i++) {
        const struct kt_plan_file *f = &p->files[i];
        const char *var = f->change.target < KT_EFIVAR__COUNT ? kt_efivar_name(f->change.target)
                                                              : "?";
        printf("  %-7s %-4s %s: %s\n", f->step ? "step" : f->applies ? "in force" : "no", var,
               tx(f->path), tx(f->reason));
    }
    if (p->n_steps)
        printf("plan:\n");
    for (size_t i = 0; i < p->n_steps; i++) {
        const struct kt_plan_file *f = &p->files[p->order[i]];
        printf("%zu. %s\n", i + 1, tx(f->path));
        cli_apply_text(f->path, &f->change);
        char when[48];
        snprintf(when, sizeof(when), "   after step %zu", i + 1);
        text_state(when, &p->after[i]);
    }
    printf("KEK: %s\n", tx(p->kek_note));
}

/* ---- JSON -------------------------------------------------------------- */

static void json_state(struct jw *w, const char *key, const struct kt_plan_state *s)
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
    const char *names[2] = {"shim", "loader"};
    const bool found[2] = {s->shim_found, s->loader_found};
    const int verdict[2] = {s->shim_verdict, s->loader_verdict};
    const char *reason[2] = {s->shim_reason, s->loader_reason};
    for (int i = 0; i < 2; i++) {
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

static void json(const struct kt_plan *p, int code, bool hashes)
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
    json_state(&w, "before", &p->before);
    jw_arr(&w, "steps");
    for (size_t i = 0; i < p->n_steps; i++) {
        const struct kt_plan_file *f = &p->files[p->order[i]];
        jw_obj(&w, NULL);
        jw_int(&w, "step", (long long)(i + 1));
        jw_str(&w, "file", f->path);
        jw_str(&w, "variable", kt_efivar_name(f->change.target));
        json_state(&w, "after", &p->after[i]);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    json_state(&w, "final", p->n_steps ? &p->after[p->n_steps - 1] : &p->before);
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
    struct cli_summary sum = {code ? "rejected" : "trusted", code, counts,
                              sizeof(counts) / sizeof(counts[0]), false, NULL};
    cli_json_summary(stdout, &sum);
}

/* 5 (rejected) when a step stops a chain that booted before it: the
 * library's verdict, p->breaks_step. */
static int exit_code(const struct kt_plan *p)
{
    return p->breaks_step ? KT_REJECTED : 0;
}

/* The event log: --eventlog LOG (an error when it cannot be read or
 * parsed), else the system's when it can be read (silently none): under
 * --root, or the live one when the variables are the live ones (never with
 * --efivars: another machine's variables, and offline reads nothing of the
 * host). */
static struct kt_file log_file;

static int load_log(const char *path, const char *root, const char *efivars,
                    struct kt_evlog *log, bool *have)
{
    char def[4200];
    bool given = path != NULL;
    if (!path && efivars && !root)
        return 0;
    if (!path) {
        kt_sys_path_under(root, KT_SYS_EVENTLOG, def, sizeof(def));
        if (access(def, R_OK) != 0)
            return 0;
        path = def;
    }
    struct kt_error e = KT_ERROR_INIT;
    memset(log, 0, sizeof(*log));
    int rc = kt_file_open(path, &log_file, &e);
    if (rc == 0)
        rc = kt_evlog_parse(log_file.data, log_file.len, log, &e);
    if (rc < 0) {
        if (rc != -ENOENT || given)
            cli_error(path, &e);
        kt_evlog_free(log); /* also after a failed parse */
        kt_file_close(&log_file);
        return given || rc != -ENOENT ? cli_exit_code(rc) : 0;
    }
    *have = true;
    return 0;
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

int cmd_plan_updates(int argc, char **argv)
{
    struct kt_audit_opts ao = {0};
    bool json_out = false, quiet = false, hashes = false;
    const char *write_dir = NULL, *log_path = NULL;
    struct cli_getopt g;
    int c;
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        switch (c) {
        case OPT_ROOT: ao.root = optarg; break;
        case OPT_EFIVARS: ao.efivars = optarg; break;
        case OPT_ESP: ao.esp = optarg; break;
        case OPT_WRITE_EFIVARS: write_dir = optarg; break;
        case OPT_EVENTLOG: log_path = optarg; break;
        case OPT_JSON: json_out = true; break;
        case OPT_HASHES: hashes = true; break;
        case 'q': quiet = true; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind >= argc)
        return cli_usage_error("plan-updates", "no UPDATES given (files or directories)");
    if (ao.root && ao.efivars)
        return cli_usage_error("plan-updates", "--root or --efivars, not both");
    struct kt_audit *a = malloc(sizeof(*a));
    if (!a)
        return EXIT_INTERNAL;
    memset(a, 0, sizeof(*a));
    /* the variables and the ESP only: "" looks nowhere for the rest */
    ao.kernel = ao.modules = ao.release = "";
    kt_audit_locate(&ao, a);
    struct kt_efivars vars;
    struct kt_error e = KT_ERROR_INIT;
    if (kt_efivars_read(a->path[KT_AUDIT_EFIVARS], &vars, &e) < 0) {
        cli_error(a->path[KT_AUDIT_EFIVARS], &e);
        free(a);
        return EXIT_NOINPUT;
    }
    struct kt_evlog log;
    bool have_log = false;
    int lrc = load_log(log_path, ao.root, ao.efivars, &log, &have_log);
    if (lrc) {
        kt_efivars_free(&vars);
        free(a);
        return lrc;
    }
    struct kt_plan_opts po = {
        .eventlog = have_log ? &log : NULL,
        .vars = &vars,
        .updates = (const char *const *)&argv[optind],
        .n_updates = (size_t)(argc - optind),
        .esp = a->found[KT_AUDIT_ESP] ? a->path[KT_AUDIT_ESP] : NULL,
    };
    if (ao.esp && !a->found[KT_AUDIT_ESP]) {
        cli_errorf(ao.esp, "cannot open: not a directory");
        kt_efivars_free(&vars);
        free(a);
        return EXIT_NOINPUT;
    }
    struct kt_plan p;
    int rc = kt_plan_run(&po, &p, &e);
    int code;
    if (rc < 0) {
        cli_error("plan-updates", &e);
        code = cli_exit_code(rc);
    } else if (write_dir && (rc = write_vars(write_dir, &p.final)) != 0) {
        code = rc;
    } else {
        code = exit_code(&p);
        if (json_out)
            json(&p, code, hashes);
        else if (!quiet)
            text(&p);
    }
    kt_plan_free(&p);
    if (have_log) {
        kt_evlog_free(&log);
        kt_file_close(&log_file);
    }
    kt_efivars_free(&vars);
    free(a);
    return code;
}
