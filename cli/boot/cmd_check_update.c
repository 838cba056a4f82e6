/* ktrust check-update [--dbx FILE]... [--sbat-level SPEC] [--db FILE]...
 * [--dbx-info JSON] PATH... : would a dbx and/or SbatLevel update revoke
 * any boot binary under PATH (an ESP mount, files or directories)? */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "apply_print.h"
#include "cannot_answer.h"
#include "check_update_install.h"
#include "seal_lines.h"
#include "cli.h"
#include "json_summary.h"
#include "ktrust/advanced.h"
#include "ktrust/boot.h"
#include "ktrust/efivars.h"
#include "ktrust/update.h"
#include "nvram_print.h"
#include "sbat_print.h"

enum { OPT_DBX = OPT_FIRST_PRIVATE, OPT_DB, OPT_SBAT_LEVEL, OPT_DBX_INFO, OPT_INSTALL,
       OPT_EFIVARS, OPT_ROOT, OPT_APPLY, OPT_EVENTLOG, OPT_ESP };

static const struct cli_opt opts[] = {
    CLI_OPT("dbx-update", 0, required_argument, OPT_DBX, "FILE",
            "a dbx update: a signed update file, an ESL or an efivarfs dump (repeatable; "
            "they combine)"),
    CLI_OPT("dbx", 0, required_argument, OPT_DBX, "FILE",
            "the old spelling of --dbx-update (in chain, --dbx is the dbx variable)"),
    CLI_OPT("esp", 0, required_argument, OPT_ESP, "DIR",
            "the EFI system partition: its boot binaries are checked (a PATH); with "
            "--install, where the current loader is"),
    CLI_OPT("sbat-level", 0, required_argument, OPT_SBAT_LEVEL, "SPEC",
            "an SbatLevel, as verify-pe --sbat-level takes it"),
    CLI_OPT("db", 0, required_argument, OPT_DB, "FILE",
            "db lists, to say whether db vouches for each file (repeatable)"),
    CLI_OPT("efivars", 0, required_argument, OPT_EFIVARS, "DIR",
            "the variables in force (efivarfs form): their dbx is checked and their db "
            "vouches, after any --apply; with --install the machine's (default "
            KT_SYS_EFIVARS_PATH ")"),
    CLI_OPT("apply", 0, required_argument, OPT_APPLY, "FILE",
            "a signed db/dbx/KEK/PK update applied to --efivars first, as firmware would "
            "(repeatable, in order); one the firmware's NVRAM would refuse is left out"),
    CLI_OPTS(cli_opts_nvram),
    CLI_OPT("trust", 0, required_argument, OPT_DB, "FILE",
            "the same as --db: the certificates trusted to vouch for boot binaries "
            "(so that 'ktrust --trust FILE check-update' means what it says)"),
    CLI_OPT("cert", 0, required_argument, OPT_DB, "FILE", "the same as --db"),
    CLI_OPT("dbx-info", 0, required_argument, OPT_DBX_INFO, "JSON",
            "Microsoft's dbx_info_msft_latest.json, to name what an entry revokes and "
            "which architecture an update is for"),
    CLI_OPT("verbose", 'v', no_argument, 'v', NULL,
            "text: also each file's format and architecture (PE machine)"),
    CLI_OPT("install", 0, no_argument, OPT_INSTALL, NULL,
            "instead: would this machine boot NEW_SHIM [NEW_LOADER ...] in place of the "
            "current ones (its db, dbx, MOK, SbatLevel)? Exit 0 yes, 5 no"),
    CLI_OPT("root", 0, required_argument, OPT_ROOT, "DIR",
            "with --install: the variables of the system under DIR (DIR" KT_SYS_EFIVARS_PATH ")"),
    CLI_OPT("eventlog", 0, required_argument, OPT_EVENTLOG, "LOG",
            "with --install: the last boot's TCG event log, to predict PCR 4 and 7 with the new "
            "binaries for the TPM-sealed keys (default: the system's, under --root, or live "
            "without --efivars, when readable)"),
    CLI_OPTS(cli_opts_luks),
    CLI_OPTS(cli_opts_output),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust check-update [--dbx-update FILE]... [--sbat-level SPEC] [--db FILE]...\n"
        "                           [--efivars DIR [--apply FILE]...] [--dbx-info JSON]\n"
        "                           [--json] [-q] [-v] [--esp DIR] PATH...\n"
        "       ktrust check-update --install [--efivars DIR | --root DIR] [--esp DIR]\n"
        "                           [--apply FILE]... [--eventlog LOG] [--luks SOURCE]... [--uki FILE]\n"
        "                           [--json] [-q]\n"
        "                           NEW_SHIM [NEW_LOADER ...]\n"
        "Would this dbx update and/or SbatLevel revoke a boot binary under PATH (an ESP,\n"
        "files or directories)?  Every PE found (PE32 and PE32+; by its MZ header, or\n"
        "named *.efi) is checked as firmware and shim check it: its Authenticode hash in\n"
        "every algorithm dbx holds, every certificate of each signature's chain from its\n"
        "signer against X509 entries (the certificate itself, or one the entry issued) and\n"
        "X509_SHA256/384/512 entries, its .sbat against the level.\n"
        "--install: would the machine boot NEW_SHIM (firmware: db and dbx on each of its\n"
        "signatures) and each NEW_LOADER behind it (shim: its vendor certificate, MOK,\n"
        "the SbatLevel in force and the one the new shim would apply) in place of the\n"
        "current ones?  No NEW_LOADER: the loader on the ESP today (as audit finds it,\n"
        "under --root or live; none with --efivars alone) stays behind the new shim.\n"
        "For a package's postinst: `-q` prints nothing.\n",
        opts,
        "Exit code: 5 when anything would be revoked, 4 when a file could not be parsed\n"
        "(and nothing is revoked), 0 otherwise.  --install: 0 they would boot, 5 they\n"
        "would not (the reason on stdout), 4 a binary cannot be parsed, 66 an input\n"
        "cannot be read.\n");
}

