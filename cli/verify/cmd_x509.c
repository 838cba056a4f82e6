/* ktrust x509 show FILE...: parse certificates (DER, PEM, PEM bundles,
 * concatenated DER) and print them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cert_print.h"
#include "cli.h"
#include "ktrust/advanced.h"
#include "ktrust/x509.h"

static void usage(FILE *f)
{
    cli_usage_print(f,
                    "usage: ktrust x509 show [--json] [-q] FILE...\n\n"
                    "Parse X.509 certificates (DER, PEM, a PEM bundle, or DER certificates\n"
                    "back to back) and print each one: the kernel's key description, names,\n"
                    "serial, key identifiers, validity, key, signature algorithm, fingerprints.\n"
                    "A self-signed certificate whose signature does not verify is rejected,\n"
                    "as the kernel rejects it. '-' reads standard input.  --json: one object\n"
                    "per certificate; an input or certificate that cannot be read:\n"
                    "{file, index, error, reason, offset}.\n",
                    cli_opts_show,
                    "exit codes: 0 ok, 3 unsupported algorithm or key type, 4 malformed,\n"
                    "5 self-signature does not verify, 66 unreadable file\n");
}

struct show_ctx {
    const char *file;
    const struct cli_common *co;
    struct jw w;
    int index;
    int worst;
    bool reported; /* a --json error object was printed */
};

static int worse(int a, int b) { return a > b ? a : b; }

static int show_one(void *vctx, const uint8_t *der, size_t len, size_t file_offset)
{
    struct show_ctx *s = vctx;
    struct kt_x509 *c;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_x509_parse(der, len, &c, &e);
    s->index++;
    if (rc < 0) {
        if (e.offset != KT_NO_OFFSET && e.offset < len)
            e.offset += file_offset; /* DER lists: offsets count from the file's start */
        if (!s->co->quiet)
            cli_error(s->file, &e);
        if (s->co->json && !s->co->quiet)
            cli_bad_input_json(s->file, "certificate", s->index, rc, e.what, e.offset);
        s->worst = worse(s->worst, cli_exit_code(rc));
        s->reported = true;
        return rc;
    }
    if (kt_x509_sig_algorithm_unsupported(c) || !kt_x509_key_supported(c))
        s->worst = worse(s->worst, cli_exit_code(-ENOPKG));
    if (!s->co->quiet) {
        if (s->co->json) {
            jw_obj(&s->w, NULL); /* the CONTRACT's certificate fields and type */
            jw_str(&s->w, "type", "certificate");
            cli_cert_json_fields(&s->w, c);
            jw_obj_end(&s->w);
            jw_newline(&s->w);
        } else {
            printf("%s: certificate %d\n", tx(s->file), s->index);
            cli_cert_text(stdout, c, "  ");
        }
    }
    kt_x509_free(c);
    return 0;
}

static int show_file(const char *path, const struct cli_common *co)
{
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(path, &f, &e);
    if (rc < 0) {
        if (!co->quiet)
            cli_error(path, &e);
        if (co->json && !co->quiet)
            cli_bad_input_json(path, "certificate", 0, rc, e.what, e.offset);
        return EXIT_NOINPUT;
    }
    struct show_ctx s = {.file = path, .co = co};
    jw_init(&s.w, stdout);
    rc = kt_certs_foreach(f.data, f.len, show_one, &s, &e);
    kt_file_close(&f);
    if (rc < 0 && s.worst == 0) {
        /* a failure of the container itself (PEM, no certificate at all) */
        if (!co->quiet)
            cli_error(path, &e);
        if (co->json && !co->quiet && !s.reported)
            cli_bad_input_json(path, "certificate", 0, rc == -ENODATA ? -EBADMSG : rc, e.what, e.offset);
        s.worst = rc == -ENODATA ? 4 : cli_exit_code(rc);
    }
    fflush(stdout);
    return s.worst;
}

int cmd_x509(int argc, char **argv)
{
    return cli_show_main("x509", argc, argv, usage, show_file);
}
