/* predict_opts.h - the options that describe a system and a change for a
 * PCR prediction, one table shared by `eventlog` and `unseal-check`:
 * --root, --pcrs, --efivars, --apply, --sbat-level, --esp. */
#ifndef KT_CLI_PREDICT_OPTS_H
#define KT_CLI_PREDICT_OPTS_H

#include <stdbool.h>

#include "apply_print.h"
#include "opts.h"

/* Their ids: between the shared options (opts.h) and OPT_FIRST_PRIVATE. */
enum {
    OPT_PRED_ROOT = 1050,
    OPT_PRED_PCRS,
    OPT_PRED_EFIVARS,
    OPT_PRED_APPLY,
    OPT_PRED_SBAT_LEVEL,
    OPT_PRED_ESP,
};

extern const struct cli_opt cli_opts_predict[];

struct cli_predict_args {
    const char *root, *pcrs, *efivars, *sbat, *esp;
    struct cli_apply apply;
};

/* Option c (cli_getopt's id) with optarg into p: 1 taken, 0 not one of
 * these, -1 after a usage error (cmd names the command). */
int cli_predict_opt(int c, const char *cmd, struct cli_predict_args *p);

/* What both commands refuse: --sbat-level shim:FILE.  0, or 64 after the
 * error line. */
int cli_predict_check(const char *cmd, const struct cli_predict_args *p);

#endif
