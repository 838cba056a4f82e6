/* unseal_check.h - `ktrust unseal-check`: shared between cmd_unseal_check.c
 * (options, the PCR sources, the prediction) and unseal_print.c (each
 * token's verdict and its re-seal, text or JSON). */
#ifndef KT_CLI_UNSEAL_CHECK_H
#define KT_CLI_UNSEAL_CHECK_H

#include <stdbool.h>

#include "json.h"
#include "ktrust/seal.h"

#define UNSEAL_CMD_MAX 4096

/* One way to keep a token unsealing: what to run before the change, and
 * after it. */
struct reseal {
    const char *how; /* "clevis_pcr_digest", "systemd_cryptenroll_255", "recovery_key", ... */
    char command[UNSEAL_CMD_MAX];
    char then[1024];
};

/* The PCRs of mask: "7" or "4,7" (sep ','), or "4+7". */
void unseal_pcr_list(uint32_t mask, char sep, char *out, size_t cap);

/* A signed policy (unseal_signed.c): its .pcrsig finding as text lines or
 * a "signed" JSON member, and the re-sign that keeps it unsealing (0 or 1
 * into out).  uki: the UKI judged (NULL: none). */
void unseal_signed_text(const struct kt_seal_token *t, const struct kt_seal_check *r,
                        const struct kt_seal_uki *uki);
void unseal_signed_json(struct jw *w, const struct kt_seal_token *t,
                        const struct kt_seal_check *r, const struct kt_seal_uki *uki);
size_t unseal_signed_reseal(const char *source, const struct kt_seal_token *t,
                            const struct kt_seal_check *r, const struct kt_seal_uki *uki,
                            struct reseal *out);

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

/* The UKI that boots (kt_seal_uki_open; NULL: none), for a signed
 * policy's report and its re-sign advice. */
void unseal_set_uki(const struct kt_seal_uki *uki);
const struct kt_seal_uki *unseal_uki(void);

/* The re-seal to run before the change for a token that would not unseal
 * after it (nothing otherwise), text lines under indent. */
void unseal_reseal_print(const char *source, const struct kt_seal_token *t,
                         const struct kt_seal_check *r, const char *indent);

#endif
