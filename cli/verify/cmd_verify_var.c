/* ktrust verify-var FILE... --var NAME [--pk FILE] [--kek FILE] [--list]:
 * signed EFI variable updates (EFI_VARIABLE_AUTHENTICATION_2) checked as
 * firmware checks a SetVariable() of db, dbx, dbt, dbr, KEK or PK. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert_print.h"
#include "cli.h"
#include "ktrust/advanced.h"
#include "ktrust/verify.h"
#include "json_summary.h"
#include "verdict_print.h"

enum { OPT_VAR = OPT_FIRST_PRIVATE, OPT_PK, OPT_KEK, OPT_LIST, OPT_SIGNED_DATA };

static const struct cli_opt opts[] = {
    CLI_OPT("var", 0, required_argument, OPT_VAR, "PK|KEK|db|dbx|dbt|dbr",
            "the variable the update is for; may be left out for efivarfs-style names "
            "(NAME-GUID)"),
    CLI_OPT("pk", 0, required_argument, OPT_PK, "FILE",
            "the PK: a certificate (DER/PEM), an EFI signature list or an efivarfs dump "
            "(repeatable)"),
    CLI_OPT("kek", 0, required_argument, OPT_KEK, "FILE", "a KEK, the same way (repeatable)"),
    CLI_OPT("list", 0, no_argument, OPT_LIST, NULL, "also print each entry of the payload"),
    CLI_OPT("signed-data", 0, required_argument, OPT_SIGNED_DATA, "OUT",
            "(one FILE) write the bytes the signature covers (the append form when it "
            "covers neither), for checking with other tools"),
    CLI_OPT("verbose", 'v', no_argument, 'v', NULL,
            "accepted, as on the other verifying commands: each signature's details are "
            "always shown here"),
    CLI_OPTS(cli_opts_output),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust verify-var FILE... [--var PK|KEK|db|dbx|dbt|dbr] [--pk FILE]...\n"
        "                         [--kek FILE]... [--list] [--signed-data OUT]\n"
        "                         [--json] [-q] [-v]\n"
        "Verify signed EFI variable updates (EFI_VARIABLE_AUTHENTICATION_2) as firmware\n"
        "does: the signature over name, vendor GUID, attributes (append 0x67 or replace\n"
        "0x27), timestamp and payload; SHA-256 only; PK and KEK updates signed by the PK,\n"
        "db/dbx/dbt/dbr by the PK or a KEK certificate (certificate dates ignored).\n",
        opts,
        "Exit code: 0 trusted, 1 not a signed update, 2 untrusted (no authority given or\n"
        "none vouches), 3 not SHA-256, 4 malformed, 5 signature does not match.\n");
}

struct var_ctx {
    const struct kt_result *r;
    const struct kt_var_update *u;
    bool list;
};

static void counts_json(struct jw *w, const struct kt_var_update *u)
{
    jw_obj(w, "payload");
    jw_int(w, "x509", (long long)u->n_x509);
    jw_int(w, "sha256", (long long)u->n_sha256);
    jw_int(w, "x509_sha256", (long long)u->n_x509_sha256);
    jw_int(w, "sha384", (long long)u->n_sha384);
    jw_int(w, "sha512", (long long)u->n_sha512);
    jw_int(w, "svn", (long long)u->n_svn);
    jw_int(w, "other", (long long)u->n_other);
    jw_obj_end(w);
}

static int entry_json(void *ctx, const struct kt_var_entry *e)
{
    struct jw *w = ctx;
    jw_obj(w, NULL);
    jw_str(w, "type", e->type);
    jw_str(w, "owner", e->owner);
    if (e->svn) {
        jw_obj(w, "value");
        jw_int(w, "version", e->svn_version);
        jw_str(w, "guid", e->svn_guid);
        jw_int(w, "major", e->svn_major);
        jw_int(w, "minor", e->svn_minor);
        jw_obj_end(w);
    } else if (e->x509) {
        struct kt_x509 *x = NULL;
        struct kt_error xe = KT_ERROR_INIT;
        if (kt_x509_parse(e->data, e->len, &x, &xe) == 0) {
            cli_cert_json(w, "value", x);
            kt_x509_free(x);
        } else {
            jw_hex(w, "value", e->data, e->len);
        }
    } else {
        jw_hex(w, "value", e->data, e->len);
    }
    jw_obj_end(w);
    return 0;
}

static int entry_text(void *ctx, const struct kt_var_entry *e)
{
    (void)ctx;
    char h[2 * 64 + 1];
    if (e->svn) {
        printf("    svn: application %s, version %u.%u (record version %u)\n", tx(e->svn_guid),
               e->svn_major, e->svn_minor, e->svn_version);
    } else if (e->x509) {
        struct kt_x509 *x = NULL;
        struct kt_error xe = KT_ERROR_INIT;
        if (kt_x509_parse(e->data, e->len, &x, &xe) == 0) {
            printf("    x509: %s\n", tx(kt_x509_description(x)));
            kt_x509_free(x);
        } else {
            printf("    x509: (unparsable: %s)\n", tx(xe.what));
        }
    } else if (e->len <= 64) {
        printf("    %s: %s\n", e->type, kt_hex(e->data, e->len, h));
    } else {
        printf("    %s: %zu bytes\n", e->type, e->len);
    }
    return 0;
}

static void var_json(struct jw *w, const void *p)
{
    const struct var_ctx *c = p;
    const struct kt_var_update *u = c->u;
    jw_str(w, "var", u->name);
    if (!u->parsed) {
        jw_null(w, "write");
        jw_null(w, "timestamp");
        jw_null(w, "content_info_wrapped");
        jw_null(w, "accepted_from");
        jw_null(w, "payload");
        return;
    }
    jw_str(w, "write", !u->attributes ? NULL : u->append ? "append" : "replace");
    jw_time(w, "timestamp", u->timestamp);
    jw_bool(w, "content_info_wrapped", u->content_info_wrapped);
    jw_str(w, "accepted_from", u->accepted_from);
    counts_json(w, u);
    if (c->list) {
        jw_arr(w, "entries");
        kt_result_var_entries(c->r, entry_json, w);
        jw_arr_end(w);
    }
}

static void var_text(FILE *f, const void *p)
{
    const struct var_ctx *c = p;
    const struct kt_var_update *u = c->u;
    if (!u->parsed)
        return;
    char t[40];
    fprintf(f, "  variable %s, %s write, timestamp %s%s\n", tx(u->name),
            !u->attributes ? "unverified" : u->append ? "append" : "replace",
            cli_iso_time(u->timestamp, t, sizeof(t)),
            u->content_info_wrapped ? ", PKCS#7 in a ContentInfo" : "");
    fprintf(f, "  payload: %zu x509, %zu sha256, %zu x509_sha256, %zu sha384, %zu sha512, "
               "%zu svn, %zu other\n",
            u->n_x509, u->n_sha256, u->n_x509_sha256, u->n_sha384, u->n_sha512, u->n_svn,
            u->n_other);
    if (c->list)
        kt_result_var_entries(c->r, entry_text, NULL);
}

/* NAME from an efivarfs-style file name NAME-GUID, into buf. */
static const char *name_from_path(const char *path, char *buf, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n < 38 || base[n - 37] != '-')
        return NULL;
    const char *g = base + n - 36;
    for (int i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? g[i] != '-' : !strchr("0123456789abcdefABCDEF", g[i]))
            return NULL;
    }
    snprintf(buf, cap, "%.*s", (int)(n - 37), base);
    return buf;
}

