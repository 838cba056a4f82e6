/* json_summary.h - the one summary object that ends the --json output of
 * every command that reports on several inputs or on a whole system
 * (CONTRACT.md "JSON"; scan, check-update, audit, chain, and the verifying
 * commands given several files):
 *
 *   {"type":"summary","schema":N,"verdict":WORD|null,"exit":N,
 *    "counts":{NAME:N,...},"interrupted":BOOL,"error":TEXT|null}
 *
 * "schema" is the version of doc/ktrust.schema.json these objects follow.
 * A --json run that fails before it wrote its summary (a bad option, a
 * missing root, a file that cannot be read) still ends with one, its
 * verdict null and "error" the first error the run reported
 * (cli_json_run_end; cli_first_error), so that a machine never drops out of
 * a fleet's table.
 *
 * A new command fills a struct cli_summary and calls cli_json_summary (one
 * whole NDJSON line).  A command that still writes older fields of its own
 * for one release calls cli_json_summary_begin, adds them, then jw_obj_end
 * and jw_newline. */
#ifndef KT_CLI_JSON_SUMMARY_H
#define KT_CLI_JSON_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "json.h"
#include "ktrust/error.h"

/* One entry of "counts": a verdict or outcome word and how many. */
struct cli_count {
    const char *name;
    unsigned long long n;
};

struct cli_summary {
    const char *verdict;            /* the overall answer, in the words of the command's
                                     * per-input verdicts (the worst); NULL: null (nothing
                                     * got a verdict) */
    int exit;                       /* the exit code the command returns */
    const struct cli_count *counts; /* n_counts entries, written in this order */
    size_t n_counts;
    bool interrupted;               /* stopped early by a signal (scan) */
    const char *error;              /* why the command could not answer; NULL: null */
};

/* The version of the JSON schema (doc/ktrust.schema.json, "schema" in every
 * summary object): raised when a field changes meaning or goes away. */
#define CLI_JSON_SCHEMA 1

/* The run's bookkeeping (main.c): note whether argv asks for --json; at the
 * end, a failing --json run that wrote no summary object writes one with the
 * error (and a failing single-input run that wrote nothing at all). Returns
 * code. */
void cli_json_run_start(int argc, char **argv);
int cli_json_run_end(int code);


/* {"type":"summary",...} as one line on f. */
void cli_json_summary(FILE *f, const struct cli_summary *s);
/* The same fields into a new object on f, left open for more. */
void cli_json_summary_begin(struct jw *w, FILE *f, const struct cli_summary *s);

/* The verifying commands' counts: one slot per verdict (trusted ...
 * refused), "error" (an internal error) and "unreadable" (never verified:
 * the input could not be read, or a setup step failed). */
#define CLI_TALLY_SLOTS (KT_REFUSED + 3)
struct cli_tally {
    unsigned long long n[CLI_TALLY_SLOTS];
    size_t inputs;
};
/* Count one input: its result rc (0 / -errno); verified false when it
 * never got a verdict. */
void cli_tally_add(struct cli_tally *t, int rc, bool verified);
/* The summary line of a tally: verdict the worst verdict counted (null if
 * none), exit the command's exit code. */
void cli_tally_summary(const struct cli_tally *t, FILE *f, int exit_code, bool interrupted);
/* Slot i's name ("trusted" ... "refused", "error", "unreadable"). */
const char *cli_tally_name(int i);

#endif