struct run {
    struct kt_update_check *u;
    bool have_level, have_db;
    bool json, quiet, verbose;
    size_t files, revoked, unreadable, missing;
    uint16_t machines[16]; /* the machine types of the PEs checked, each once */
    size_t n_machines;
    int worst;
    struct {
        int which; /* OPT_DBX, OPT_DB, OPT_DBX_INFO */
        const char *path;
    } in[64];
    size_t n_in;
};

static int add_input(struct run *R, int which, const char *path)
{
    if (R->n_in == sizeof(R->in) / sizeof(R->in[0]))
        return cli_usage_error("check-update", "at most %zu --dbx-update/--db/--dbx-info files",
                               R->n_in);
    R->in[R->n_in].which = which;
    R->in[R->n_in++].path = path;
    return 0;
}

static void print_file(struct run *R, const char *path, const struct kt_update_verdict *v)
{
    int rc = v->rc;
    bool rev = rc == 0 && v->n > 0;
    const char *verdict = rc < 0 ? "malformed" : rev ? "would_be_revoked" : "still_boots";
    if (R->json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "file", path);
        jw_str(&w, "type", "update_check");
        jw_str(&w, "verdict", verdict);
        jw_bool(&w, "would_be_revoked", rev);
        jw_str(&w, "error", rc < 0 ? v->error.what : NULL);
        if (rc == 0)
            jw_str(&w, "format", v->pe32plus ? "pe32+" : "pe32");
        else
            jw_null(&w, "format");
        jw_arr(&w, "reasons");
        for (size_t i = 0; rev && i < v->n; i++) {
            jw_obj(&w, NULL);
            jw_str(&w, "by", kt_revoke_by_name(v->reasons[i].by));
            jw_str(&w, "detail", v->reasons[i].detail);
            jw_str(&w, "description", v->reasons[i].description);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        if (R->have_level && rc == 0)
            jw_bool(&w, "sbat_missing", v->sbat_missing);
        if (R->have_db && rc == 0) {
            jw_bool(&w, "signed_by_db", v->db == 1);
            jw_str(&w, "db_certificate", v->db_by[0] ? v->db_by : NULL);
        }
        jw_obj_end(&w);
        jw_newline(&w);
    } else if (!R->quiet) {
        if (rc < 0)
            printf("%s: cannot be checked: %s\n", tx(path), tx(v->error.what));
        else
            printf("%s: %s\n", tx(path), rev ? "would be revoked" : "still boots");
        for (size_t i = 0; rev && i < v->n; i++) {
            printf("  by %s: %s\n", kt_revoke_by_name(v->reasons[i].by), tx(v->reasons[i].detail));
            if (v->reasons[i].description)
                printf("    %s\n", tx(v->reasons[i].description));
        }
        if (rc == 0 && R->verbose) {
            const char *arch = kt_update_arch_name(v->machine);
            printf("  format: %s, machine %s\n", v->pe32plus ? "pe32+" : "pe32",
                   arch ? arch : "other");
        }
        if (rc == 0 && R->have_level && v->sbat_missing)
            printf("  note: no .sbat section: shim refuses to load it itself\n");
        if (rc == 0 && R->have_db)
            printf("  %s%s\n", v->db == 1 ? "signed by db: " : "not signed by anything in db",
                   tx(v->db_by));
    }
}

