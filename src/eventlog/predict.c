/* predict.c - PCR 7's recomputers (recompute.h): the Secure Boot variable
 * events with the new state's data, firmware's db authority with the db
 * entry that verifies the image after it, shim's SbatLevel with the level it
 * would enforce. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/esp.h"
#include "boot/vars.h"
#include "efivars/efivars.h"
#include "chain/chain_sbat.h"
#include "crypto/crypto.h"
#include "eventlog/eventlog.h"
#include "eventlog/recompute.h"
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
    if (!kt_evlog_next_boot_secure(o)) {
        pr->how = KT_PRED_REMOVED;
        kt_fmt(pr->note, sizeof(pr->note), "Secure Boot off at the next boot (no PK: setup "
               "mode): firmware verifies no image and logs no authority");
        return 0;
    }
    if (!kt_evlog_has_images(o) || !o->vars) {
        pr->how = KT_PRED_KEPT;
        pr->hint = KT_PRED_HINT_NO_ESP;
        snprintf(pr->note, sizeof(pr->note), "no ESP given: the logged authority kept");
        return 0;
    }
    size_t j = i + 1;
    while (j < log->n_events && !kt_evlog_is_image(log->event[j].type))
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
    if (kt_evlog_image_file(o, file, path, sizeof(path)) < 0) {
        keep(pr, "%s is not on the ESP %s: the logged authority kept", file,
             o->esp ? o->esp : "given");
        return 0;
    }
    struct kt_chain_link l;
    memset(&l, 0, sizeof(l));
    kt_evlog_firmware_link(o->vars, path, &l);
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
static int shim_before(const struct kt_evlog *log, size_t i, const struct kt_evlog_predict_opts *o,
                       char *path, size_t cap)
{
    char dp[512], file[512];
    for (size_t j = i; kt_evlog_has_images(o) && j-- > 0;)
        if (log->event[j].type == KT_EV_EFI_BOOT_SERVICES_APPLICATION)
            return kt_evlog_devpath(&log->event[j], dp, sizeof(dp), file, sizeof(file)) < 0 ||
                           !file[0] ? -ENOENT : kt_evlog_image_file(o, file, path, cap);
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
    int rc = shim_before(log, i, o, path, sizeof(path));
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

/* Does the log show a PK (non-empty) measured? */
static bool logged_pk(const struct kt_evlog *log)
{
    struct kt_evlog_var v;
    for (size_t i = 0; i < log->n_events; i++)
        if (log->event[i].pcr == 7 && log->event[i].type == KT_EV_EFI_VARIABLE_DRIVER_CONFIG &&
            kt_evlog_var_parse(&log->event[i], &v, NULL) == 0 && !strcmp(v.name, "PK"))
            return v.data.len > 0;
    return false;
}

/* The SecureBoot byte EDK2's variable driver sets at the next boot
 * (AuthVariableLibInitialize, 2022.11): 0 in setup mode; in user mode the
 * SecureBootEnable switch, which the log shows off as SecureBoot = 0 with
 * a PK measured; else 1. */
