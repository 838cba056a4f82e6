/* predict_shim.c - PCR 7's authority events that shim logs: each distinct
 * certificate entry that verified an image shim loaded, once (shim's
 * tpm_measure_variable skips what tpm_data_measured finds: the same name,
 * GUID and data).  shim checks db (unless MokIgnoreDB), then MokListRT (its
 * vendor certificate first, then MokList), so the entry that verifies the
 * loader is the chain's first db entry over db ++ MokListRT.
 *
 * Source of truth: the loader on the ESP under the new state.  The kernel
 * (loaded from memory, not on the ESP) is taken to be verified as at the
 * last boot: when the loader's entry changes and the log shows one
 * MokListRT event, that entry verified the kernel too, and shim logs it
 * again for the kernel: an event inserted after the last PCR 7 event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/esp.h"
#include "esl/esl.h"
#include "eventlog/eventlog.h"
#include "eventlog/recompute.h"
#include "ktrust/chain.h"
#include "ktrust/efivars.h"
#include "util/fmt.h"

static const char MOKLIST_RT[] = "MokListRT";

static int claims(const struct kt_evlog *log, size_t i, struct kt_error *err)
{
    const struct kt_evlog_event *e = &log->event[i];
    struct kt_evlog_var v;
    if (e->type != KT_EV_EFI_VARIABLE_AUTHORITY)
        return 0;
    int rc = kt_evlog_var_parse(e, &v, err);
    return rc < 0 ? rc : !strcmp(v.name, MOKLIST_RT);
}

static void keep(struct kt_evlog_predicted *pr, const char *why, const char *what)
{
    pr->how = KT_PRED_KEPT_UNKNOWN;
    kt_fmt(pr->note, sizeof(pr->note), "%s%s: the logged authority kept", why, what);
}

static int count(void *ctx, const struct kt_esl_entry *e)
{
    (void)e;
    ++*(size_t *)ctx;
    return 0;
}

/* The variable data of the state that shim searches, in its order: db
 * (unless MokIgnoreDB) then MokListRT, as one run of signature lists in a
 * copy of vars (its db replaced); *n_db: the entries that are db's. */
static int shim_db(const struct kt_efivars *vars, struct kt_efivars *out, size_t *n_db)
{
    size_t db_len = 0, mok_len = 0, ig_len = 0;
    const uint8_t *db = kt_efivar_data(&vars->var[KT_EFIVAR_DB], &db_len);
    const uint8_t *mok = kt_efivar_data(&vars->var[KT_EFIVAR_MOKLIST], &mok_len);
    const uint8_t *ig = kt_efivar_data(&vars->var[KT_EFIVAR_MOK_IGNORE_DB], &ig_len);
    if (ig && ig_len && ig[0])
        db_len = 0;
    *n_db = 0;
    if (db_len && kt_esl_foreach(db, db_len, count, n_db, NULL) < 0)
        return -EBADMSG;
    if (kt_efivars_copy(vars, out) < 0)
        return -ENOMEM;
    uint8_t *raw = malloc(4 + db_len + mok_len);
    if (!raw) {
        kt_efivars_free(out);
        return -ENOMEM;
    }
    memcpy(raw, "\x27\x00\x00\x00", 4);
    if (db_len)
        memcpy(raw + 4, db, db_len);
    if (mok_len)
        memcpy(raw + 4 + db_len, mok, mok_len);
    struct kt_efivar *v = &out->var[KT_EFIVAR_DB];
    free(v->raw);
    v->raw = raw;
    v->raw_len = 4 + db_len + mok_len;
    v->state = KT_EFIVAR_PRESENT;
    return 0;
}

/* The loader: the next boot application after event i, on the ESP. */
static bool loader_path(const struct kt_evlog *log, size_t i, const struct kt_evlog_predict_opts *o,
                        char *file,
                        size_t fcap, char *path, size_t pcap)
{
    size_t j = i + 1;
    while (j < log->n_events && !kt_evlog_is_image(log->event[j].type))
        j++;
    char dp[512];
    return j < log->n_events && log->event[j].type == KT_EV_EFI_BOOT_SERVICES_APPLICATION &&
           kt_evlog_devpath(&log->event[j], dp, sizeof(dp), file, fcap) == 0 && file[0] &&
           kt_evlog_image_file(o, file, path, pcap) == 0;
}

