/* seal_lines.h - sealed secrets in the reports of other commands
 * (plan-updates per step, check-update --install): the tokens found as
 * unseal-check finds them (kt_seal_find) and one line, or one JSON object,
 * per token and state. */
#ifndef KT_CLI_SEAL_LINES_H
#define KT_CLI_SEAL_LINES_H

#include <stdbool.h>

#include "json.h"
#include "ktrust/seal.h"
#include "opts.h"

/* --luks SOURCE (plan-updates, check-update --install): its id, between the
 * shared options and OPT_FIRST_PRIVATE, and its table. */
enum { OPT_LUKS_SOURCE = 1060, OPT_LUKS_UKI };
extern const struct cli_opt cli_opts_luks[];

/* --uki FILE, else the UKI systemd-boot on esp boots next under vars, or
 * the one UKI on esp, for the signed policies among f's tokens:
 * kt_seal_uki_open_for, and the re-sign advice told of it.  Prints the
 * error; returns 0 or the exit code.  *out: free with cli_seal_uki_free. */
int cli_seal_uki(const char *uki, const char *esp, const struct kt_efivars *vars,
                 const struct kt_seal_found *f, struct kt_seal_uki **out);
void cli_seal_uki_free(struct kt_seal_uki *u);

/* cmd: the command, for an error of no one source.  The tokens of the sources (n of them), else of root's /etc/crypttab;
 * lenient (sources nobody named): a source that cannot be read is skipped.
 * Prints the error; returns 0 or the exit code.  Free f with
 * kt_seal_found_free either way. */
int cli_seal_find(const char *cmd, const char *root, char **sources, size_t n, bool lenient,
                  struct kt_seal_found *f);

/* One line per token: "INDENTsealed: SOURCE token N (tool, PCRs 4,7):
 * unseals | does NOT unseal | cannot tell (PCR 7 changes)". */
void cli_seal_text(const struct kt_seal_found *f, const struct kt_seal_check *r,
                   const char *indent);

/* The same for token i only. */
void cli_seal_text_one(const struct kt_seal_found *f, const struct kt_seal_check *r, size_t i,
                       const char *indent);

/* key: [{source, token, keyslot, tool, kind, bank, pcrs, unseals_today, unseals_after,
 * changed_pcrs}], one per token (r NULL: an empty array). */
void cli_seal_json(struct jw *w, const char *key, const struct kt_seal_found *f,
                   const struct kt_seal_check *r);

/* The re-seal to run before the change, for each token r says breaks. */
void cli_seal_reseal(const struct kt_seal_found *f, const struct kt_seal_check *r,
                     const char *indent);

#endif