static uint8_t secure_boot_next(const struct kt_evlog *log, const struct kt_evlog_var *v,
                                const struct kt_evlog_predict_opts *o)
{
    if (!kt_evlog_next_boot_secure(o))
        return 0;
    return v->data.len == 1 && v->data.p[0] == 0 && logged_pk(log) ? 0 : 1;
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
    bool whole = kt_efivars_whole(o->vars);
    if (id == KT_EFIVAR_SECURE_BOOT && whole) {
        uint8_t sb = secure_boot_next(log, v, o);
        KT_TRY(recompute(log, e, v, &sb, 1, nd, pr));
        if (!sb)
            kt_fmt(pr->note, sizeof(pr->note), "%s", kt_evlog_next_boot_secure(o)
                   ? "SecureBoot 0: Secure Boot was off at the last boot with a PK"
                   : "no PK: setup mode, firmware sets SecureBoot to 0 at the next boot");
        return 0;
    }
    const struct kt_efivar *ev = &o->vars->var[id];
    if (ev->state == KT_EFIVAR_ABSENT && whole && kt_var_measured_absent(kt_var_info(id))) {
        KT_TRY(recompute(log, e, v, (const uint8_t *)"", 0, nd, pr));
        kt_fmt(pr->note, sizeof(pr->note), "%s does not exist in the new state: firmware "
               "measures it with no data", v->name);
        return 0;
    }
    if (ev->state == KT_EFIVAR_ABSENT && whole) {
        pr->how = KT_PRED_REMOVED;
        kt_fmt(pr->note, sizeof(pr->note), "%s does not exist in the new state: firmware "
               "measures it only when it exists", v->name);
        return 0;
    }
    if (ev->state != KT_EFIVAR_PRESENT) {
        keep(pr, "%s is %s in the new state: its logged data kept", v->name,
             ev->state == KT_EFIVAR_ABSENT ? "absent" : "unreadable");
        return 0;
    }
    size_t len;
    const uint8_t *d = kt_efivar_data(ev, &len);
    return recompute(log, e, v, d ? d : (const uint8_t *)"", len, nd, pr);
}

/* The digests recomputed into pr, in the banks the event has. */
static void put(const struct kt_evlog *log, size_t i, const struct newdig *nd,
                struct kt_evlog_predicted *pr)
{
    for (size_t b = 0; nd->set && b < log->n_banks; b++)
        if (log->bank[b].supported && kt_evlog_event_digest(&log->event[i], log->bank[b].alg, NULL))
            memcpy(pr->digest[b], nd->d[b], log->bank[b].size);
}

/* Is event i a variable event (type) naming name (NULL: any)?  1, 0, or
 * -EBADMSG for one that is no UEFI_VARIABLE_DATA. */
static int var_event(const struct kt_evlog *log, size_t i, uint32_t type, const char *name,
                     struct kt_evlog_var *v, struct kt_error *err)
{
    const struct kt_evlog_event *e = &log->event[i];
    if (e->type != type)
        return 0;
    KT_TRY(kt_evlog_var_parse(e, v, err));
    return !name || !strcmp(v->name, name);
}

enum pcr7_source { SB_VARIABLE, DB_AUTHORITY, SBAT_LEVEL };

/* Event i (of that type) recomputed from its source of truth. */
static int recompute_as(const struct kt_evlog *log, size_t i, uint32_t type, enum pcr7_source src,
                        const struct kt_evlog_predict_opts *o, struct kt_evlog_predicted *pr,
                        struct kt_error *err)
{
    const struct kt_evlog_event *e = &log->event[i];
    struct kt_evlog_var v;
    struct newdig nd = {0};
    KT_TRY(var_event(log, i, type, NULL, &v, err));
    int rc = src == SB_VARIABLE    ? variable(log, e, &v, o, &nd, pr)
             : src == DB_AUTHORITY ? db_authority(log, i, &v, o, &nd, pr)
                                   : sbat_level(log, i, &v, o, &nd, pr);
    if (rc == 0)
        put(log, i, &nd, pr);
    return rc;
}

static int claims_var(const struct kt_evlog *log, size_t i, struct kt_error *err)
{
    struct kt_evlog_var v;
    return var_event(log, i, KT_EV_EFI_VARIABLE_DRIVER_CONFIG, NULL, &v, err);
}

static int recompute_var(const struct kt_evlog *log, size_t i, const struct kt_evlog_predict_opts *o,
                         struct kt_evlog_predicted *pr, struct kt_error *err)
{
    return recompute_as(log, i, KT_EV_EFI_VARIABLE_DRIVER_CONFIG, SB_VARIABLE, o, pr, err);
}

