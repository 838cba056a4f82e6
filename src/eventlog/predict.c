/* predict.c - PCR 7 after a change: the log's PCR 7 events, in their
 * order, recomputed from the new state where it is known, then replayed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/crypto.h"
#include "eventlog/esp_path.h"
#include "eventlog/eventlog.h"
#include "eventlog/predict_int.h"
#include "chain/chain_sbat.h"
#include "sbat/sbat.h"
#include "util/file.h"
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
    const struct kt_chain_entry *which;
    size_t index;
    kt_span found; /* owner GUID + data, as EFI_SIGNATURE_DATA */
};

static int find_entry(void *ctx, const struct kt_esl_entry *e)
{
    struct dbfind *f = ctx;
    uint8_t sha[32];
    if (f->index++ != f->which->index || f->found.p)
        return 0;
    if (e->owner + 16 != e->data.p || memcmp(e->owner, f->which->owner, 16) ||
        kt_digest(KT_HASH_SHA256, e->data.p, e->data.len, sha) < 0 ||
        memcmp(sha, f->which->data_sha256, 32))
        return 0;
    f->found = (kt_span){e->owner, 16 + e->data.len};
    return 0;
}

int kt_evlog_db_entry(const struct kt_efivars *vars, const struct kt_chain_entry *which,
                      kt_span *out)
{
    size_t len;
    const uint8_t *db = kt_efivar_data(&vars->var[KT_EFIVAR_DB], &len);
    struct dbfind f = {which, 0, {NULL, 0}};
    if (!db || strcmp(which->var, "db") ||
        kt_esl_foreach(db, len, find_entry, &f, NULL) < 0 || !f.found.p)
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
    if (kt_evlog_esp_file(o->esp, file, path, sizeof(path)) < 0) {
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
    kt_span found;
    if (kt_evlog_db_entry(o->vars, &l.db, &found) < 0) {
        keep(pr, "the db entry that verifies %s is not a certificate (%s): the logged authority kept",
             path, l.reason);
        return 0;
    }
    KT_TRY(recompute(log, e, v, found.p, found.len, nd, pr));
    kt_fmt(pr->note, sizeof(pr->note), "%s verified by %s", file, l.trusted_by);
    return 0;
}

/* The shim that measures SbatLevel: the boot application the log shows
 * last before event i, found on the ESP.  0 and path, or -ENOENT. */
static int shim_before(const struct kt_evlog *log, size_t i, const char *esp, char *path,
                       size_t cap)
{
    char dp[512], file[512];
    for (size_t j = i; esp && j-- > 0;)
        if (log->event[j].type == KT_EV_EFI_BOOT_SERVICES_APPLICATION)
            return kt_evlog_devpath(&log->event[j], dp, sizeof(dp), file, sizeof(file)) < 0 ||
                           !file[0] ? -ENOENT : kt_evlog_esp_file(esp, file, path, cap);
    return -ENOENT;
}

/* The SbatLevel shim leaves (the chain's rule, kt_chain_sbat_next: the
 * level given, SbatPolicy, secure mode, shim's .sbatlevel) measured in
 * place of the logged one; without the shim on the ESP, shim's keep-or-
 * replace rule (kt_sbat_level_preserve) against the logged level, which
 * is at least shim's automatic one. */
static int sbat_event(const struct kt_evlog *log, size_t i, const struct kt_evlog_var *v,
                      const struct kt_evlog_predict_opts *o, struct newdig *nd,
                      struct kt_evlog_predicted *pr)
{
    struct kt_sbat_level given = {0}, applied = {0};
    struct kt_error e = KT_ERROR_INIT;
    char path[4096], why[160] = "", *logged = NULL;
    struct kt_file f = {0};
    if (kt_sbat_level_parse(o->sbat_level, o->sbat_level_len, &given, &e) < 0) {
        keep(pr, "the new SbatLevel does not parse (%s): the logged event kept", e.what);
        return 0;
    }
    int rc = shim_before(log, i, o->esp, path, sizeof(path));
    if (rc == 0 && kt_file_open(path, &f, &e) == 0) {
        rc = kt_chain_sbat_next(o->vars, &given, f.data, f.len, &applied, pr->note,
                                sizeof(pr->note), &e);
        kt_file_close(&f);
        if (rc >= 0)
            rc = recompute(log, &log->event[i], v, applied.text + applied.payload_off,
                           applied.text_len - applied.payload_off, nd, pr);
        else
            keep(pr, "shim %s: %s: the logged event kept", path, e.what);
        kt_sbat_level_free(&applied);
        kt_sbat_level_free(&given);
        return rc == -ENOMEM ? rc : 0;
    }
    enum kt_sbat_policy policy = KT_SBAT_POLICY_DEFAULT;
    bool secure;
    kt_chain_sbat_state(o->vars, &policy, &secure, NULL, 0);
    if (policy == KT_SBAT_POLICY_LATEST || !secure) {
        keep(pr, "SbatPolicy %s: what shim sets depends on its own levels, and its file is not "
                 "on the ESP: the logged event kept", secure ? "latest" : "outside secure mode");
    } else if ((logged = strndup((const char *)v->data.p, v->data.len)) == NULL) {
        rc = -ENOMEM;
    } else if (kt_sbat_level_preserve(&given, logged, why, sizeof(why))) {
        rc = recompute(log, &log->event[i], v, given.text + given.payload_off,
                       given.text_len - given.payload_off, nd, pr);
        kt_fmt(pr->note, sizeof(pr->note), "SbatLevel %s is not older than the logged one%s%s: "
               "shim keeps it", given.stamp, why[0] ? ": " : "", why);
    } else {
        pr->how = KT_PRED_KEPT;
        kt_fmt(pr->note, sizeof(pr->note), "SbatLevel %s is older than the logged one: shim "
               "raises it to the logged level", given.stamp);
    }
    free(logged);
    kt_sbat_level_free(&given);
    return rc == -ENOMEM ? rc : 0;
}

/* shim's SbatLevel event with the level given (--sbat-level), else the one
 * the new variables hold: SbatLevel (what shim reads at the next boot), else
 * SbatLevelRT; neither: the logged one (what shim left in the variable). */
static int sbat_level(const struct kt_evlog *log, size_t i, const struct kt_evlog_var *v,
                      const struct kt_evlog_predict_opts *o, struct newdig *nd,
                      struct kt_evlog_predicted *pr)
{
    if (o->sbat_level)
        return sbat_event(log, i, v, o, nd, pr);
    size_t len = 0;
    const uint8_t *p = NULL;
    if (o->vars) {
        p = kt_efivar_data(&o->vars->var[KT_EFIVAR_SBAT_LEVEL], &len);
        if (!p || !len)
            p = kt_efivar_data(&o->vars->var[KT_EFIVAR_SBAT_LEVEL_RT], &len);
    }
    if (!p || !len) {
        /* SbatLevel is boot-services only: at the next boot it holds what
         * shim left at the last one, the logged payload */
        p = v->data.p;
        len = v->data.len;
    }
    struct kt_evlog_predict_opts with = *o;
    with.sbat_level = p;
    with.sbat_level_len = len;
    return sbat_event(log, i, v, &with, nd, pr);
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
        return sbat_level(log, i, &v, o, nd, pr);
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
