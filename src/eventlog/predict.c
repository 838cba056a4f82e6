/* predict.c - PCR 7 after a change: the log's PCR 7 events, in their
 * order, recomputed from the new state where it is known, then replayed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/esp.h"
#include "eventlog/eventlog.h"
#include "eventlog/predict_int.h"
#include "ktrust/chain.h"
#include "ktrust/esl.h"
#include "ktrust/x509.h"
#include "util/fmt.h"

struct newdig {
    bool set;
    uint8_t d[KT_EVLOG_MAX_BANKS][KT_EVLOG_MAX_DIGEST];
};

/* The digests of UEFI_VARIABLE_DATA {guid, name, data} in every bank;
 * how: RECOMPUTED when they equal the logged ones, else CHANGED. */
static int recompute(const struct kt_evlog *log, const struct kt_evlog_event *e,
                     const struct kt_evlog_var *v, const uint8_t *data, size_t len,
                     struct newdig *nd, struct kt_evlog_predicted *pr)
{
    bool same = true;
    for (size_t b = 0; b < log->n_banks; b++) {
        size_t dl, ll;
        if (!log->bank[b].supported)
            continue;
        int rc = kt_evlog_var_digest(log->bank[b].alg, v->guid, v->name, data, len, nd->d[b], &dl);
        if (rc < 0)
            return rc;
        const uint8_t *old = kt_evlog_event_digest(e, log->bank[b].alg, &ll);
        if (!old || ll != dl || memcmp(old, nd->d[b], dl))
            same = false;
    }
    nd->set = true;
    pr->how = same ? KT_PRED_RECOMPUTED : KT_PRED_CHANGED;
    return 0;
}

