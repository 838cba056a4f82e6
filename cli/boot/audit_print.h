/* audit_print.h - `ktrust audit` output: text, JSON sections, DOT. */
#ifndef KT_CLI_AUDIT_PRINT_H
#define KT_CLI_AUDIT_PRINT_H

#include <stdbool.h>

#include "json.h"
#include "ktrust/audit.h"

/* The exit code of an audit: its verdict (a->verdict, the library's fold)
 * as an exit code; 66 when no part at all was found. */
int audit_exit_code(const struct kt_audit *a);
void audit_print_text(const struct kt_audit *a, const struct kt_audit_opts *o, bool verbose);
/* With require_ready (--require-ready), a rollover state other than ready
 * raises the exit code to EXIT_NOT_READY (the highest code wins). */
void audit_print_json(const struct kt_audit *a, const struct kt_audit_opts *o, bool require_ready);
int audit_exit_code_ready(const struct kt_audit *a, bool require_ready);
/* What would vouch for an untrusted link (KT_AUDIT_SHIM ...) or group of
 * modules, and how to supply it, into out ("" when nothing is to say). */
void audit_link_hint(const struct kt_audit *a, int link, char *out, size_t cap);
void audit_group_hint(const struct kt_audit *a, const struct kt_audit_group *g, char *out,
                      size_t cap);
/* How to act on a rollover finding with ktrust's own commands ("" none). */
void audit_rollover_hint(const struct kt_audit *a, const struct kt_rollover_finding *f, char *out,
                         size_t cap);
/* The rollover section, as text and as its JSON object. */
void audit_print_rollover(const struct kt_audit *a, bool verbose);
/* "ready", "AT RISK", "NOT READY" (the text's words for a rollover state). */
const char *audit_rollover_state_word(int state);
void audit_json_rollover(const struct kt_audit *a);
/* "rollover": {"state", "ready", "missing": [finding ids]} in the summary. */
void audit_json_readiness(struct jw *w, const struct kt_audit *a);
/* Write the DOT picture; 0 or EXIT_NOINPUT (the error printed). */
int audit_write_dot(const struct kt_audit *a, const char *out);

#endif
