/* nvram_print.h - the firmware's NVRAM limits as options (--max-var-size,
 * --var-store-free) and a write's fit as text and JSON (ktrust/nvram.h). */
#ifndef KT_CLI_NVRAM_PRINT_H
#define KT_CLI_NVRAM_PRINT_H

#include <stdbool.h>

#include "json.h"
#include "ktrust/nvram.h"
#include "opts.h"

/* Shared ids: below OPT_FIRST_PRIVATE, above the common ones. */
enum { OPT_NV_MAX_VAR = 1090, OPT_NV_FREE };

extern const struct cli_opt cli_opts_nvram[];

/* Take one of the options into *l (the value: decimal, 0x hex, or with a K
 * suffix).  0, or 64 with the usage message printed. */
int cli_nv_opt(struct kt_nv_limits *l, int id, const char *arg, const char *cmd);

/* "  nvram: dbx 13,404 -> 27,612 bytes ..." (one line): against the limits
 * known; one not known is said once, by cli_nv_summary_text. */
void cli_nv_fit_text(const struct kt_nv_fit *f, const struct kt_nv_limits *l, uint64_t free);
void cli_nv_fit_json(struct jw *w, const char *key, const struct kt_nv_fit *f);
/* The limits, the free space after (after: "after the plan"; NULL: not
 * said), and shim's mirrors (one line). */
void cli_nv_summary_text(const struct kt_nv_limits *l, uint64_t free_after,
                         const struct kt_nv_shim *shim, const char *after);
void cli_nv_summary_json(struct jw *w, const char *key, const struct kt_nv_limits *l,
                         uint64_t free_after, const struct kt_nv_shim *shim);

#endif
