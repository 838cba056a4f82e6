/* ktrust sbat show PE... : the .sbat entries of PE images, read as shim
 * reads them. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ktrust/advanced.h"
#include "ktrust/sbat.h"
#include "sbat_print.h"

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
    struct kt_sbat *s = NULL;
    int rc = kt_file_open(path, &f, &e);
    if (rc == 0)
        rc = kt_sbat_open_image(f.data, f.len, &s, &e);
    if (rc < 0)
        cli_error(path, &e);
    if (json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "file", path);
        jw_str(&w, "type", "sbat");
        jw_bool(&w, "present", rc == 0 && kt_sbat_present(s));
        cli_sbat_entries_json(&w, "entries", rc == 0 ? s : NULL);
        jw_str(&w, "error", rc < 0 ? (e.what[0] ? e.what : "failed") : NULL);
        jw_obj_end(&w);
        jw_newline(&w);
    } else if (!quiet && rc == 0) {
        printf("%s:", tx(path));
        size_t n = kt_sbat_count(s);
        if (!kt_sbat_present(s))
            printf(" no .sbat section\n");
        else
            printf(" %zu entr%s\n", n, n == 1 ? "y" : "ies");
        for (size_t i = 0; i < n; i++) {
            fputs("  ", stdout);
            for (int c = 0; c < KT_SBAT_NCOLS; c++) {
                size_t len;
                const char *p = kt_sbat_entry_col(kt_sbat_entry_at(s, i), c, &len);
                printf("%s%s", c ? "," : "", txn(p, len));
            }
            fputc('\n', stdout);
        }
    }
    kt_sbat_close(s);
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