/* The summary object (json_summary.h), counts by the files' verdicts
 * (schema 1 dropped the older summary, files and unreadable beside them:
 * unreadable meant counts.malformed).  would_be_revoked is counts.
 * would_be_revoked here, a bool only in the files' objects. */
static void summary_json(const struct run *R)
{
    size_t ok = R->files - R->revoked - R->unreadable;
    struct cli_count c[] = {{"still_boots", ok},
                            {"would_be_revoked", R->revoked},
                            {"malformed", R->unreadable},
                            {"unreadable", R->missing}};
    struct cli_summary s = {.verdict = R->revoked      ? "would_be_revoked"
                                       : R->unreadable ? "malformed"
                                       : R->files      ? "still_boots"
                                                       : NULL,
                            .exit = R->worst, .counts = c, .n_counts = 4};
    cli_json_summary(stdout, &s);
}

/* "a, b" as a JSON array of strings. */
static void json_list(struct jw *w, const char *key, const char *s)
{
    jw_arr(w, key);
    while (*s) {
        size_t n = strcspn(s, ",");
        jw_strn(w, NULL, s, n);
        s += n;
        while (*s == ',' || *s == ' ')
            s++;
    }
    jw_arr_end(w);
}

/* Which architecture the dbx update is for, as far as dbx_info tells
 * (kt_update_check_arch): said when it is not the binaries'. */
static void arch_note(const struct run *R)
{
    struct kt_update_arch_note a;
    kt_update_check_arch(R->u, R->machines, R->n_machines, &a);
    if (R->json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "update_arch");
        if (a.other_arch < 0)
            jw_null(&w, "other_arch");
        else
            jw_bool(&w, "other_arch", a.other_arch == 1);
        json_list(&w, "update_arches", a.update_arches);
        json_list(&w, "image_arches", a.image_arches);
        jw_int(&w, "hashes", (long long)a.hashes);
        jw_int(&w, "for_images", (long long)a.for_images);
        jw_int(&w, "for_others", (long long)a.for_others);
        jw_int(&w, "unlisted", (long long)a.unlisted);
        jw_obj_end(&w);
        jw_newline(&w);
    } else if (!R->quiet && a.other_arch == 1) {
        printf("note: this update is for %s: dbx_info lists %zu of its %zu image hashes for "
               "%s, none for %s, the binaries checked; by hash it revokes none of them",
               a.update_arches, a.for_others, a.hashes, a.update_arches, a.image_arches);
        if (a.unlisted)
            printf(" (%zu hash%s dbx_info does not list may be for any architecture)",
                   a.unlisted, a.unlisted == 1 ? "" : "es");
        printf("\n");
    }
}

/* A PATH that cannot be opened: its object, verdict null. */
static void missing_json(const char *path, int err)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "file", path);
    jw_str(&w, "type", "update_check");
    jw_null(&w, "verdict");
    jw_bool(&w, "would_be_revoked", false);
    char what[300];
    snprintf(what, sizeof(what), "cannot open: %s", strerror(err));
    jw_str(&w, "error", what); /* as the files' objects: the message */
    jw_null(&w, "format");
    jw_arr(&w, "reasons");
    jw_arr_end(&w);
    jw_obj_end(&w);
    jw_newline(&w);
}

static void check_file(struct run *R, const char *path)
{
    struct kt_update_verdict v;
    int rc = kt_update_check_file(R->u, path, KT_UPDATE_BOOT_FILES, &v);
    if (rc == 1)
        return; /* not a boot binary */
    R->files++;
    if (rc < 0) {
        cli_error(path, &v.error);
        R->unreadable++;
        if (R->worst < 4)
            R->worst = 4;
    } else if (v.n) {
        R->revoked++;
        if (R->worst < 5)
            R->worst = 5;
    }
    if (rc == 0) {
        size_t i = 0;
        while (i < R->n_machines && R->machines[i] != v.machine)
            i++;
        if (i == R->n_machines && i < sizeof(R->machines) / sizeof(R->machines[0]))
            R->machines[R->n_machines++] = v.machine;
    }
    print_file(R, path, &v);
    kt_update_verdict_free(&v);
}

