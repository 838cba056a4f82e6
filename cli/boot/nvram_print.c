/* nvram_print.c - the firmware's NVRAM limits as options and a write's fit
 * as text and JSON (nvram_print.h). */
#include "nvram_print.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util/fmt.h"

const struct cli_opt cli_opts_nvram[] = {
    CLI_OPT("max-var-size", 0, required_argument, OPT_NV_MAX_VAR, "BYTES",
            "the largest authenticated variable this firmware takes, header, name and data "
            "(EDK2's PcdMaxAuthVariableSize: 0x8400 in OVMF; not reported by the machine)"),
    CLI_OPT("var-store-free", 0, required_argument, OPT_NV_FREE, "BYTES",
            "the free space of its variable store (default: what efivarfs' statfs reports, or "
            "a saved root's record of it)"),
    {0},
};

int cli_nv_opt(struct kt_nv_limits *l, int id, const char *arg, const char *cmd)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 0);
    if (*end == 'K' || *end == 'k') {
        v *= 1024;
        end++;
    }
    if (errno || end == arg || *end || arg[0] == '-')
        return cli_usage_error(cmd, "%s: not a size in bytes", arg);
    if (id == OPT_NV_MAX_VAR) {
        l->max_var = v;
    } else {
        l->store_free = v;
        l->free_known = true;
        snprintf(l->source, sizeof(l->source), "given");
    }
    return 0;
}

void cli_nv_fit_text(const struct kt_nv_fit *f, const struct kt_nv_limits *l, uint64_t free)
{
    char a[32], b[32], c[32], d[32];
    printf("  nvram: %s %s -> %s bytes", kt_efivar_name(f->var), kt_thousands(f->before, a),
           kt_thousands(f->after, b));
    /* a limit not known is said once, on the NVRAM line (cli_nv_summary_text) */
    if (f->too_big != -1)
        printf("; %s the %s-byte limit", f->too_big ? "over" : "under",
               kt_thousands(l->max_var, c));
    if (f->no_room != -1)
        printf("; the write needs %s of %s free", kt_thousands(f->write, a), kt_thousands(free, d));
    printf("\n");
}

static void tri(struct jw *w, const char *key, int v)
{
    if (v < 0)
        jw_null(w, key);
    else
        jw_bool(w, key, v);
}

void cli_nv_fit_json(struct jw *w, const char *key, const struct kt_nv_fit *f)
{
    jw_obj(w, key);
    jw_str(w, "variable", kt_efivar_name(f->var));
    jw_int(w, "before", (long long)f->before);
    jw_int(w, "after", (long long)f->after);
    jw_int(w, "write", (long long)f->write);
    tri(w, "too_big", f->too_big);
    tri(w, "no_room", f->no_room);
    jw_obj_end(w);
}

void cli_nv_summary_text(const struct kt_nv_limits *l, uint64_t free_after,
                         const struct kt_nv_shim *shim, const char *after)
{
    char a[32], b[32], c[32];
    printf("NVRAM: ");
    if (l->max_var)
        printf("at most %s bytes per variable", kt_thousands(l->max_var, a));
    else
        printf("per-variable limit unknown (--max-var-size)");
    if (l->free_known) {
        printf("; %s", kt_thousands(l->store_free, a));
        if (l->store_size)
            printf(" of %s", kt_thousands(l->store_size, b));
        printf(" free now (%s)", l->source);
        if (after)
            printf(", %s %s", kt_thousands(free_after, c), after);
    }
    else
        printf("; free space unknown (--var-store-free)");
    if (shim->known)
        printf("; shim's runtime mirrors need %s%s\n", kt_thousands(shim->total, a),
               shim->room == 1   ? ": room"
               : shim->room == 0 ? ": NO ROOM (shim would stop: Volume Full)"
                                 : "");
    else
        printf("\n");
}

void cli_nv_summary_json(struct jw *w, const char *key, const struct kt_nv_limits *l,
                         uint64_t free_after, const struct kt_nv_shim *shim)
{
    jw_obj(w, key);
    if (l->max_var)
        jw_int(w, "max_var_size", (long long)l->max_var);
    else
        jw_null(w, "max_var_size");
    if (l->free_known) {
        jw_int(w, "store_free", (long long)l->store_free);
        jw_int(w, "store_free_after", (long long)free_after);
        jw_str(w, "source", l->source);
    } else {
        jw_null(w, "store_free");
        jw_null(w, "store_free_after");
        jw_null(w, "source");
    }
    if (l->store_size)
        jw_int(w, "store_size", (long long)l->store_size);
    else
        jw_null(w, "store_size");
    if (shim->known) {
        jw_obj(w, "shim_mirrors");
        static const char *const names[4] = {"MokListRT", "MokListXRT", "SbatLevelRT",
                                             "MokListTrustedRT"};
        for (int i = 0; i < 4; i++)
            jw_int(w, names[i], (long long)shim->size[i]);
        jw_int(w, "total", (long long)shim->total);
        tri(w, "room", shim->room);
        jw_obj_end(w);
    } else {
        jw_null(w, "shim_mirrors");
    }
    jw_obj_end(w);
}
