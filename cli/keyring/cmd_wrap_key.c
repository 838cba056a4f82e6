/* ktrust wrap-key CERT... -o OUT.efi [--machine x64|aa64]: build an unsigned
 * PE32+ EFI image whose .keylist section holds the certificates. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ktrust/advanced.h"
#include "ktrust/esl.h"
#include "ktrust/x509.h"

enum { OPT_MACHINE = OPT_FIRST_PRIVATE, OPT_VENDOR_CERT, OPT_ESL, OPT_DBX };

struct certs {
    kt_span *v;
    size_t n, cap;
    struct kt_error *err;
};

static int collect(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    struct certs *cs = ctx;
    struct kt_x509 *c;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_x509_parse(der, len, &c, &e);
    if (rc < 0 && rc != -EKEYREJECTED)
        return kt_fail(cs->err, rc, e.offset != KT_NO_OFFSET ? off + e.offset : off,
                       "%s", e.what);
    if (rc == 0)
        kt_x509_free(c);
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? cs->cap * 2 : 8;
        kt_span *v = realloc(cs->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        cs->v = v;
        cs->cap = cap;
    }
    uint8_t *copy = malloc(len);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, der, len);
    cs->v[cs->n].p = copy;
    cs->v[cs->n++].len = len;
    return 0;
}

static int count_entry(void *ctx, const struct kt_esl_entry *en)
{
    (void)en;
    ++*(size_t *)ctx;
    return 0;
}

/* shim's layout: the certificate or an ESL of them, then the vendor dbx. */
static int build_vendor_cert(const struct certs *cs, bool esl, const char *dbx,
                             enum kt_pe_machine m, uint8_t **img, size_t *len,
                             struct kt_error *e)
{
    uint8_t *auth = NULL, *section = NULL;
    size_t auth_len = 0, section_len = 0;
    struct kt_file d = {0};
    kt_span authorized = cs->v[0], deauthorized = {NULL, 0};
    int rc = 0;
    if (esl || cs->n > 1) {
        if ((rc = kt_esl_build_x509(cs->v, cs->n, NULL, &auth, &auth_len)) < 0)
            return rc;
        authorized = (kt_span){auth, auth_len};
    }
    if (dbx) {
        size_t n = 0;
        if ((rc = kt_file_open(dbx, &d, e)) < 0 ||
            (rc = kt_esl_foreach(d.data, d.len, count_entry, &n, e)) < 0)
            goto out;
        deauthorized = (kt_span){d.data, d.len};
    }
    if ((rc = kt_vendor_cert_build(authorized, deauthorized, &section, &section_len)) == 0) {
        kt_span part = {section, section_len};
        rc = kt_pe_build_section(".vendor_cert", &part, 1, m, img, len);
    }
out:
    free(auth);
    free(section);
    kt_file_close(&d);
    return rc;
}

/* --json: what was written, or that nothing was (the error is on stderr). */
static void result_json(const char *out, bool vendor, enum kt_pe_machine m, size_t n_certs,
                        size_t bytes, int code)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "file", out);
    jw_str(&w, "type", "wrap_key");
    jw_bool(&w, "written", code == 0);
    jw_str(&w, "section", vendor ? ".vendor_cert" : ".keylist");
    jw_str(&w, "machine", m == KT_PE_MACHINE_X64 ? "x64" : "aa64");
    jw_int(&w, "certificates", (long long)n_certs);
    jw_int(&w, "bytes", (long long)bytes);
    jw_int(&w, "exit", code);
    jw_obj_end(&w);
    jw_newline(&w);
}

static const struct cli_opt opts[] = {
    CLI_OPT("output", 'o', required_argument, 'o', "OUT.efi", "the image to write (required)"),
    CLI_OPT("machine", 0, required_argument, OPT_MACHINE, "x64|aa64",
            "the image's machine type (default x64)"),
    CLI_OPT("vendor-cert", 0, no_argument, OPT_VENDOR_CERT, NULL,
            "write shim's .vendor_cert section instead of .keylist"),
    CLI_OPT("esl", 0, no_argument, OPT_ESL, NULL,
            "with --vendor-cert: the authorized part is an EFI signature list even for one "
            "certificate"),
    CLI_OPT("dbx", 0, required_argument, OPT_DBX, "ESL",
            "with --vendor-cert: that EFI signature list is the deauthorized part"),
    CLI_OPTS(cli_opts_output),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust wrap-key CERT... -o OUT.efi [--machine x64|aa64] [--json] [-q]\n"
        "       ktrust wrap-key CERT... -o OUT.efi --vendor-cert [--esl] [--dbx ESL]\n"
        "Build an unsigned PE32+ EFI application whose .keylist section holds the\n"
        "certificates (DER or PEM), ready to be signed with sbsign, pesign or osslsigncode.\n"
        "--vendor-cert writes shim's .vendor_cert section instead: the authorized part is\n"
        "the certificate (DER), or an EFI signature list of them with --esl or several\n"
        "certificates; --dbx adds an EFI signature list as the deauthorized part.\n",
        opts, NULL);
}

