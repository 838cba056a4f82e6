/* predict_insert.c - firmware measures each db entry that authorizes an
 * image once per boot (the first time).  After a change an image the log
 * shows without an authority event of its own (its entry was logged before
 * it, for an option ROM say) may be verified by another entry, which
 * firmware then logs just before it: insert that event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/esp.h"
#include "boot/vars.h"
#include "eventlog/eventlog.h"
#include "eventlog/recompute.h"
#include "ktrust/chain.h"
#include "util/fmt.h"

/* Has the image at i an authority event of its own (since the image before it)? */
static bool has_authority(const struct kt_evlog *log, size_t i)
{
    while (i-- > 0) {
        if (log->event[i].type == KT_EV_EFI_VARIABLE_AUTHORITY)
            return true;
        if (kt_evlog_is_image(log->event[i].type))
            return false;
    }
    return false;
}

/* Is the first computable bank's digest d that of a db authority event before pos? */
static bool logged_before(const struct kt_evlog *log, const struct kt_evlog_pcr_pred *p,
                          size_t pos, size_t b, const uint8_t *d)
{
    for (size_t k = 0; k < pos; k++) {
        const struct kt_evlog_event *e = &log->event[p->ev[k].event_index];
        struct kt_evlog_var v;
        if (!p->ev[k].inserted && (e->type != KT_EV_EFI_VARIABLE_AUTHORITY ||
                                   kt_evlog_var_parse(e, &v, NULL) < 0 || strcmp(v.name, "db")))
            continue;
        if (!memcmp(p->ev[k].digest[b], d, log->bank[b].size))
            return true;
    }
    return false;
}

static int one(const struct kt_evlog *log, size_t i, const struct kt_evlog_predict_opts *o,
               struct kt_evlog_pcr_pred *p)
{
    char dp[512], file[512], path[4096];
    if (has_authority(log, i) || kt_evlog_devpath(&log->event[i], dp, sizeof(dp), file,
                                                  sizeof(file)) < 0 || !file[0] ||
        kt_evlog_image_file(o, file, path, sizeof(path)) < 0)
        return 0;
    struct kt_chain_link l;
    memset(&l, 0, sizeof(l));
    kt_span entry;
    if (kt_evlog_firmware_link(o->vars, path, &l) != 0 || kt_evlog_db_entry(o->vars, &l.db, &entry) < 0)
        return 0;
    struct kt_evlog_predicted x;
    memset(&x, 0, sizeof(x));
    x.event_index = i;
    x.inserted = true;
    x.how = KT_PRED_CHANGED;
    snprintf(x.variable, sizeof(x.variable), "db");
    size_t first = log->n_banks;
    for (size_t b = 0; b < log->n_banks; b++) {
        size_t len;
        if (!log->bank[b].supported)
            continue;
        KT_TRY(kt_evlog_var_digest(log->bank[b].alg, kt_var_vendor_guid(KT_VENDOR_IMAGE_DB), "db", entry.p, entry.len,
                                   x.digest[b], &len));
        if (first == log->n_banks)
            first = b;
    }
    size_t pos = 0;
    while (pos < p->n && p->ev[pos].event_index < i)
        pos++;
    if (first == log->n_banks || logged_before(log, p, pos, first, x.digest[first]))
        return 0;
    kt_fmt(x.note, sizeof(x.note), "firmware would log the db entry that verifies %s: %s", file,
           l.trusted_by);
    return kt_evlog_pred_insert(p, pos, &x);
}

/* In setup mode firmware verifies nothing and logs no authority. */
static bool active(const struct kt_evlog_predict_opts *o)
{
    return kt_evlog_has_images(o) && o->vars && kt_evlog_next_boot_secure(o);
}

static int insert_all(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                      struct kt_evlog_pcr_pred *s)
{
    for (size_t i = 0; i < log->n_events; i++)
        if (log->event[i].type == KT_EV_EFI_BOOT_SERVICES_APPLICATION)
            KT_TRY(one(log, i, o, s));
    return 0;
}

const struct kt_evlog_recomputer kt_evlog_rc_db_insert = {
    7, NULL, "the db entries firmware would log", active, NULL, NULL, insert_all,
};
