/* ktrust wrap-key CERT... -o OUT.efi [--machine x64|aa64]: build an unsigned
 * PE32+ EFI image whose .keylist section holds the certificates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pe/pe.h"
#include "util/file.h"
#include "x509/x509.h"

enum { OPT_MACHINE = OPT_FIRST_PRIVATE };

struct certs {
    kt_span *v;
    size_t n, cap;
    struct kt_error *err;
};

static int collect(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    struct certs *cs = ctx;
    struct kt_x509 *c;
    struct kt_error e = {0};
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

static void usage(FILE *f)
{
    fputs("usage: ktrust wrap-key CERT... -o OUT.efi [--machine x64|aa64] [-q]\n"
          "Build an unsigned PE32+ EFI application whose .keylist section holds the\n"
          "certificates (DER or PEM), ready to be signed with sbsign, pesign or osslsigncode.\n",
          f);
}

int cmd_wrap_key(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"machine", required_argument, NULL, OPT_MACHINE},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *outp = NULL;
    enum kt_pe_machine m = KT_PE_MACHINE_X64;
    bool quiet = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': outp = optarg; break;
        case 'q': quiet = true; break;
        case 'h': usage(stdout); return 0;
        case OPT_MACHINE:
            if (strcmp(optarg, "x64") == 0 || strcmp(optarg, "x86_64") == 0)
                m = KT_PE_MACHINE_X64;
            else if (strcmp(optarg, "aa64") == 0 || strcmp(optarg, "arm64") == 0 ||
                     strcmp(optarg, "aarch64") == 0)
                m = KT_PE_MACHINE_AA64;
            else
                return cli_usage_error("wrap-key", "unknown machine '%s' (x64 or aa64)", optarg);
            break;
        default: return cli_usage_error("wrap-key", "bad option");
        }
    }
    if (!outp)
        return cli_usage_error("wrap-key", "missing -o OUT.efi");
    if (optind >= argc)
        return cli_usage_error("wrap-key", "no certificate given");

    struct certs cs = {0};
    int ret = 0;
    for (int i = optind; i < argc && ret == 0; i++) {
        struct kt_file f;
        struct kt_error e = {0};
        int rc = kt_file_open(argv[i], &f, &e);
        if (rc < 0) {
            cli_error(argv[i], &e);
            ret = cli_exit_code(rc);
            break;
        }
        size_t before = cs.n;
        cs.err = &e;
        rc = kt_certs_foreach(f.data, f.len, collect, &cs, &e);
        kt_file_close(&f);
        if (rc < 0) {
            if (!e.code)
                kt_fail(&e, rc, KT_NO_OFFSET, "no certificate could be read");
            cli_error(argv[i], &e);
            ret = cli_exit_code(rc);
        } else if (cs.n == before) {
            cli_errorf(argv[i], "no certificate found");
            ret = cli_exit_code(-ENODATA);
        }
    }
    if (ret == 0) {
        uint8_t *img;
        size_t len;
        struct kt_error e = {0};
        int rc = kt_pe_build_keylist(cs.v, cs.n, m, &img, &len);
        if (rc == 0) {
            rc = kt_file_write_atomic(outp, img, len, &e);
            free(img);
            if (rc < 0) {
                cli_error(outp, &e);
                ret = EXIT_NOINPUT;
            }
        } else {
            cli_errorf(outp, "cannot build the image: %s", strerror(-rc));
            ret = EXIT_INTERNAL;
        }
        if (ret == 0 && !quiet)
            printf("%s: %zu certificate%s wrapped in .keylist (%zu bytes, %s)\n", outp, cs.n,
                   cs.n == 1 ? "" : "s", len, m == KT_PE_MACHINE_X64 ? "x64" : "aa64");
    }
    for (size_t i = 0; i < cs.n; i++)
        free((void *)cs.v[i].p);
    free(cs.v);
    return ret;
}
