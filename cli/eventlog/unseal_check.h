/* unseal_check.h - `ktrust unseal-check`: shared between cmd_unseal_check.c
 * (options, the PCR sources, the prediction) and unseal_print.c (each
 * token's verdict and its re-seal, text or JSON). */
#ifndef KT_CLI_UNSEAL_CHECK_H
#define KT_CLI_UNSEAL_CHECK_H

#include <stdbool.h>

#include "ktrust/seal.h"

struct unseal_tally {
    size_t unseals, fails, cannot_tell, fails_today;
};

/* One token's verdict: printed (text unless quiet, or one JSON object) and
 * counted.  source: the device, image or file; today_src: where today's
 * PCRs came from. */
void unseal_print(const char *source, const struct kt_seal_token *t,
                  const struct kt_seal_check *r, const char *today_src, bool json, bool quiet,
                  struct unseal_tally *tally);

/* --pcrlock FILE given: systemd tokens also get the systemd-pcrlock
 * re-seal that installs FILE (NULL: not offered). */
void unseal_set_pcrlock(const char *file);

/* The re-seal to run before the change for a token that would not unseal
 * after it (nothing otherwise), text lines under indent. */
void unseal_reseal_print(const char *source, const struct kt_seal_token *t,
                         const struct kt_seal_check *r, const char *indent);

#endif