/* An authority event that is no UEFI_VARIABLE_DATA fails here, whatever it names. */
static int claims_db(const struct kt_evlog *log, size_t i, struct kt_error *err)
{
    struct kt_evlog_var v;
    return var_event(log, i, KT_EV_EFI_VARIABLE_AUTHORITY, "db", &v, err);
}

static int recompute_db(const struct kt_evlog *log, size_t i, const struct kt_evlog_predict_opts *o,
                        struct kt_evlog_predicted *pr, struct kt_error *err)
{
    return recompute_as(log, i, KT_EV_EFI_VARIABLE_AUTHORITY, DB_AUTHORITY, o, pr, err);
}

static int claims_sbat(const struct kt_evlog *log, size_t i, struct kt_error *err)
{
    struct kt_evlog_var v;
    return var_event(log, i, KT_EV_EFI_VARIABLE_AUTHORITY, "SbatLevel", &v, err);
}

static int recompute_sbat(const struct kt_evlog *log, size_t i,
                          const struct kt_evlog_predict_opts *o, struct kt_evlog_predicted *pr,
                          struct kt_error *err)
{
    return recompute_as(log, i, KT_EV_EFI_VARIABLE_AUTHORITY, SBAT_LEVEL, o, pr, err);
}

/* dbt in the new state and none in the log: Tcg2Dxe (MeasureAllSecureVariables,
 * EDK2 2022.11) measures it when it exists, after dbx, before PCR 7's separator. */
static int dbt_insert(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                      struct kt_evlog_pcr_pred *s)
{
    size_t len, pos, dl;
    const struct kt_efivar *dbt = o->vars ? &o->vars->var[KT_EFIVAR_DBT] : NULL;
    const uint8_t *d = dbt && dbt->state == KT_EFIVAR_PRESENT ? kt_efivar_data(dbt, &len) : NULL;
    struct kt_evlog_var v;
    for (pos = 0; d && s && pos < s->n; pos++) {
        const struct kt_evlog_event *e = &log->event[s->ev[pos].event_index];
        if (s->ev[pos].inserted)
            continue;
        if (e->type == KT_EV_SEPARATOR)
            break;
        if (var_event(log, s->ev[pos].event_index, KT_EV_EFI_VARIABLE_DRIVER_CONFIG, "dbt", &v,
                      NULL) == 1)
            return 0; /* logged: recomputed in place */
    }
    if (!d || !s || pos == s->n)
        return 0;
    struct kt_evlog_predicted x;
    memset(&x, 0, sizeof(x));
    x.event_index = s->ev[pos].event_index;
    x.inserted = true;
    x.type = KT_EV_EFI_VARIABLE_DRIVER_CONFIG;
    x.how = KT_PRED_CHANGED;
    snprintf(x.variable, sizeof(x.variable), "dbt");
    for (size_t b = 0; b < log->n_banks; b++)
        if (log->bank[b].supported)
            KT_TRY(kt_evlog_var_digest(log->bank[b].alg, kt_var_vendor_guid(KT_VENDOR_IMAGE_DB),
                                       "dbt", d, len, x.digest[b], &dl));
    kt_fmt(x.note, sizeof(x.note), "dbt exists in the new state: firmware measures it after dbx");
    return kt_evlog_pred_insert(s, pos, &x);
}

#define PCR7_WHAT "each PCR 7 event recomputed where the new state is known"

const struct kt_evlog_recomputer kt_evlog_rc_sb_vars = {
    7, PCR7_WHAT, "the Secure Boot variables", NULL, claims_var, recompute_var, dbt_insert,
};
const struct kt_evlog_recomputer kt_evlog_rc_db_authority = {
    7, PCR7_WHAT, "the db entry that verifies each image", NULL, claims_db, recompute_db, NULL,
};
const struct kt_evlog_recomputer kt_evlog_rc_sbat_level = {
    7, PCR7_WHAT, "shim's SbatLevel", NULL, claims_sbat, recompute_sbat, NULL,
};
