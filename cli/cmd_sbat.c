/* ktrust sbat show PE... : the .sbat entries of PE images, read as shim
 * reads them. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sbat_print.h"
#include "pe/pe.h"
#include "sbat/sbat.h"
#include "util/file.h"

static void usage(FILE *f)
{
    cli_usage_print(f,
                    "usage: ktrust sbat show PE... [--json] [-q]\n"
                    "Print the .sbat entries (component, generation, vendor, package, version,\n"
                    "url) of PE images, parsed with shim's rules.\n",
                    cli_opts_show,
                    "Exit code: 0, 4 when a .sbat or image is malformed, 66 when a file cannot\n"
                    "be read; the highest over all files.\n");
}

static int show_one(const char *path, bool json, bool quiet)
{
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    struct kt_pe *pe = NULL;
    struct kt_sbat s = {0};
    int rc = kt_file_open(path, &f, &e);
    if (rc == 0) {
        rc = kt_pe_parse(f.data, f.len, &pe, &e);
        if (rc == 0)
            rc = kt_sbat_from_pe(pe, &s, &e);
    }
    if (rc < 0)
        cli_error(path, &e);
    if (json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "file", path);
        jw_bool(&w, "present", rc == 0 && s.present);
        cli_sbat_entries_json(&w, "entries", rc == 0 ? &s : NULL);
        jw_str(&w, "error", rc < 0 ? (e.what[0] ? e.what : "failed") : NULL);
        jw_obj_end(&w);
        jw_newline(&w);
    } else if (!quiet && rc == 0) {
        printf("%s:", path);
        if (!s.present)
            printf(" no .sbat section\n");
        else
            printf(" %zu entr%s\n", s.n, s.n == 1 ? "y" : "ies");
        for (size_t i = 0; i < s.n; i++) {
            fputs("  ", stdout);
            for (int c = 0; c < KT_SBAT_NCOLS; c++)
                printf("%s%.*s", c ? "," : "", (int)s.entries[i].col[c].len,
                       (const char *)s.entries[i].col[c].p);
            fputc('\n', stdout);
        }
    }
    kt_sbat_free(&s);
    kt_pe_free(pe);
    kt_file_close(&f);
    return rc < 0 ? cli_exit_code(rc) : 0;
}

static int show_file(const char *path, const struct cli_common *co)
{
    return show_one(path, co->json, co->quiet);
}

int cmd_sbat(int argc, char **argv)
{
    return cli_show_main("sbat", argc, argv, usage, show_file);
}