static int walk_cb(void *arg, const struct kt_walk_entry *e)
{
    if (e->kind == KT_WALK_FILE)
        check_file(arg, e->path);
    else if (e->kind == KT_WALK_UNREADABLE && e->is_dir)
        cli_errorf(e->path, "cannot read the directory");
    return 0;
}

static int load(const char *path, int which, struct run *R)
{
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    int rc = which == OPT_DBX ? kt_update_check_add_dbx_file(R->u, path, &e)
                              : kt_file_open(path, &f, &e);
    if (rc == 0 && which != OPT_DBX) {
        if (which == OPT_DB) {
            rc = kt_update_check_add_db(R->u, f.data, f.len, &e);
            R->have_db = true;
        } else {
            rc = kt_update_check_set_dbx_info(R->u, f.data, f.len, &e);
        }
    }
    kt_file_close(&f);
    if (rc < 0) /* never "still boots" from an update that was not read */
        return cli_cannot_answer_err(R->json, R->quiet, path, cli_exit_code(rc), &e);
    return 0;
}

/* The variables in force after the --apply files: their dbx is checked,
 * their db vouches. */
static int load_efivars(struct run *R, const char *dir, struct cli_apply *apply,
                        struct kt_efivars *vars, bool *have_dbx)
{
    struct kt_error e = KT_ERROR_INIT;
    if (kt_efivars_read(dir, vars, &e) < 0) {
        cli_error(dir, &e);
        return cli_exit_code(e.code);
    }
    if (cli_apply_all(vars, apply, R->json, R->quiet))
        return cli_apply_cannot_answer(apply, R->json, R->quiet);
    size_t len;
    const uint8_t *p = kt_efivar_data(&vars->var[KT_EFIVAR_DBX], &len);
    if (p && len && kt_update_check_add_dbx(R->u, p, len, vars->var[KT_EFIVAR_DBX].path, &e) < 0) {
        cli_error(vars->var[KT_EFIVAR_DBX].path, &e);
        return cli_exit_code(e.code);
    }
    *have_dbx = true;
    p = kt_efivar_data(&vars->var[KT_EFIVAR_DB], &len);
    if (p && len) {
        if (kt_update_check_add_db(R->u, p, len, &e) < 0) {
            cli_error(vars->var[KT_EFIVAR_DB].path, &e);
            return cli_exit_code(e.code);
        }
        R->have_db = true;
    }
    return 0;
}

/* Checks every PE under the paths (files, or directories walked). */
static void check_paths(struct run *R, char **paths, int n)
{
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) < 0) {
            int err = errno;
            cli_errorf(paths[i], "cannot open: %s", strerror(err));
            R->missing++;
            if (R->json)
                missing_json(paths[i], err);
            if (R->worst < EXIT_NOINPUT)
                R->worst = EXIT_NOINPUT;
            continue;
        }
        if (S_ISDIR(st.st_mode))
            kt_walk((const char *const *)&paths[i], 1, NULL, walk_cb, R);
        else
            check_file(R, paths[i]);
    }
}

/* The closing line, or the summary object. */
static void report(struct run *R, char **paths, int n)
{
    if (R->files == 0) { /* a mistyped ESP is not "0 would be revoked" */
        R->worst = cli_cannot_answer(R->json, R->quiet, n == 1 ? paths[0] : "PATH",
                                     R->worst > EXIT_NOINPUT ? R->worst : EXIT_NOINPUT,
                                     "no boot file (PE image) found to check");
        return;
    }
    if (R->json)
        summary_json(R);
    else if (!R->quiet)
        printf("%zu boot file%s checked: %zu would be revoked, %zu could not be checked\n",
               R->files, R->files == 1 ? "" : "s", R->revoked, R->unreadable);
}

