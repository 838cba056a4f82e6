/* ktrust verify-var FILE... --var NAME [--pk FILE] [--kek FILE] [--list]:
 * signed EFI variable updates (EFI_VARIABLE_AUTHENTICATION_2) checked as
 * firmware checks a SetVariable() of db, dbx, dbt, dbr, KEK or PK. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "authvar/authvar.h"
#include "cert_print.h"
#include "cli.h"
#include "esl/esl_svn.h"
#include "util/file.h"
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
    CLI_OPTS(cli_opts_output),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust verify-var FILE... [--var PK|KEK|db|dbx|dbt|dbr] [--pk FILE]...\n"
        "                         [--kek FILE]... [--list] [--signed-data OUT] [--json] [-q]\n"
        "Verify signed EFI variable updates (EFI_VARIABLE_AUTHENTICATION_2) as firmware\n"
        "does: the signature over name, vendor GUID, attributes (append 0x67 or replace\n"
        "0x27), timestamp and payload; SHA-256 only; PK and KEK updates signed by the PK,\n"
        "db/dbx/dbt/dbr by the PK or a KEK certificate (certificate dates ignored).\n",
        opts,
        "Exit code: 0 trusted, 1 not a signed update, 2 untrusted (no authority given or\n"
        "none vouches), 3 not SHA-256, 4 malformed, 5 signature does not match.\n");
}

struct var_ctx {
    const char *var;
    const struct kt_authvar *v;
    const struct kt_authvar_result *res;
    bool list;
};

static void counts_json(struct jw *w, const struct kt_authvar_counts *c)
{
    jw_obj(w, "payload");
    jw_int(w, "x509", (long long)c->x509);
    jw_int(w, "sha256", (long long)c->sha256);
    jw_int(w, "x509_sha256", (long long)c->x509_sha256);
    jw_int(w, "sha384", (long long)c->sha384);
    jw_int(w, "sha512", (long long)c->sha512);
    jw_int(w, "svn", (long long)c->svn);
    jw_int(w, "other", (long long)c->other);
    jw_obj_end(w);
}

static int entry_json(void *ctx, const struct kt_esl_entry *e)
{
    struct jw *w = ctx;
    char g[40];
    jw_obj(w, NULL);
    jw_str(w, "type", kt_authvar_entry_type(e));
    jw_str(w, "owner", kt_guid_str(e->owner, g));
    struct kt_esl_svn svn;
    if (kt_esl_svn_parse(e, &svn) == 0) {
        jw_obj(w, "value");
        jw_int(w, "version", svn.version);
        jw_str(w, "guid", kt_guid_str(svn.guid, g));
        jw_int(w, "major", svn.major);
        jw_int(w, "minor", svn.minor);
        jw_obj_end(w);
    } else if (e->type == KT_ESL_X509) {
        struct kt_x509 *x = NULL;
        struct kt_error xe = KT_ERROR_INIT;
        if (kt_x509_parse(e->data.p, e->data.len, &x, &xe) == 0) {
            cli_cert_json(w, "value", x);
            kt_x509_free(x);
        } else {
            jw_hex(w, "value", e->data.p, e->data.len);
        }
    } else {
        jw_hex(w, "value", e->data.p, e->data.len);
    }
    jw_obj_end(w);
    return 0;
}

static int entry_text(void *ctx, const struct kt_esl_entry *e)
{
    (void)ctx;
    char g[40], h[2 * 64 + 1];
    struct kt_esl_svn svn;
    if (kt_esl_svn_parse(e, &svn) == 0) {
        printf("    svn: application %s, version %u.%u (record version %u)\n",
               kt_guid_str(svn.guid, g), svn.major, svn.minor, svn.version);
    } else if (e->type == KT_ESL_X509) {
        struct kt_x509 *x = NULL;
        struct kt_error xe = KT_ERROR_INIT;
        if (kt_x509_parse(e->data.p, e->data.len, &x, &xe) == 0) {
            printf("    x509: %s\n", x->description);
            kt_x509_free(x);
        } else {
            printf("    x509: (unparsable: %s)\n", xe.what);
        }
    } else if (e->data.len <= 64) {
        printf("    %s: %s\n", kt_authvar_entry_type(e), kt_hex(e->data.p, e->data.len, h));
    } else {
        printf("    %s: %zu bytes\n", kt_authvar_entry_type(e), e->data.len);
    }
    return 0;
}

static void var_json(struct jw *w, const void *p)
{
    const struct var_ctx *c = p;
    jw_str(w, "var", c->var);
    if (!c->v) {
        jw_null(w, "write");
        jw_null(w, "timestamp");
        jw_null(w, "content_info_wrapped");
        jw_null(w, "payload");
        return;
    }
    jw_str(w, "write", !c->res->attributes ? NULL : c->res->append ? "append" : "replace");
    jw_time(w, "timestamp", c->v->timestamp);
    jw_bool(w, "content_info_wrapped", c->v->content_info_wrapped);
    counts_json(w, &c->res->counts);
    if (c->list) {
        struct kt_error e = KT_ERROR_INIT;
        jw_arr(w, "entries");
        kt_esl_foreach(c->v->payload.p, c->v->payload.len, entry_json, w, &e);
        jw_arr_end(w);
    }
}

static void var_text(FILE *f, const void *p)
{
    const struct var_ctx *c = p;
    if (!c->v)
        return;
    const struct kt_authvar_counts *n = &c->res->counts;
    char t[40];
    fprintf(f, "  variable %s, %s write, timestamp %s%s\n", c->var,
            !c->res->attributes ? "unverified" : c->res->append ? "append" : "replace",
            kt_iso_time(c->v->timestamp, t, sizeof(t)),
            c->v->content_info_wrapped ? ", PKCS#7 in a ContentInfo" : "");
    fprintf(f, "  payload: %zu x509, %zu sha256, %zu x509_sha256, %zu sha384, %zu sha512, "
               "%zu svn, %zu other\n",
            n->x509, n->sha256, n->x509_sha256, n->sha384, n->sha512, n->svn, n->other);
    if (c->list) {
        struct kt_error e = KT_ERROR_INIT;
        kt_esl_foreach(c->v->payload.p, c->v->payload.len, entry_text, NULL, &e);
    }
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

static int load_set(struct kt_certset *s, const char *path)
{
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(path, &f, &e);
    if (rc == 0)
        rc = kt_certset_add(s, f.data, f.len, &e);
    kt_file_close(&f);
    if (rc < 0) {
        cli_error(path, &e);
        return cli_exit_code(rc);
    }
    return 0;
}

static int write_signed(const char *out, const struct kt_authvar *v, const char *var,
                        uint32_t attrs)
{
    uint8_t *b;
    size_t n;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_authvar_signed(v, var, kt_authvar_vendor(var), attrs, &b, &n);
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

static int one(const char *path, const char *var_opt, const struct kt_certset *pk,
               const struct kt_certset *kek, bool list, const char *signed_out,
               const struct cli_common *co)
{
    char nb[64];
    const char *var = var_opt ? var_opt : name_from_path(path, nb, sizeof(nb));
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    struct kt_authvar v;
    struct kt_authvar_result res = {0};
    struct kt_signer_tree sigs = {0};
    if (!var || !kt_authvar_vendor(var)) {
        cli_errorf(path, "which variable? give --var PK|KEK|db|dbx|dbt|dbr%s%s",
                   var ? " (not " : "", var ? var : "");
        return EXIT_USAGE;
    }
    int rc = kt_file_open(path, &f, &e);
    if (rc < 0) {
        vp_print_unreadable(path, "variable", rc, &e, co->json);
        return cli_exit_code(rc);
    }
    bool parsed = false;
    rc = kt_authvar_parse(f.data, f.len, &v, &e);
    if (rc == 0) {
        parsed = true;
        rc = kt_authvar_verify(&v, var, NULL, pk, kek, &res);
        e = res.error;
        if (kt_signer_tree_from_authvar(&sigs, &res, rc, &e) < 0) {
            kt_fail(&e, -ENOMEM, KT_NO_OFFSET, "out of memory");
            rc = -ENOMEM;
        }
    }
    struct var_ctx vc = {.var = var, .v = parsed ? &v : NULL, .res = &res, .list = list};
    struct vp_result vr = {.file = path, .type = "variable", .rc = rc, .error = &e,
                           .sigs = sigs.sigs, .n_sigs = sigs.n, .extra_json = var_json,
                           .extra_text = var_text, .extra_ctx = &vc};
    vp_print(&vr, co->json, co->quiet, true);
    enum kt_verdict vd = kt_verdict_of(rc);
    if (vd == KT_MALFORMED || vd == KT_INTERNAL)
        cli_error(path, &e);
    int code = cli_exit_code(rc);
    if (signed_out && parsed) {
        int wc = write_signed(signed_out, &v, var,
                              res.attributes ? res.attributes
                                             : KT_EFI_VAR_AUTH_ATTRS | KT_EFI_VAR_APPEND_WRITE);
        if (wc > code)
            code = wc;
    }
    kt_signer_tree_free(&sigs);
    kt_authvar_result_free(&res);
    kt_file_close(&f);
    return code;
}

int cmd_verify_var(int argc, char **argv)
{
    struct cli_common co = {0};
    const char *var = NULL, *signed_out = NULL;
    bool list = false;
    struct kt_certset pk = {0}, kek = {0};
    struct cli_getopt g;
    int c, rc = 0;
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        switch (c) {
        case OPT_JSON: co.json = true; break;
        case 'q': co.quiet = true; break;
        case 'h': usage(stdout); goto out;
        case OPT_VAR:
            if (!kt_authvar_vendor(optarg)) {
                rc = cli_usage_error("verify-var", "--var %s: PK, KEK, db, dbx, dbt or dbr",
                                     optarg);
                goto out;
            }
            var = optarg;
            break;
        case OPT_PK:
            if ((rc = load_set(&pk, optarg)) != 0)
                goto out;
            break;
        case OPT_KEK:
            if ((rc = load_set(&kek, optarg)) != 0)
                goto out;
            break;
        case OPT_LIST: list = true; break;
        case OPT_SIGNED_DATA: signed_out = optarg; break;
        default: rc = cli_usage_error("verify-var", "bad option"); goto out;
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
    for (int i = optind; i < argc; i++) {
        int code = one(argv[i], var, &pk, &kek, list, signed_out, &co);
        if (code > rc)
            rc = code;
    }
out:
    kt_certset_free(&pk);
    kt_certset_free(&kek);
    return rc;
}
