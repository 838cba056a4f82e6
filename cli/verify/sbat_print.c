/* SBAT entries and results as JSON and text. */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "ktrust/verify.h"
#include "sbat_print.h"

static const char *const colname[KT_SBAT_NCOLS] = {"component", "generation", "vendor",
                                                   "package",   "version",    "url"};

void cli_sbat_entries_json(struct jw *w, const char *key, const struct kt_sbat *s)
{
    jw_arr(w, key);
    for (size_t i = 0; i < kt_sbat_count(s); i++) {
        const struct kt_sbat_entry *e = kt_sbat_entry_at(s, i);
        jw_obj(w, NULL);
        for (int c = 0; c < KT_SBAT_NCOLS; c++) {
            size_t len;
            const char *p = kt_sbat_entry_col(e, c, &len);
            if (c == KT_SBAT_GENERATION)
                jw_int(w, colname[c], kt_sbat_entry_generation(e));
            else
                jw_strn(w, colname[c], p, len);
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
    const char *stamp = kt_sbat_level_stamp(r->level);
    jw_str(w, "level", stamp[0] ? stamp : NULL);
    jw_str(w, "level_source", kt_sbat_level_source(r->level));
    jw_bool(w, "present", kt_sbat_present(r->sbat));
    cli_sbat_entries_json(w, "entries", r->sbat);
    if (r->img && r->lvl) {
        jw_obj(w, "revoked_by");
        jw_str(w, "component", kt_sbat_col(r->img, KT_SBAT_COMPONENT, name, sizeof(name)));
        jw_int(w, "generation", kt_sbat_entry_generation(r->img));
        jw_int(w, "level_generation", kt_sbat_entry_generation(r->lvl));
        jw_obj_end(w);
    } else {
        jw_null(w, "revoked_by");
    }
    jw_obj_end(w);
}

void cli_sbat_text(FILE *f, const void *ctx)
{
    const struct cli_sbat *r = ctx;
    const char *stamp = kt_sbat_level_stamp(r->level);
    if (!stamp[0])
        stamp = "without date stamp";
    char name[128];
    if (r->rc == -EKEYREJECTED && r->img && r->lvl)
        fprintf(f, "  sbat: revoked: %s %u < %u (level %s)\n",
                tx(kt_sbat_col(r->img, KT_SBAT_COMPONENT, name, sizeof(name))),
                kt_sbat_entry_generation(r->img), kt_sbat_entry_generation(r->lvl), tx(stamp));
    else if (r->rc < 0)
        fprintf(f, "  sbat: unreadable .sbat: shim refuses the image\n");
    else if (!kt_sbat_present(r->sbat))
        fprintf(f, "  sbat: no .sbat section: shim refuses to load it itself (only images "
                   "verified through its protocol, like a kernel, may lack one)\n");
    else
        fprintf(f, "  sbat: passes level %s (%zu entr%s)\n", tx(stamp), kt_sbat_count(r->sbat),
                kt_sbat_count(r->sbat) == 1 ? "y" : "ies");
}

int cli_sbat_level_load(const char *spec, struct kt_sbat_level **l)
{
    struct kt_error e = KT_ERROR_INIT;
    kt_sbat_level_close(*l);
    int rc = kt_sbat_level_open(spec, l, &e);
    if (rc < 0) {
        cli_error(spec, &e);
        return cli_exit_code(rc);
    }
    return 0;
}