static int load_keys(struct kt_var_keys *keys, bool kek, const char *path)
{
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(path, &f, &e);
    if (rc == 0)
        rc = kt_var_keys_add(keys, kek, f.data, f.len, &e);
    kt_file_close(&f);
    if (rc < 0) {
        cli_error(path, &e);
        return cli_exit_code(rc);
    }
    return 0;
}

static int write_signed(const char *out, const struct kt_result *r)
{
    uint8_t *b;
    size_t n;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_result_var_signed(r, &b, &n);
    if (rc == 0) {
        rc = kt_file_write_atomic(out, b, n, &e);
        free(b);
    }
    if (rc < 0) {
        cli_error(out, &e);
        return cli_exit_code(rc);
    }
    return 0;
}

static int one(const char *path, const char *var_opt, const struct kt_var_keys *keys, bool list,
               const char *signed_out, const struct cli_common *co, struct cli_tally *t)
{
    char nb[64];
    const char *var = var_opt ? var_opt : name_from_path(path, nb, sizeof(nb));
    if (!kt_var_name_known(var)) {
        cli_errorf(path, "which variable? give --var PK|KEK|db|dbx|dbt|dbr%s%s",
                   var ? " (not " : "", var ? var : "");
        cli_tally_add(t, 0, false);
        return EXIT_USAGE;
    }
    struct kt_policy pol = {.type = KT_VERIFY_VAR, .var_name = var, .var_keys = keys};
    struct kt_error e = KT_ERROR_INIT;
    struct kt_result *r = NULL;
    int rc = kt_verify_file(NULL, path, &pol, &r, &e);
    cli_tally_add(t, rc, r != NULL);
    if (!r) {
        vp_print_unreadable(path, "variable", rc, &e, co->json);
        return cli_exit_code(rc);
    }
    struct var_ctx vc = {.r = r, .u = kt_result_var(r), .list = list};
    struct vp_result vr;
    vp_from_result(&vr, path, r);
    vr.extra_json = var_json;
    vr.extra_text = var_text;
    vr.extra_ctx = &vc;
    vp_print(&vr, co->json, co->quiet, true);
    enum kt_verdict vd = kt_verdict_of(rc);
    if (vd == KT_MALFORMED || vd == KT_INTERNAL)
        cli_error(path, kt_result_error(r));
    int code = cli_exit_code(rc);
    if (signed_out && vc.u->parsed) {
        int wc = write_signed(signed_out, r);
        if (wc > code)
            code = wc;
    }
    kt_result_free(r);
    return code;
}

