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
#include "check_update_install.h"
#include "cli.h"
#include "json_summary.h"
#include "ktrust/advanced.h"
#include "ktrust/boot.h"
#include "ktrust/efivars.h"
#include "ktrust/update.h"
#include "sbat_print.h"

enum { OPT_DBX = OPT_FIRST_PRIVATE, OPT_DB, OPT_SBAT_LEVEL, OPT_DBX_INFO, OPT_INSTALL,
       OPT_EFIVARS, OPT_ROOT, OPT_APPLY };

static const struct cli_opt opts[] = {
    CLI_OPT("dbx", 0, required_argument, OPT_DBX, "FILE",
            "a dbx update: a signed update file, an ESL or an efivarfs dump (repeatable; "
            "they combine)"),
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
            "(repeatable, in order)"),
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
    CLI_OPTS(cli_opts_output),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust check-update [--dbx FILE]... [--sbat-level SPEC] [--db FILE]...\n"
        "                           [--efivars DIR [--apply FILE]...] [--dbx-info JSON]\n"
        "                           [--json] [-q] [-v] PATH...\n"
        "       ktrust check-update --install [--efivars DIR | --root DIR] [--apply FILE]...\n"
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
};

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
    int rc = kt_file_open(path, &f, &e);
    if (rc == 0) {
        if (which == OPT_DBX) {
            rc = kt_update_check_add_dbx(R->u, f.data, f.len, path, &e);
        } else if (which == OPT_DB) {
            rc = kt_update_check_add_db(R->u, f.data, f.len, &e);
            R->have_db = true;
        } else {
            rc = kt_update_check_set_dbx_info(R->u, f.data, f.len, &e);
        }
    }
    kt_file_close(&f);
    if (rc < 0) {
        cli_error(path, &e);
        return cli_exit_code(rc);
    }
    return 0;
}

/* The variables in force after the --apply files: their dbx is checked,
 * their db vouches. */
static int load_efivars(struct run *R, const char *dir, const struct cli_apply *apply,
                        struct kt_efivars *vars, bool *have_dbx)
{
    struct kt_error e = KT_ERROR_INIT;
    if (kt_efivars_read(dir, vars, &e) < 0) {
        cli_error(dir, &e);
        return cli_exit_code(e.code);
    }
    int worst = cli_apply_all(vars, apply, R->json, R->quiet);
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
    return worst;
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
static void report(const struct run *R)
{
    if (R->json)
        summary_json(R);
    else if (!R->quiet)
        printf("%zu boot file%s checked: %zu would be revoked, %zu could not be checked\n",
               R->files, R->files == 1 ? "" : "s", R->revoked, R->unreadable);
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
    const char *efivars = NULL, *root = NULL;
    if (cli_opts_init(&g, opts) < 0 || kt_update_check_new(&R.u) < 0)
        return EXIT_INTERNAL;
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
        case OPT_DBX_INFO:
            if ((rc = load(optarg, c, &R)) != 0)
                goto out;
            break;
        case OPT_INSTALL: install = true; break;
        case OPT_EFIVARS: efivars = optarg; break;
        case OPT_ROOT: root = optarg; break;
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
        default: rc = EXIT_USAGE; goto out; /* cli_getopt said why */
        }
    }
    if (install && (have_dbx || R.have_level || R.have_db)) {
        rc = cli_usage_error("check-update", "--install checks the variables in force: no "
                                             "--dbx, --db or --sbat-level with it");
        goto out;
    }
    if (!install && root) {
        rc = cli_usage_error("check-update", "--root goes with --install");
        goto out;
    }
    if (install) {
        rc = cli_check_install(argc - optind, argv + optind, efivars, root, &apply, R.json,
                               R.quiet);
        goto out;
    }
    if (optind >= argc) {
        rc = cli_usage_error("check-update", "no PATH given");
        goto out;
    }
    if (apply.n && !efivars) {
        rc = cli_usage_error("check-update", "--apply needs --efivars (the variables it changes)");
        goto out;
    }
    if (efivars && (rc = load_efivars(&R, efivars, &apply, &vars, &have_dbx)) >= EXIT_USAGE)
        goto out;
    R.worst = rc;
    rc = 0;
    if (!have_dbx && !R.have_level) {
        rc = cli_usage_error("check-update",
                             "nothing to check: give --dbx, --efivars and/or --sbat-level");
        goto out;
    }
    if (R.have_level) {
        struct kt_error e = KT_ERROR_INIT;
        if ((rc = kt_update_check_set_level(R.u, level, &e)) < 0) {
            cli_error("--sbat-level", &e);
            rc = cli_exit_code(rc);
            goto out;
        }
    }
    check_paths(&R, argv + optind, argc - optind);
    if (have_dbx)
        arch_note(&R);
    report(&R);
    rc = R.worst;
out:
    kt_efivars_free(&vars);
    kt_update_check_free(R.u);
    kt_sbat_level_close(level);
    return rc;
}
