/* apply_print.h - `--apply FILE` (audit, chain, check-update): apply signed
 * updates to a variable state and say what each one changed. */
#ifndef KT_CLI_APPLY_PRINT_H
#define KT_CLI_APPLY_PRINT_H

#include <stdbool.h>
#include <stddef.h>

#include "ktrust/efivars.h"
#include "ktrust/nvram.h"
#include "json.h"

#define CLI_MAX_APPLY 32

/* The --apply files, in the order given; the NVRAM limits given
 * (--max-var-size, --var-store-free where a command takes them). */
struct cli_apply {
    const char *files[CLI_MAX_APPLY];
    size_t n;
    /* the first file not applied (NULL: all applied), why, its exit code */
    const char *failed;
    char why[512];
    int failed_code;
    struct kt_nv_limits nv;
};

/* Remember one --apply FILE; -1 (with the usage message printed) when there
 * are too many. */
int cli_apply_add(struct cli_apply *a, const char *cmd, const char *file);

/* One change as a JSON object {"type":"apply", ...}. */
void cli_apply_json(struct jw *w, const char *file, const struct kt_efivars_change *c);
/* ... as text lines ("apply FILE: db gained X509 ..."). */
void cli_apply_text(const char *file, const struct kt_efivars_change *c);

/* Apply every file to *s in order as firmware would, a write that does not
 * fit its NVRAM left out (the limits: a->nv's, else what s's directory
 * reports: kt_nv_limits_read), printing each change (JSON objects on
 * their own lines, or text unless quiet).  Returns the worst exit code of
 * the files not applied (0 when all applied); a->failed names the first. */
int cli_apply_all(struct kt_efivars *s, struct cli_apply *a, bool json, bool quiet);

/* When a file was not applied: the command's conclusion is "cannot answer:
 * FILE: not applied: WHY" (cli_cannot_answer), never its answer for a state
 * the update did not reach; returns the exit code (0 when all applied). */
int cli_apply_cannot_answer(const struct cli_apply *a, bool json, bool quiet);

#endif