int cmd_verify_var(int argc, char **argv)
{
    struct cli_common co = {0};
    const char *var = NULL, *signed_out = NULL;
    bool list = false;
    struct kt_var_keys *keys = NULL;
    struct cli_getopt g;
    int c, rc = 0;
    if (cli_opts_init(&g, opts) < 0 || kt_var_keys_new(&keys) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        switch (c) {
        case OPT_JSON: co.json = true; break;
        case 'q': co.quiet = true; break;
        case 'v': co.verbose = true; break;
        case 'h': usage(stdout); goto out;
        case OPT_VAR:
            if (!kt_var_name_known(optarg)) {
                rc = cli_usage_error("verify-var", "--var %s: PK, KEK, db, dbx, dbt or dbr",
                                     optarg);
                goto out;
            }
            var = optarg;
            break;
        case OPT_PK:
            if ((rc = load_keys(keys, false, optarg)) != 0)
                goto out;
            break;
        case OPT_KEK:
            if ((rc = load_keys(keys, true, optarg)) != 0)
                goto out;
            break;
        case OPT_LIST: list = true; break;
        case OPT_SIGNED_DATA: signed_out = optarg; break;
        default: rc = EXIT_USAGE; goto out; /* cli_getopt said why */
        }
    }
    if (optind >= argc) {
        rc = cli_usage_error("verify-var", "no file given");
        goto out;
    }
    if (signed_out && argc - optind != 1) {
        rc = cli_usage_error("verify-var", "--signed-data takes one FILE");
        goto out;
    }
    struct cli_tally tally = {0};
    for (int i = optind; i < argc; i++) {
        int code = one(argv[i], var, keys, list, signed_out, &co, &tally);
        if (code > rc)
            rc = code;
    }
    if (co.json && argc - optind > 1)
        cli_tally_summary(&tally, stdout, rc, false);
out:
    kt_var_keys_free(keys);
    return rc;
}
