/* ktrust check-update [--dbx FILE]... [--sbat-level SPEC] [--db FILE]...
 * [--dbx-info JSON] PATH... : would a dbx and/or SbatLevel update revoke
 * any boot binary under PATH (an ESP mount, files or directories)? */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "check_update_install.h"
#include "cli.h"
#include "ktrust/advanced.h"
#include "ktrust/update.h"
#include "sbat_print.h"

enum { OPT_DBX = OPT_FIRST_PRIVATE, OPT_DB, OPT_SBAT_LEVEL, OPT_DBX_INFO, OPT_INSTALL,
       OPT_EFIVARS, OPT_ROOT };

static const struct cli_opt opts[] = {
    CLI_OPT("dbx", 0, required_argument, OPT_DBX, "FILE",
            "a dbx update: a signed update file, an ESL or an efivarfs dump (repeatable; "
            "they combine)"),
    CLI_OPT("sbat-level", 0, required_argument, OPT_SBAT_LEVEL, "SPEC",
            "an SbatLevel, as verify-pe --sbat-level takes it"),
    CLI_OPT("db", 0, required_argument, OPT_DB, "FILE",
            "db lists, to say whether db vouches for each file (repeatable)"),
    CLI_OPT("dbx-info", 0, required_argument, OPT_DBX_INFO, "JSON",
            "Microsoft's dbx_info_msft_latest.json, to name what an entry revokes"),
    CLI_OPT("install", 0, no_argument, OPT_INSTALL, NULL,
            "instead: would this machine boot NEW_SHIM [NEW_LOADER ...] in place of the "
            "current ones (its db, dbx, MOK, SbatLevel)? Exit 0 yes, 5 no"),
    CLI_OPT("efivars", 0, required_argument, OPT_EFIVARS, "DIR",
            "with --install: the firmware variables (default /sys/firmware/efi/efivars)"),
    CLI_OPT("root", 0, required_argument, OPT_ROOT, "DIR",
            "with --install: the variables of the system under DIR (DIR/sys/firmware/efi/efivars)"),
    CLI_OPTS(cli_opts_output),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust check-update [--dbx FILE]... [--sbat-level SPEC] [--db FILE]...\n"
        "                           [--dbx-info JSON] [--json] [-q] PATH...\n"
        "       ktrust check-update --install [--efivars DIR | --root DIR] [--json] [-q]\n"
        "                           NEW_SHIM [NEW_LOADER ...]\n"
        "Would this dbx update and/or SbatLevel revoke a boot binary under PATH (an ESP,\n"
        "files or directories)?  Every PE found (PE32 and PE32+; by its MZ header, or\n"
        "named *.efi) is checked as firmware and shim check it: its Authenticode hash in\n"
        "every algorithm dbx holds, every certificate of its signatures against X509 entries\n"
        "(the certificate itself, or one the entry issued) and X509_SHA256/384/512 entries,\n"
        "its .sbat against the level.\n"
        "--install: would the machine boot NEW_SHIM (firmware: db and dbx on each of its\n"
        "signatures) and each NEW_LOADER behind it (shim: its vendor certificate, MOK,\n"
        "the SbatLevel in force and the one the new shim would apply) in place of the\n"
        "current ones?  No NEW_LOADER: the loader on the ESP today (as audit finds it)\n"
        "stays behind the new shim.  For a package's postinst: `-q` prints nothing.\n",
        opts,
        "Exit code: 5 when anything would be revoked, 4 when a file could not be parsed\n"
        "(and nothing is revoked), 0 otherwise.  --install: 0 they would boot, 5 they\n"
        "would not (the reason on stdout), 4 a binary cannot be parsed, 66 an input\n"
        "cannot be read.\n");
}

struct run {
    struct kt_update_check *u;
    bool have_level, have_db;
    bool json, quiet;
    size_t files, revoked, unreadable;
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
        if (rc == 0 && R->have_level && v->sbat_missing)
            printf("  note: no .sbat section: shim refuses to load it itself\n");
        if (rc == 0 && R->have_db)
            printf("  %s%s\n", v->db == 1 ? "signed by db: " : "not signed by anything in db",
                   tx(v->db_by));
    }
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

int cmd_check_update(int argc, char **argv)
{
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
        default: rc = cli_usage_error("check-update", "bad option"); goto out;
        }
    }
    if (install && (have_dbx || R.have_level || R.have_db)) {
        rc = cli_usage_error("check-update", "--install checks the variables in force: no "
                                             "--dbx, --db or --sbat-level with it");
        goto out;
    }
    if (!install && (efivars || root)) {
        rc = cli_usage_error("check-update", "--efivars and --root go with --install");
        goto out;
    }
    if (install) {
        rc = cli_check_install(argc - optind, argv + optind, efivars, root, R.json, R.quiet);
        goto out;
    }
    if (optind >= argc) {
        rc = cli_usage_error("check-update", "no PATH given");
        goto out;
    }
    if (!have_dbx && !R.have_level) {
        rc = cli_usage_error("check-update", "nothing to check: give --dbx and/or --sbat-level");
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
    for (int i = optind; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0) {
            cli_errorf(argv[i], "cannot open: %s", strerror(errno));
            if (R.worst < EXIT_NOINPUT)
                R.worst = EXIT_NOINPUT;
            continue;
        }
        if (S_ISDIR(st.st_mode))
            kt_walk((const char *const *)&argv[i], 1, NULL, walk_cb, &R);
        else
            check_file(&R, argv[i]);
    }
    if (R.json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_bool(&w, "summary", true);
        jw_int(&w, "files", (long long)R.files);
        jw_int(&w, "would_be_revoked", (long long)R.revoked);
        jw_int(&w, "unreadable", (long long)R.unreadable);
        jw_obj_end(&w);
        jw_newline(&w);
    } else if (!R.quiet) {
        printf("%zu boot file%s checked: %zu would be revoked, %zu could not be checked\n",
               R.files, R.files == 1 ? "" : "s", R.revoked, R.unreadable);
    }
    rc = R.worst;
out:
    kt_update_check_free(R.u);
    kt_sbat_level_close(level);
    return rc;
}
