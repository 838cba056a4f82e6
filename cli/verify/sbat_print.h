/* sbat_print.h - SBAT entries and results as JSON and text (sbat show,
 * verify-pe --sbat-level, check-update, chain). */
#ifndef KT_CLI_SBAT_PRINT_H
#define KT_CLI_SBAT_PRINT_H

#include <stdio.h>

#include "json.h"
#include "ktrust/sbat.h"

/* One image checked against a level (for vp_result's extra hooks). */
struct cli_sbat {
    const struct kt_sbat *sbat;          /* the image's entries (not present: none) */
    const struct kt_sbat_level *level;
    const struct kt_sbat_entry *img, *lvl; /* the revoking pair, or NULL */
    int rc;                              /* 0, -EKEYREJECTED, or the .sbat parse error */
};

/* "key": [{component, generation, vendor, package, version, url}, ...] */
void cli_sbat_entries_json(struct jw *w, const char *key, const struct kt_sbat *s);
/* "sbat": {level, level_source, present, entries, revoked_by} (ctx: struct cli_sbat) */
void cli_sbat_json(struct jw *w, const void *ctx);
/* "  sbat: ..." one line (ctx: struct cli_sbat) */
void cli_sbat_text(FILE *f, const void *ctx);
/* --sbat-level SPEC: load it into *l (closing the level *l held), or print
 * the error and return the exit code. */
int cli_sbat_level_load(const char *spec, struct kt_sbat_level **l);

#endif
