/* recompute.h - the event log as a per-PCR pipeline: one replay loop
 * (pipeline.c) walks the log's events and, for each PCR, asks the
 * recomputers registered for it by source of truth:
 *   predict.c        PCR 7: the Secure Boot variables, firmware's db
 *                    authority (the db entry the boot engine picks on the
 *                    ESP), shim's SbatLevel
 *   predict_insert.c PCR 7: db authority events firmware would add
 *   predict_image.c  PCR 4: boot applications' Authenticode digests
 *   predict_mok.c    PCR 14: shim's MOK lists
 *   predict_uki.c    PCR 11: the UKI's sections as systemd-stub measures them
 *   predict_cmdline.c PCR 12: systemd-boot's and the stub's load options,
 *                    the stub's credentials
 * A new PCR (11: UKI sections, 10: IMA) is one more recomputer in the
 * table of pipeline.c; nothing public changes. */
#ifndef KT_EVENTLOG_RECOMPUTE_H
#define KT_EVENTLOG_RECOMPUTE_H

#include <stdbool.h>

#include "ktrust/chain.h"
#include "ktrust/eventlog.h"

/* One PCR's part of a prediction: its events in log order (with any a
 * recomputer inserted), each with its predicted digest in every bank. */
struct kt_evlog_pcr_pred {
    unsigned pcr;
    const char *what, *source; /* of its first recomputer */
    bool changes;              /* after differs from now in a bank */
    size_t n;
    struct kt_evlog_predicted *ev; /* owned */
};

struct kt_evlog_prediction {
    struct kt_evlog_pcrs now;   /* the log replayed */
    struct kt_evlog_pcrs after; /* each predicted PCR replayed from its events */
    size_t n_pcrs;              /* in the order of the recomputers' table */
    struct kt_evlog_pcr_pred pcr[KT_EVLOG_PCRS];
    struct kt_sdboot_next_uki *uki; /* the UKI predicted from and why (owned), NULL none */
};

struct kt_evlog_recomputer {
    unsigned pcr;
    const char *what;   /* what the PCR's prediction does, for a heading (the
                         * PCR's first recomputer's is used) */
    const char *source; /* its source of truth, a few words ("shim's MOK lists") */
    /* Has it what it needs in o?  NULL: always.  A PCR none of whose
     * recomputers is active is not predicted. */
    bool (*active)(const struct kt_evlog_predict_opts *o);
    /* Does it recompute event i (of its PCR)?  1, 0, or a negative errno
     * (err: an event that should decode and does not). */
    int (*claims)(const struct kt_evlog *log, size_t i, struct kt_error *err);
    /* Recompute event i: pr holds the logged digests and KT_PRED_KEPT;
     * set how, note, hint and the digests of the banks it computes.  0, or
     * a negative errno that ends the prediction. */
    int (*recompute)(const struct kt_evlog *log, size_t i, const struct kt_evlog_predict_opts *o,
                     struct kt_evlog_predicted *pr, struct kt_error *err);
    /* After every event: add or change events of the PCR (NULL: none). */
    int (*finish)(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                  struct kt_evlog_pcr_pred *s);
};

/* The recomputers, by source of truth. */
extern const struct kt_evlog_recomputer kt_evlog_rc_sb_vars;      /* predict.c */
extern const struct kt_evlog_recomputer kt_evlog_rc_db_authority; /* predict.c */
extern const struct kt_evlog_recomputer kt_evlog_rc_sbat_level;   /* predict.c */
extern const struct kt_evlog_recomputer kt_evlog_rc_db_insert;    /* predict_insert.c */
extern const struct kt_evlog_recomputer kt_evlog_rc_images;       /* predict_image.c */
extern const struct kt_evlog_recomputer kt_evlog_rc_mok;          /* predict_mok.c */
extern const struct kt_evlog_recomputer kt_evlog_rc_shim_authority; /* predict_shim.c */
extern const struct kt_evlog_recomputer kt_evlog_rc_uki;          /* predict_uki.c */
extern const struct kt_evlog_recomputer kt_evlog_rc_cmdline;      /* predict_cmdline.c */

/* kt_evlog_predict with the recomputers r[0..n) instead of the library's
 * table (the unit tests register their own). */
int kt_evlog_predict_with(const struct kt_evlog_recomputer *const *r, size_t n,
                          const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                          struct kt_evlog_prediction **out, struct kt_error *err);

/* KT_PRED_RECOMPUTED when the digests d (every computable bank) equal the
 * ones pr holds, else KT_PRED_CHANGED; d copied into pr. */
void kt_evlog_pred_set(const struct kt_evlog *log, struct kt_evlog_predicted *pr,
                       const uint8_t d[KT_EVLOG_MAX_BANKS][KT_EVLOG_MAX_DIGEST]);

/* Insert x at position pos (<= s->n) of s's events: 0 or -ENOMEM. */
int kt_evlog_pred_insert(struct kt_evlog_pcr_pred *s, size_t pos, const struct kt_evlog_predicted *x);

/* Does the next boot verify images (EDK2's DxeImageVerificationLib and
 * shim check signatures only with SecureBoot = 1, which the variable
 * driver sets only in user mode, AuthVariableLibInitialize: a PK)?  True
 * without new variables (the logged state). */
bool kt_evlog_next_boot_secure(const struct kt_evlog_predict_opts *o);

/* The db entry (owner GUID + data, as EFI_SIGNATURE_DATA) of vars' db that
 * the chain names (which: variable "db", its index, owner and the SHA-256 of
 * its data, kt_chain_firmware's link->db): 0 and *out, or -ENOENT. */
int kt_evlog_db_entry(const struct kt_efivars *vars, const struct kt_chain_entry *which,
                      kt_span *out);

/* The file of the boot image the log names as file (`\EFI\BOOT\BOOTX64.EFI`):
 * a replacement of o->swap (the log's path compared case-blind, either
 * separator), else the file on o->esp (kt_esp_resolve).  0 and path, or
 * a negative errno (-ENOENT: neither). */
int kt_evlog_image_file(const struct kt_evlog_predict_opts *o, const char *file, char *path,
                        size_t cap);
/* The firmware's verdict on the boot application at path under vars, for
 * the db entry it logs: the boot engine's (kt_chain_firmware: a first stage
 * is a shim that wraps keys), or, when that refuses an image firmware's db
 * and dbx accept (systemd-boot wraps none), firmware's own (db and dbx
 * only, kt_chain_firmware_app): what is logged does not depend on what the
 * image is.  Returns l->verdict. */
int kt_evlog_firmware_link(const struct kt_efivars *vars, const char *path, struct kt_chain_link *l);
/* Images can be looked up: an ESP or replacements. */
bool kt_evlog_has_images(const struct kt_evlog_predict_opts *o);

#endif
