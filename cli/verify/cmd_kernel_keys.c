/* ktrust kernel-keys VMLINUZ...: print the builtin trusted keys compiled into
 * a kernel image (bzImage with any kernel compression, zboot, or vmlinux). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert_print.h"
#include "cli.h"
#include "ktrust/advanced.h"
#include "ktrust/x509.h"

enum { OPT_PEM = OPT_FIRST_PRIVATE };

static const struct cli_opt opts[] = {
    CLI_OPT("pem", 0, no_argument, OPT_PEM, NULL,
            "the certificates as PEM (for openssl and other tools)"),
    CLI_OPTS(cli_opts_show),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(f,
                    "usage: ktrust kernel-keys [--json | --pem] [-q] VMLINUZ...\n\n"
                    "Find the kernel's compiled-in certificate list (the keys of\n"
                    ".builtin_trusted_keys) in a kernel image and print each certificate.\n"
                    "Accepts an x86 bzImage (gzip, xz, lzma, zstd or lz4 payload), an EFI\n"
                    "zboot image, a compressed vmlinux stream or an uncompressed vmlinux/ELF.\n"
                    "No System.map is needed: the list is recognised as certificates back to\n"
                    "back followed by their total size (system_certificate_list_size).\n"
                    "--json: one certificate object per key, with the extra fields file,\n"
                    "index, compression and vmlinux_offset; an image or key that cannot be\n"
                    "read: {file, index, error, reason, offset}.\n",
                    opts,
                    "exit codes: 0 keys found, 1 no certificate list found, 3 unsupported\n"
                    "compression, 4 malformed image or certificate (also a decompressed size\n"
                    "over the limit), 66 unreadable file\n");
}

struct kk_ctx {
    const char *file;
    const struct cli_common *co;
    const char *comp;
    struct jw w;
    int index;
    int worst;
    bool pem;
};

static int worse(int a, int b) { return a > b ? a : b; }

static int show_key(void *vctx, const uint8_t *der, size_t len, size_t off)
{
    struct kk_ctx *s = vctx;
    struct kt_x509 *c;
    struct kt_error e = KT_ERROR_INIT;
    s->index++;
    int rc = kt_x509_parse(der, len, &c, &e);
    if (rc < 0) {
        /* the kernel skips a certificate it cannot load; so do we, loudly */
        if (!s->co->quiet) {
            fprintf(stderr, "ktrust: %s: builtin key %d (vmlinux offset %zu): %s", tx(s->file),
                    s->index, off, e.what[0] ? tx(e.what) : "cannot parse");
            if (e.offset != KT_NO_OFFSET)
                fprintf(stderr, " (at vmlinux offset %zu)", off + e.offset);
            fputc('\n', stderr);
        }
        if (s->co->json && !s->co->quiet)
            cli_bad_input_json(s->file, "kernel_key", s->index, rc, e.what,
                               e.offset != KT_NO_OFFSET ? off + e.offset : off);
        s->worst = worse(s->worst, cli_exit_code(rc));
        return 0;
    }
    if (!s->co->quiet) {
        if (s->pem) {
            char *pem = kt_pem_encode_cert(der, len, NULL);
            if (pem)
                fputs(pem, stdout);
            free(pem);
        } else if (s->co->json) {
            jw_obj(&s->w, NULL);
            jw_str(&s->w, "type", "kernel_key");
            cli_cert_json_fields(&s->w, c);
            jw_str(&s->w, "file", s->file);
            jw_int(&s->w, "index", s->index);
            jw_str(&s->w, "compression", s->comp);
            jw_int(&s->w, "vmlinux_offset", (long long)off);
            jw_obj_end(&s->w);
            jw_newline(&s->w);
        } else {
            printf("%s: builtin key %d (vmlinux offset %zu)\n", tx(s->file), s->index, off);
            cli_cert_text(stdout, c, "  ");
        }
    }
    kt_x509_free(c);
    return 0;
}

static int one_image(const char *path, const struct cli_common *co, bool pem)
{
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(path, &f, &e);
    if (rc < 0) {
        if (!co->quiet)
            cli_error(path, &e);
        if (co->json && !co->quiet)
            cli_bad_input_json(path, "kernel_key", 0, rc, e.what, e.offset);
        return EXIT_NOINPUT;
    }
    struct kk_ctx s = {.file = path, .co = co, .pem = pem};
    jw_init(&s.w, stdout);
    /* streaming: decoding stops at the list (bounded memory) */
    rc = kt_kernel_certs_foreach(f.data, f.len, 0, show_key, &s, &s.comp, &e);
    kt_file_close(&f);
    if (rc < 0) {
        if (!co->quiet)
            cli_error(path, &e);
        if (co->json && !co->quiet && !pem)
            cli_bad_input_json(path, "kernel_key", 0, rc, e.what, e.offset);
        s.worst = worse(s.worst, cli_exit_code(rc));
    }
    fflush(stdout);
    return s.worst;
}

static bool pem_opt(void *arg, int ch)
{
    if (ch != OPT_PEM)
        return false;
    *(bool *)arg = true;
    return true;
}

static int each_image(const char *path, const struct cli_common *co, void *arg)
{
    return one_image(path, co, *(bool *)arg);
}

int cmd_kernel_keys(int argc, char **argv)
{
    bool pem = false;
    struct cli_files_cmd fc = {"kernel-keys", opts, usage, "no VMLINUZ given", pem_opt, &pem};
    return cli_files_main(&fc, argc, argv, each_image);
}
