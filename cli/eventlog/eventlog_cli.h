/* eventlog_cli.h - `ktrust eventlog`: shared between cmd_eventlog.c (options,
 * the run), eventlog_events.c (each event as kt_evlog_describe says),
 * eventlog_pcrs.c (the replay, and its judgement against PCR values read
 * from a TPM or a file), eventlog_predict.c (the prediction, PCR by PCR). */
#ifndef KT_CLI_EVENTLOG_CLI_H
#define KT_CLI_EVENTLOG_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "ktrust/boot.h"
#include "ktrust/eventlog.h"

/* Read path (kt_pcrs_read).  0, or -1 after an error line (exit:
 * *exit_code, 4 malformed or 66 unreadable). */
/* The part's path under root (NULL: the live one, src/boot's locator) into
 * buf; NULL when it does not exist (a PCR directory: without pcr-sha256). */
const char *ev_sys_part(const char *root, enum kt_sys_part part, char *buf, size_t cap);
int ev_pcrs_read(const char *path, struct kt_pcr_values *x, int *exit_code);

/* The replayed PCRs against x (kt_evlog_pcrs_check): prints (text or JSON
 * objects) and counts.  0, or -1 (no memory). */
struct ev_show {
    bool json, quiet, verbose; /* --json, -q, -v (every unchecked PCR on a line) */
};
int ev_pcrs_compare(const struct kt_evlog_pcrs *p, const struct kt_pcr_values *x, const char *src,
                    const struct ev_show *show, struct kt_pcr_tally *t);
/* One PCR judged, as a {"type":"pcr", bank, index, value, expected, match}
 * line (eventlog --pcrs, ima-list). */
void ev_pcr_json(const struct kt_pcr_check *c);
/* Every replayed PCR (no --pcrs). */
void ev_pcrs_print(const struct kt_evlog_pcrs *p, bool json);

/* Every event, decoded (JSON objects, or one text line each unless quiet). */
void ev_events_print(const char *file, const struct kt_evlog *log, bool json, bool quiet);
/* The log's own integrity: each event whose data does not hash to its
 * digest (kt_evlog_check_digests), text or JSON; *n_bad of them.  0, or -1
 * (no memory). */
int ev_integrity_print(const struct kt_evlog *log, bool json, bool quiet, size_t *n_bad);
/* PCR 7 explained: the authority events. */
int ev_authorities_print(const struct kt_evlog *log, bool json, bool quiet, size_t *n_2011);

struct ev_predict_args {
    const char *predict_format; /* NULL, "yaml", "pcrlock" */
    bool json, quiet;
    bool uki; /* a UKI was given: pcrlock has PCRs 4, 11 and 12 too */
};
/* The prediction's output; returns the number of banks whose PCR 7 changes. */
size_t ev_predict_print(const struct kt_evlog *log, const struct kt_evlog_prediction *p,
                        const struct ev_predict_args *a);

/* A systemd-pcrlock record set (systemd.pcrlock(5)) of the predicted
 * measurements of the PCRs in mask, one JSON object on f. */
void ev_pcrlock_write(FILE *f, const struct kt_evlog *log, const struct kt_evlog_prediction *p,
                      uint32_t mask);

/* Which UKI was picked and why (kt_sdboot_pick_uki's choice): its fields
 * (file, uki: the path on the ESP, entry, rule, options) into the object
 * w has open; in words ("of systemd-boot's next entry ID (RULE)", "given
 * (--uki)", ...) into buf. */
struct jw;
struct kt_sdboot_next_uki;
void ev_uki_choice_json(struct jw *w, const struct kt_sdboot_next_uki *c);
void ev_uki_choice_fields(struct jw *w, const char *image, const char *entry, int rule);
const char *ev_uki_choice_words(const char *entry, int rule, char *buf, size_t cap);

/* hex of a bank's value */
const char *ev_alg(uint16_t alg);

#endif