static int recompute(const struct kt_evlog *log, size_t i, const struct kt_evlog_predict_opts *o,
                     struct kt_evlog_predicted *pr, struct kt_error *err)
{
    const struct kt_evlog_event *e = &log->event[i];
    struct kt_evlog_var v;
    KT_TRY(kt_evlog_var_parse(e, &v, err));
    char file[512], path[4096];
    if (!kt_evlog_next_boot_secure(o)) {
        pr->how = KT_PRED_REMOVED;
        kt_fmt(pr->note, sizeof(pr->note), "Secure Boot off at the next boot (no PK: setup "
               "mode): shim verifies nothing and logs no authority");
        return 0;
    }
    if (o->vars->var[KT_EFIVAR_MOKLIST].state != KT_EFIVAR_PRESENT) {
        keep(pr, "MokListRT (shim's runtime copy: its vendor certificate, then MokList) not in "
                 "the new state", "");
        return 0;
    }
    if (!loader_path(log, i, o, file, sizeof(file), path, sizeof(path))) {
        keep(pr, "no loader file after it on the ESP (the kernel, loaded from memory?)", "");
        return 0;
    }
    struct kt_efivars s;
    size_t n_db;
    KT_TRY(shim_db(o->vars, &s, &n_db));
    struct kt_chain_link l;
    memset(&l, 0, sizeof(l));
    /* the walk's answer, not the link's verdict: that one judges a shim
     * (a loader wraps no keys) */
    kt_chain_firmware(&s, path, &l);
    kt_span entry = {NULL, 0};
    int rc = l.db.var[0] && !l.n_dbx ? kt_evlog_db_entry(&s, &l.db, &entry) : -ENOENT;
    if (rc == 0 && l.db.index < n_db)
        rc = -EXDEV; /* shim logs it as "db": another variable, not this event */
    if (rc == 0) {
        uint8_t d[KT_EVLOG_MAX_BANKS][KT_EVLOG_MAX_DIGEST];
        memcpy(d, pr->digest, sizeof(d));
        for (size_t b = 0; rc == 0 && b < log->n_banks; b++) {
            size_t len;
            if (log->bank[b].supported)
                rc = kt_evlog_var_digest(log->bank[b].alg, v.guid, v.name, entry.p, entry.len,
                                         d[b], &len);
        }
        if (rc == 0) {
            kt_evlog_pred_set(log, pr, d);
            kt_fmt(pr->note, sizeof(pr->note), "%s verified by %s (MokListRT entry %zu)", file,
                   l.trusted_by, l.db.index - n_db);
        }
    } else if (rc == -EXDEV) {
        keep(pr, file, " would be verified by a db entry (logged as db by shim)");
        rc = 0;
    } else {
        keep(pr, file, " is verified by no db or MokListRT entry of the new state");
        rc = 0;
    }
    kt_efivars_free(&s);
    return rc == -ENOMEM ? rc : 0;
}

/* The one MokListRT event of the log, when there is exactly one: its index in s. */
static bool single(const struct kt_evlog *log, const struct kt_evlog_pcr_pred *s, size_t *k)
{
    size_t n = 0;
    for (size_t j = 0; j < s->n; j++)
        if (!s->ev[j].inserted && claims(log, s->ev[j].event_index, NULL) == 1) {
            *k = j;
            n++;
        }
    return n == 1;
}

/* After the loader's entry changed: the kernel's (the old one) logged again. */
static int kernel_again(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                        struct kt_evlog_pcr_pred *s)
{
    size_t k;
    if (!single(log, s, &k) || s->ev[k].how != KT_PRED_CHANGED)
        return 0;
    struct kt_evlog_predicted x;
    memset(&x, 0, sizeof(x));
    x.inserted = true;
    x.how = KT_PRED_CHANGED;
    snprintf(x.variable, sizeof(x.variable), "%s", MOKLIST_RT);
    /* the logged event's digests: the same entry, measured again */
    const struct kt_evlog_event *e = &log->event[s->ev[k].event_index];
    for (size_t b = 0; b < log->n_banks; b++) {
        size_t len;
        const uint8_t *d = kt_evlog_event_digest(e, log->bank[b].alg, &len);
        if (d)
            memcpy(x.digest[b], d, len);
    }
    x.event_index = s->ev[s->n - 1].event_index; /* after the last PCR 7 event */
    for (size_t i = s->ev[k].event_index + 1; i < log->n_events; i++)
        if (kt_evlog_is_image(log->event[i].type))
            x.event_index = i; /* the last image: the kernel, verified through shim */
    kt_fmt(x.note, sizeof(x.note), "the kernel, verified as at the last boot by the entry "
           "the loader no longer uses: shim logs it for the kernel");
    (void)o;
    return kt_evlog_pred_insert(s, s->n, &x);
}

static bool active(const struct kt_evlog_predict_opts *o)
{
    return kt_evlog_has_images(o) && o->vars;
}

const struct kt_evlog_recomputer kt_evlog_rc_shim_authority = {
    7, NULL, "the certificates shim logs for the images it verifies", active, claims, recompute,
    kernel_again,
};
