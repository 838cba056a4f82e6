/* ktrust check-update [--dbx FILE]... [--sbat-level SPEC] [--db FILE]...
 * [--dbx-info JSON] PATH... : would a dbx and/or SbatLevel update revoke
 * any boot binary under PATH (an ESP mount, files or directories)? */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"
#include "ktrust/advanced.h"
#include "revoke/dbx_info.h"
#include "revoke/revoke.h"
#include "sbat_print.h"
#include "util/file.h"

enum { OPT_DBX = OPT_FIRST_PRIVATE, OPT_DB, OPT_SBAT_LEVEL, OPT_DBX_INFO };

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
    CLI_OPTS(cli_opts_output),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust check-update [--dbx FILE]... [--sbat-level SPEC] [--db FILE]...\n"
        "                           [--dbx-info JSON] [--json] [-q] PATH...\n"
        "Would this dbx update and/or SbatLevel revoke a boot binary under PATH (an ESP,\n"
        "files or directories)?  Every PE found (PE32 and PE32+; by its MZ header, or\n"
        "named *.efi) is checked as firmware and shim check it: its Authenticode hash in\n"
        "every algorithm dbx holds, every certificate of its signatures against X509 and\n"
        "X509_SHA256/384/512 entries, its .sbat against the level.\n",
        opts,
        "Exit code: 5 when anything would be revoked, 4 when a file could not be parsed\n"
        "(and nothing is revoked), 0 otherwise.\n");
}

struct run {
    struct kt_dbx dbx;
    bool have_dbx;
    struct kt_sbat_level level;
    bool have_level;
    struct kt_certset db;
    bool have_db;
    struct kt_json *info;
    bool json, quiet;
    size_t files, revoked, unreadable;
    int worst;
};

static void print_file(struct run *R, const char *path, int rc, const struct kt_error *e,
                       const struct kt_revoke_result *res, int db_state,
                       const struct kt_x509 *db_by)
{
    bool rev = rc == 0 && res->n > 0;
    const char *verdict = rc < 0 ? "malformed" : rev ? "would_be_revoked" : "still_boots";
    char **desc = NULL;
    if (rev) {
        desc = calloc(res->n, sizeof(*desc));
        for (size_t i = 0; desc && i < res->n; i++)
            desc[i] = kt_dbx_info_describe(R->info, &res->reasons[i]);
    }
    if (R->json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "file", path);
        jw_str(&w, "verdict", verdict);
        jw_bool(&w, "would_be_revoked", rev);
        jw_str(&w, "error", rc < 0 ? e->what : NULL);
        if (rc == 0)
            jw_str(&w, "format", res->pe32plus ? "pe32+" : "pe32");
        else
            jw_null(&w, "format");
        jw_arr(&w, "reasons");
        for (size_t i = 0; rev && i < res->n; i++) {
            jw_obj(&w, NULL);
            jw_str(&w, "by", kt_revoke_by_name(res->reasons[i].by));
            jw_str(&w, "detail", res->reasons[i].detail);
            jw_str(&w, "description", desc ? desc[i] : NULL);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        if (R->have_level && rc == 0)
            jw_bool(&w, "sbat_missing", res->sbat_missing);
        if (R->have_db && rc == 0) {
            jw_bool(&w, "signed_by_db", db_state == 1);
            jw_str(&w, "db_certificate", db_by ? db_by->description : NULL);
        }
        jw_obj_end(&w);
        jw_newline(&w);
    } else if (!R->quiet) {
        if (rc < 0)
            printf("%s: cannot be checked: %s\n", path, e->what);
        else
            printf("%s: %s\n", path, rev ? "would be revoked" : "still boots");
        for (size_t i = 0; rev && i < res->n; i++) {
            printf("  by %s: %s\n", kt_revoke_by_name(res->reasons[i].by), res->reasons[i].detail);
            if (desc && desc[i])
                printf("    %s\n", desc[i]);
        }
        if (rc == 0 && R->have_level && res->sbat_missing)
            printf("  note: no .sbat section: shim refuses to load it itself\n");
        if (rc == 0 && R->have_db)
            printf("  %s%s\n", db_state == 1 ? "signed by db: " : "not signed by anything in db",
                   db_by ? db_by->description : "");
    }
    for (size_t i = 0; desc && i < res->n; i++)
        free(desc[i]);
    free(desc);
}

static bool has_efi_name(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && !strcasecmp(path + n - 4, ".efi");
}

static void check_file(struct run *R, const char *path)
{
    struct kt_file f = {0};
    struct kt_error e = {0};
    int rc = kt_file_open(path, &f, &e);
    if (rc < 0) {
        if (!has_efi_name(path))
            return;
        cli_error(path, &e);
        R->files++;
        R->unreadable++;
        if (R->worst < 4)
            R->worst = 4;
        struct kt_revoke_result none = {0};
        print_file(R, path, rc, &e, &none, 0, NULL);
        return;
    }
    bool mz = f.len >= 2 && f.data[0] == 'M' && f.data[1] == 'Z';
    if (!mz && !has_efi_name(path)) {
        kt_file_close(&f);
        return; /* not a PE, and not named like one: not a boot binary */
    }
    R->files++;
    struct kt_revoke_result res = {0};
    rc = kt_revoke_check(f.data, f.len, R->have_dbx ? &R->dbx : NULL,
                         R->have_level ? &R->level : NULL, &res, &e);
    int db_state = 0;
    const struct kt_x509 *db_by = NULL;
    if (rc == 0 && R->have_db)
        db_state = kt_revoke_db_vouches(f.data, f.len, &R->db, &db_by);
    if (rc < 0) {
        cli_error(path, &e);
        R->unreadable++;
        if (R->worst < 4)
            R->worst = 4;
    } else if (res.n) {
        R->revoked++;
        if (R->worst < 5)
            R->worst = 5;
    }
    print_file(R, path, rc, &e, &res, db_state, db_by);
    kt_revoke_result_free(&res);
    kt_file_close(&f);
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
    struct kt_error e = {0};
    int rc = kt_file_open(path, &f, &e);
    if (rc == 0) {
        if (which == OPT_DBX) {
            rc = kt_dbx_add(&R->dbx, f.data, f.len, path, &e);
            R->have_dbx = true;
        } else if (which == OPT_DB) {
            rc = kt_certset_add(&R->db, f.data, f.len, &e);
            R->have_db = true;
        } else {
            kt_json_free(R->info);
            R->info = NULL;
            rc = kt_dbx_info_parse(f.data, f.len, &R->info, &e);
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
    int c, rc = 0;
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        switch (c) {
        case OPT_JSON: R.json = true; break;
        case 'q': R.quiet = true; break;
        case 'h': usage(stdout); goto out;
        case OPT_DBX:
        case OPT_DB:
        case OPT_DBX_INFO:
            if ((rc = load(optarg, c, &R)) != 0)
                goto out;
            break;
        case OPT_SBAT_LEVEL:
            kt_sbat_level_free(&R.level);
            if ((rc = cli_sbat_level_load(optarg, &R.level)) != 0)
                goto out;
            R.have_level = true;
            break;
        default: rc = cli_usage_error("check-update", "bad option"); goto out;
        }
    }
    if (optind >= argc) {
        rc = cli_usage_error("check-update", "no PATH given");
        goto out;
    }
    if (!R.have_dbx && !R.have_level) {
        rc = cli_usage_error("check-update", "nothing to check: give --dbx and/or --sbat-level");
        goto out;
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
    kt_dbx_free(&R.dbx);
    kt_sbat_level_free(&R.level);
    kt_certset_free(&R.db);
    kt_json_free(R.info);
    return rc;
}
