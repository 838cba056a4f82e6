/* SBAT entries and results as JSON and text. */
#include <string.h>

#include "cli.h"
#include "sbat_print.h"
#include "util/file.h"

static const char *const colname[KT_SBAT_NCOLS] = {"component", "generation", "vendor",
                                                   "package",   "version",    "url"};

void cli_sbat_entries_json(struct jw *w, const char *key, const struct kt_sbat *s)
{
    jw_arr(w, key);
    for (size_t i = 0; s && i < s->n; i++) {
        const struct kt_sbat_entry *e = &s->entries[i];
        jw_obj(w, NULL);
        for (int c = 0; c < KT_SBAT_NCOLS; c++) {
            if (c == KT_SBAT_GENERATION)
                jw_int(w, colname[c], e->generation);
            else
                jw_strn(w, colname[c], (const char *)e->col[c].p, e->col[c].len);
        }
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

void cli_sbat_json(struct jw *w, const void *ctx)
{
    const struct cli_sbat *r = ctx;
    char name[128];
    jw_obj(w, "sbat");
    jw_str(w, "level", r->level->stamp[0] ? r->level->stamp : NULL);
    jw_str(w, "level_source", r->level->source);
    jw_bool(w, "present", r->sbat && r->sbat->present);
    cli_sbat_entries_json(w, "entries", r->sbat);
    if (r->img && r->lvl) {
        jw_obj(w, "revoked_by");
        jw_str(w, "component", kt_sbat_col(r->img, KT_SBAT_COMPONENT, name, sizeof(name)));
        jw_int(w, "generation", r->img->generation);
        jw_int(w, "level_generation", r->lvl->generation);
        jw_obj_end(w);
    } else {
        jw_null(w, "revoked_by");
    }
    jw_obj_end(w);
}

void cli_sbat_text(FILE *f, const void *ctx)
{
    const struct cli_sbat *r = ctx;
    const char *stamp = r->level->stamp[0] ? r->level->stamp : "without date stamp";
    char name[128];
    if (r->rc == -EKEYREJECTED && r->img && r->lvl)
        fprintf(f, "  sbat: revoked: %s %u < %u (level %s)\n",
                kt_sbat_col(r->img, KT_SBAT_COMPONENT, name, sizeof(name)), r->img->generation,
                r->lvl->generation, stamp);
    else if (r->rc < 0)
        fprintf(f, "  sbat: unreadable .sbat: shim refuses the image\n");
    else if (!r->sbat || !r->sbat->present)
        fprintf(f, "  sbat: no .sbat section: shim refuses to load it itself (only images "
                   "verified through its protocol, like a kernel, may lack one)\n");
    else
        fprintf(f, "  sbat: passes level %s (%zu entr%s)\n", stamp, r->sbat->n,
                r->sbat->n == 1 ? "y" : "ies");
}

int cli_sbat_level_load(const char *spec, struct kt_sbat_level *l)
{
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_sbat_level_spec(spec, l, &e);
    if (rc < 0) {
        cli_error(spec, &e);
        return cli_exit_code(rc);
    }
    return 0;
}