/* Collects the certificates of every input into cs; 0 or the exit code of the
 * first input that is not a certificate file (said on stderr). */
static int read_inputs(char **files, int n, struct certs *cs)
{
    int ret = 0;
    for (int i = 0; i < n && ret == 0; i++) {
        struct kt_file f;
        struct kt_error e = KT_ERROR_INIT;
        int rc = kt_file_open(files[i], &f, &e);
        if (rc < 0) {
            cli_error(files[i], &e);
            return cli_exit_code(rc);
        }
        size_t before = cs->n;
        cs->err = &e;
        const char *kind = kt_ctx_wrong_kind(f.data, f.len, files[i]);
        rc = kind ? -EMEDIUMTYPE : kt_certs_foreach(f.data, f.len, collect, cs, &e);
        kt_file_close(&f);
        if (kind) {
            /* a usage error: the wrong file, not a malformed certificate */
            cli_errorf(files[i], "%s, not a certificate (PEM, DER or a PEM bundle)", kind);
            ret = EXIT_USAGE;
        } else if (rc < 0) {
            if (!e.code)
                kt_fail(&e, rc, KT_NO_OFFSET, "no certificate could be read");
            cli_error(files[i], &e);
            /* no certificate in an input is malformed input, never "unsigned" */
            ret = rc == -ENODATA ? 4 : cli_exit_code(rc);
        } else if (cs->n == before) {
            cli_errorf(files[i], "no certificate found");
            ret = 4;
        }
    }
    return ret;
}

struct wrap_out {
    const char *path, *dbx;
    enum kt_pe_machine m;
    bool vendor, esl;
};

/* Builds the image and writes it to o->path atomically; 0 (its size in
 * *len) or the exit code, said on stderr. */
static int write_image(const struct wrap_out *o, struct certs *cs, size_t *out_len)
{
    uint8_t *img;
    size_t len;
    struct kt_error e = KT_ERROR_INIT;
    int rc = o->vendor ? build_vendor_cert(cs, o->esl, o->dbx, o->m, &img, &len, &e)
                       : kt_pe_build_keylist(cs->v, cs->n, o->m, &img, &len);
    if (rc == 0) {
        rc = kt_file_write_atomic(o->path, img, len, &e);
        free(img);
        if (rc < 0) {
            cli_error(o->path, &e);
            return EXIT_NOINPUT;
        }
        *out_len = len;
        return 0;
    }
    if (e.code) {
        cli_error(o->dbx, &e);
        return cli_exit_code(rc);
    }
    cli_errorf(o->path, "cannot build the image: %s", strerror(-rc));
    return EXIT_INTERNAL;
}

int cmd_wrap_key(int argc, char **argv)
{
    const char *outp = NULL;
    enum kt_pe_machine m = KT_PE_MACHINE_X64;
    bool quiet = false, vendor = false, esl = false, json = false;
    const char *dbx = NULL;
    struct cli_getopt g;
    int c;
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        switch (c) {
        case 'o': outp = optarg; break;
        case 'q': quiet = true; break;
        case OPT_JSON: json = true; break;
        case 'h': usage(stdout); return 0;
        case OPT_VENDOR_CERT: vendor = true; break;
        case OPT_ESL: esl = true; break;
        case OPT_DBX: dbx = optarg; break;
        case OPT_MACHINE:
            if (strcmp(optarg, "x64") == 0 || strcmp(optarg, "x86_64") == 0)
                m = KT_PE_MACHINE_X64;
            else if (strcmp(optarg, "aa64") == 0 || strcmp(optarg, "arm64") == 0 ||
                     strcmp(optarg, "aarch64") == 0)
                m = KT_PE_MACHINE_AA64;
            else
                return cli_usage_error("wrap-key", "unknown machine '%s' (x64 or aa64)", optarg);
            break;
        default: return EXIT_USAGE; /* cli_getopt said why */
        }
    }
    if (!outp)
        return cli_usage_error("wrap-key", "missing -o OUT.efi");
    if (optind >= argc)
        return cli_usage_error("wrap-key", "no certificate given");
    if ((esl || dbx) && !vendor)
        return cli_usage_error("wrap-key", "--esl and --dbx go with --vendor-cert");

    struct certs cs = {0};
    size_t out_len = 0;
    const struct wrap_out o = {outp, dbx, m, vendor, esl};
    int ret = read_inputs(argv + optind, argc - optind, &cs);
    if (ret == 0)
        ret = write_image(&o, &cs, &out_len);
    if (ret == 0 && !quiet && !json)
        printf("%s: %zu certificate%s wrapped in %s (%zu bytes, %s)\n", tx(outp), cs.n,
               cs.n == 1 ? "" : "s", vendor ? ".vendor_cert" : ".keylist", out_len,
               m == KT_PE_MACHINE_X64 ? "x64" : "aa64");
    if (json)
        result_json(outp, vendor, m, cs.n, out_len, ret);
    for (size_t i = 0; i < cs.n; i++)
        free((void *)cs.v[i].p);
    free(cs.v);
    return ret;
}