static void keep(struct kt_evlog_predicted *pr, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void keep(struct kt_evlog_predicted *pr, const char *fmt, ...)
{
    va_list a;
    va_start(a, fmt);
    pr->how = KT_PRED_KEPT_UNKNOWN;
    vsnprintf(pr->note, sizeof(pr->note), fmt, a);
    va_end(a);
}

struct dbfind {
    const char *description;
    kt_span found; /* owner GUID + DER, as EFI_SIGNATURE_DATA */
};

static int find_entry(void *ctx, const struct kt_esl_entry *e)
{
    struct dbfind *f = ctx;
    struct kt_x509 *c = NULL;
    if (e->type != KT_ESL_X509 || kt_x509_parse(e->data.p, e->data.len, &c, NULL) < 0)
        return 0;
    bool hit = !strcmp(kt_x509_description(c), f->description);
    kt_x509_free(c);
    if (hit && e->owner + 16 == e->data.p) {
        f->found = (kt_span){e->owner, 16 + e->data.len};
        return 1;
    }
    return 0;
}

int kt_evlog_db_entry(const struct kt_efivars *vars, const char *description, kt_span *out)
{
    size_t len;
    const uint8_t *db = kt_efivar_data(&vars->var[KT_EFIVAR_DB], &len);
    struct dbfind f = {description, {NULL, 0}};
    if (!db || !description[0] || kt_esl_foreach(db, len, find_entry, &f, NULL) < 0 || !f.found.p)
        return -ENOENT;
    *out = f.found;
    return 0;
}

/* A firmware db authority: which db entry of the new state verifies the
 * image the log shows after it. */
static int db_authority(const struct kt_evlog *log, size_t i, const struct kt_evlog_var *v,
                        const struct kt_evlog_predict_opts *o, struct newdig *nd,
                        struct kt_evlog_predicted *pr)
{
    const struct kt_evlog_event *e = &log->event[i];
    if (!o->esp || !o->vars) {
        pr->how = KT_PRED_KEPT;
        snprintf(pr->note, sizeof(pr->note), "no --esp: the logged authority kept");
        return 0;
    }
    size_t j = i + 1;
    while (j < log->n_events && log->event[j].type != KT_EV_EFI_BOOT_SERVICES_APPLICATION &&
           log->event[j].type != KT_EV_EFI_BOOT_SERVICES_DRIVER &&
           log->event[j].type != KT_EV_EFI_RUNTIME_SERVICES_DRIVER)
        j++;
    char dp[512], file[512], path[4096];
    if (j < log->n_events && log->event[j].type != KT_EV_EFI_BOOT_SERVICES_APPLICATION) {
        keep(pr, "it authorized a driver or option ROM (not on the ESP): the logged authority kept");
        return 0;
    }
    if (j == log->n_events || kt_evlog_devpath(&log->event[j], dp, sizeof(dp), file,
                                               sizeof(file)) < 0 || !file[0]) {
        keep(pr, "no image file after it in the log: the logged authority kept");
        return 0;
    }
    if (kt_esp_resolve(o->esp, file, path, sizeof(path), NULL) < 0) {
        keep(pr, "%s is not on the ESP %s: the logged authority kept", file, o->esp);
        return 0;
    }
    struct kt_chain_link l;
    memset(&l, 0, sizeof(l));
    kt_chain_firmware(o->vars, path, &l);
    if (l.verdict != 0) {
        keep(pr, "firmware would refuse %s after the change (%s): boot stops there", path,
             l.reason);
        return 0;
    }
    struct dbfind f = {l.trusted_by, {NULL, 0}};
    if (kt_evlog_db_entry(o->vars, l.trusted_by, &f.found) < 0) {
        keep(pr, "the db entry that verifies %s is not a certificate (%s): the logged authority kept",
             path, l.reason);
        return 0;
    }
    KT_TRY(recompute(log, e, v, f.found.p, f.found.len, nd, pr));
    kt_fmt(pr->note, sizeof(pr->note), "%s verified by %s", file, l.trusted_by);
    return 0;
}

/* The stamp of an SbatLevel payload ("sbat,1,STAMP\n..."), or "". */
static void stamp_of(const uint8_t *p, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    out[0] = 0;
    if (n < 7 || memcmp(p, "sbat,1,", 7))
        return;
    for (size_t i = 7; i < n && k + 1 < cap && p[i] >= '0' && p[i] <= '9'; i++)
        out[k++] = (char)p[i];
    out[k] = 0;
}

/* shim's SbatLevel event: shim measures SbatLevel after raising it to its
 * own level; a preset level newer than the logged one stays. */
static int sbat_event(const struct kt_evlog *log, const struct kt_evlog_event *e,
                      const struct kt_evlog_var *v, const struct kt_evlog_predict_opts *o,
                      struct newdig *nd, struct kt_evlog_predicted *pr)
{
    char now[24], next[24];
    stamp_of(v->data.p, v->data.len, now, sizeof(now));
    stamp_of(o->sbat_level, o->sbat_level_len, next, sizeof(next));
    if (!now[0] || !next[0]) {
        keep(pr, "SbatLevel stamps unreadable (logged '%s', new '%s'): the logged event kept", now,
             next);
        return 0;
    }
    if (strlen(next) == strlen(now) && strcmp(next, now) > 0) {
        KT_TRY(recompute(log, e, v, o->sbat_level, o->sbat_level_len, nd, pr));
        snprintf(pr->note, sizeof(pr->note), "SbatLevel %s is newer than the logged %s: shim keeps it",
                 next, now);
    } else {
        pr->how = KT_PRED_KEPT;
        snprintf(pr->note, sizeof(pr->note),
                 "SbatLevel %s is not newer than the logged %s: shim raises it to the logged level",
                 next, now);
    }
    return 0;
}

/* shim's SbatLevel event with the level given (--sbat-level), else the one
 * the new variables hold: SbatLevel (what shim reads at the next boot), else
 * SbatLevelRT; neither: the logged event kept, and said. */
static int sbat_level(const struct kt_evlog *log, const struct kt_evlog_event *e,
                      const struct kt_evlog_var *v, const struct kt_evlog_predict_opts *o,
                      struct newdig *nd, struct kt_evlog_predicted *pr)
{
    if (o->sbat_level)
        return sbat_event(log, e, v, o, nd, pr);
    size_t len = 0;
    const uint8_t *p = NULL;
    if (o->vars) {
        p = kt_efivar_data(&o->vars->var[KT_EFIVAR_SBAT_LEVEL], &len);
        if (!p || !len)
            p = kt_efivar_data(&o->vars->var[KT_EFIVAR_SBAT_LEVEL_RT], &len);
    }
    if (!p || !len) {
        keep(pr, "no SbatLevel in the new state and none given (--sbat-level): the logged event "
                 "kept");
        return 0;
    }
    struct kt_evlog_predict_opts with = *o;
    with.sbat_level = p;
    with.sbat_level_len = len;
    return sbat_event(log, e, v, &with, nd, pr);
}

static int variable(const struct kt_evlog *log, const struct kt_evlog_event *e,
                    const struct kt_evlog_var *v, const struct kt_evlog_predict_opts *o,
                    struct newdig *nd, struct kt_evlog_predicted *pr)
{
    int id = kt_evlog_sb_var(v->name);
    if (id < 0 || !o->vars) {
        pr->how = KT_PRED_KEPT;
        return 0;
    }
    const struct kt_efivar *ev = &o->vars->var[id];
    if (ev->state != KT_EFIVAR_PRESENT) {
        keep(pr, "%s is %s in the new state: its logged data kept", v->name,
             ev->state == KT_EFIVAR_ABSENT ? "absent" : "unreadable");
        return 0;
    }
    size_t len;
    const uint8_t *d = kt_efivar_data(ev, &len);
    return recompute(log, e, v, d ? d : (const uint8_t *)"", len, nd, pr);
}

static int predict_one(const struct kt_evlog *log, size_t i,
                       const struct kt_evlog_predict_opts *o, struct newdig *nd,
                       struct kt_evlog_predicted *pr, struct kt_error *err)
{
    const struct kt_evlog_event *e = &log->event[i];
    struct kt_evlog_var v;
    pr->event_index = i;
    pr->how = KT_PRED_KEPT;
    if (e->type != KT_EV_EFI_VARIABLE_DRIVER_CONFIG && e->type != KT_EV_EFI_VARIABLE_AUTHORITY)
        return 0;
    KT_TRY(kt_evlog_var_parse(e, &v, err));
    if (e->type == KT_EV_EFI_VARIABLE_DRIVER_CONFIG)
        return variable(log, e, &v, o, nd, pr);
    if (!strcmp(v.name, "db"))
        return db_authority(log, i, &v, o, nd, pr);
    if (!strcmp(v.name, "SbatLevel"))
        return sbat_level(log, e, &v, o, nd, pr);
    return 0;
}

/* Each PCR 7 event's predicted digest in every bank: the new one where it
 * was recomputed, else the logged one. */
static void fill_digests(const struct kt_evlog *log, const struct newdig *nd,
                         struct kt_evlog_prediction *p)
{
    for (size_t k = 0; k < p->n; k++) {
        const struct kt_evlog_event *e = &log->event[p->ev[k].event_index];
        for (size_t b = 0; b < log->n_banks; b++) {
            size_t len;
            const uint8_t *d = kt_evlog_event_digest(e, log->bank[b].alg, &len);
            if (!d)
                continue;
            if (nd[k].set && log->bank[b].supported)
                d = nd[k].d[b];
            memcpy(p->ev[k].digest[b], d, len);
        }
    }
}

bool kt_evlog_pcr_changes(const struct kt_evlog *log, const struct kt_evlog_prediction *p,
                          unsigned pcr)
{
    for (size_t b = 0; b < log->n_banks; b++)
        if (memcmp(p->after.bank[b].pcr[pcr], p->now.bank[b].pcr[pcr], p->now.bank[b].size))
            return true;
    return false;
}

int kt_evlog_replay_pcr7(const struct kt_evlog *log, struct kt_evlog_prediction *p)
{
    p->pcr7_changes = false;
    for (size_t b = 0; b < log->n_banks; b++)
        memset(p->after.bank[b].pcr[7], 0, sizeof(p->after.bank[b].pcr[7]));
    for (size_t k = 0; k < p->n; k++) {
        const struct kt_evlog_event *e = &log->event[p->ev[k].event_index];
        if (!p->ev[k].inserted && e->type == KT_EV_NO_ACTION)
            continue;
        for (size_t b = 0; b < log->n_banks; b++) {
            size_t len = log->bank[b].size;
            if (!p->after.bank[b].supported ||
                (!p->ev[k].inserted && !kt_evlog_event_digest(e, log->bank[b].alg, NULL)))
                continue;
            KT_TRY(kt_evlog_extend(kt_evlog_hash(log->bank[b].alg), p->after.bank[b].pcr[7],
                                   len, p->ev[k].digest[b]));
        }
    }
    p->pcr7_changes = kt_evlog_pcr_changes(log, p, 7);
    return 0;
}

int kt_evlog_predict(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                     struct kt_evlog_prediction *p, struct kt_error *err)
{
    memset(p, 0, sizeof(*p));
    KT_TRY(kt_evlog_replay(log, &p->now));
    size_t n = 0;
    for (size_t i = 0; i < log->n_events; i++)
        n += log->event[i].pcr == 7 && log->event[i].type != KT_EV_NO_ACTION;
    p->ev = calloc(n ? n : 1, sizeof(*p->ev));
    struct newdig *nd = calloc(n ? n : 1, sizeof(*nd));
    if (!p->ev || !nd) {
        free(nd);
        return -ENOMEM;
    }
    int rc = 0;
    for (size_t i = 0; i < log->n_events && rc == 0; i++)
        if (log->event[i].pcr == 7 && log->event[i].type != KT_EV_NO_ACTION)
            rc = predict_one(log, i, o, &nd[p->n], &p->ev[p->n], err), p->n++;
    if (rc == 0) {
        p->after = p->now;
        fill_digests(log, nd, p);
        if (o->esp && o->vars)
            rc = kt_evlog_predict_new_authorities(log, o, p);
    }
    if (rc == 0)
        rc = kt_evlog_replay_pcr7(log, p);
    if (rc == 0 && o->esp)
        rc = kt_evlog_predict_pcr4(log, o->esp, p);
    if (rc == 0 && o->vars)
        rc = kt_evlog_predict_pcr14(log, o->vars, p);
    free(nd);
    return rc;
}

void kt_evlog_prediction_free(struct kt_evlog_prediction *p)
{
    if (!p)
        return;
    free(p->ev);
    free(p->ev4);
    free(p->ev14);
    p->ev = p->ev4 = p->ev14 = NULL;
    p->n = p->n4 = p->n14 = 0;
}