/* PATH... (and --esp DIR): would the dbx update / SbatLevel revoke them? */
static int check_paths_mode(struct run *R, int argc, char **argv, const char *esp,
                            const char *efivars, struct cli_apply *apply, struct kt_efivars *vars,
                            bool have_dbx, struct kt_sbat_level *level)
{
    int rc;
    if (esp) /* --esp DIR is one more PATH, the first */
        argv[--optind] = (char *)esp;
    if (optind >= argc)
        return cli_usage_error("check-update", "no PATH given (or --esp DIR)");
    if (apply->n && !efivars)
        return cli_usage_error("check-update", "--apply needs --efivars (the variables it changes)");
    if (efivars && (rc = load_efivars(R, efivars, apply, vars, &have_dbx)) != 0)
        return rc;
    if (!have_dbx && !R->have_level)
        return cli_usage_error("check-update",
                       "nothing to check: give --dbx-update, --efivars and/or --sbat-level");
    if (R->have_level) {
        struct kt_error e = KT_ERROR_INIT;
        if ((rc = kt_update_check_set_level(R->u, level, &e)) < 0) {
            cli_error("--sbat-level", &e);
            return cli_exit_code(rc);
        }
    }
    check_paths(R, argv + optind, argc - optind);
    if (have_dbx)
        arch_note(R);
    report(R, argv + optind, argc - optind);
    return R->worst;
}

int cmd_check_update(int argc, char **argv)
{
    struct cli_apply apply = {0};
    struct kt_efivars vars = {0};
    struct run R;
    memset(&R, 0, sizeof(R));
    struct cli_getopt g;
    struct kt_sbat_level *level = NULL;
    int c, rc = 0;
    bool have_dbx = false, install = false;
    const char *efivars = NULL, *root = NULL, *esp = NULL;
    struct cli_install_seal seal = {.luks = calloc((size_t)argc + 1, sizeof(char *))};
    if (!seal.luks || cli_opts_init(&g, opts) < 0 || kt_update_check_new(&R.u) < 0) {
        free(seal.luks);
        return EXIT_INTERNAL;
    }
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        switch (c) {
        case OPT_JSON: R.json = true; break;
        case 'q': R.quiet = true; break;
        case 'v': R.verbose = true; break;
        case 'h': usage(stdout); goto out;
        case OPT_DBX:
            have_dbx = true;
            /* fall through */
        case OPT_DB:
        case OPT_DBX_INFO: /* read once every option is known (--json after them) */
            if ((rc = add_input(&R, c, optarg)) != 0)
                goto out;
            break;
        case OPT_INSTALL: install = true; break;
        case OPT_EFIVARS: efivars = optarg; break;
        case OPT_ROOT: root = optarg; break;
        case OPT_EVENTLOG: seal.log = optarg; break;
        case OPT_LUKS_SOURCE: seal.luks[seal.n_luks++] = optarg; break;
        case OPT_LUKS_UKI: seal.uki = optarg; break;
        case OPT_ESP: esp = optarg; break;
        case OPT_SBAT_LEVEL:
            if ((rc = cli_sbat_level_load(optarg, &level)) != 0)
                goto out;
            R.have_level = true;
            break;
        case OPT_APPLY:
            if (cli_apply_add(&apply, "check-update", optarg) < 0) {
                rc = EXIT_USAGE;
                goto out;
            }
            break;
        case OPT_NV_MAX_VAR: case OPT_NV_FREE:
            if (cli_nv_opt(&apply.nv, c, optarg, "check-update")) {
                rc = EXIT_USAGE;
                goto out;
            }
            break;
        default: rc = EXIT_USAGE; goto out; /* cli_getopt said why */
        }
    }
    for (size_t i = 0; i < R.n_in; i++)
        if ((rc = load(R.in[i].path, R.in[i].which, &R)) != 0)
            goto out;
    if (install && (have_dbx || R.have_level || R.have_db)) {
        rc = cli_usage_error("check-update", "--install checks the variables in force: no "
                                             "--dbx-update, --db or --sbat-level with it");
        goto out;
    }
    if (!install && (root || seal.log || seal.n_luks || seal.uki)) {
        rc = cli_usage_error("check-update", "--root, --eventlog, --luks and --uki go with --install");
        goto out;
    }
    if (install) {
        struct cli_install_in ii = {efivars, root, esp, &apply, &seal};
        rc = cli_check_install(argc - optind, argv + optind, &ii, R.json, R.quiet);
        goto out;
    }
    rc = check_paths_mode(&R, argc, argv, esp, efivars, &apply, &vars, have_dbx, level);
out:
    free(seal.luks);
    kt_efivars_free(&vars);
    kt_update_check_free(R.u);
    kt_sbat_level_close(level);
    return rc;
}
