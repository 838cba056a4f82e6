/* replay.c - every PCR of every bank from the log, and the digest of a
 * UEFI_VARIABLE_DATA (what a variable event carries); the helpers every
 * recomputer shares (recompute.h: a digest set, an event inserted, the mode
 * of the next boot). */
#include <stdlib.h>
#include <string.h>

#include "efivars/efivars.h"
#include "eventlog/eventlog.h"
#include "eventlog/recompute.h"

int kt_evlog_extend(enum kt_hash h, uint8_t *pcr, size_t size, const uint8_t *d)
{
    uint8_t buf[2 * KT_EVLOG_MAX_DIGEST];
    memcpy(buf, pcr, size);
    memcpy(buf + size, d, size);
    return kt_digest(h, buf, 2 * size, pcr);
}

int kt_evlog_replay(const struct kt_evlog *log, struct kt_evlog_pcrs *out)
{
    memset(out, 0, sizeof(*out));
    out->n_banks = log->n_banks;
    for (size_t b = 0; b < log->n_banks; b++) {
        out->bank[b].alg = log->bank[b].alg;
        out->bank[b].size = log->bank[b].size;
        out->bank[b].supported =
            log->bank[b].supported && kt_hash_available(kt_evlog_hash(log->bank[b].alg));
        if (log->have_locality)
            out->bank[b].pcr[0][log->bank[b].size - 1] = log->startup_locality;
    }
    for (size_t i = 0; i < log->n_events; i++) {
        const struct kt_evlog_event *e = &log->event[i];
        if (e->type == KT_EV_NO_ACTION)
            continue;
        for (size_t b = 0; b < out->n_banks; b++) {
            size_t len;
            const uint8_t *d = kt_evlog_event_digest(e, out->bank[b].alg, &len);
            if (!d)
                continue; /* no digest for this bank: the PCR is not extended */
            out->bank[b].used[e->pcr] = true;
            if (!out->bank[b].supported)
                continue;
            int rc = kt_evlog_extend(kt_evlog_hash(out->bank[b].alg), out->bank[b].pcr[e->pcr], len, d);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

int kt_evlog_var_digest(uint16_t alg, const uint8_t guid[16], const char *name,
                        const uint8_t *data, size_t data_len, uint8_t *out, size_t *len)
{
    enum kt_hash h = kt_evlog_hash(alg);
    if (h == KT_HASH_NONE || !kt_hash_available(h))
        return -ENOPKG;
    size_t nchars = strlen(name);
    uint8_t head[32 + 2 * 64];
    if (nchars > 64)
        return -EINVAL;
    memcpy(head, guid, 16);
    for (int i = 0; i < 8; i++) {
        head[16 + i] = (uint8_t)((uint64_t)nchars >> (8 * i));
        head[24 + i] = (uint8_t)((uint64_t)data_len >> (8 * i));
    }
    for (size_t i = 0; i < nchars; i++) {
        head[32 + 2 * i] = (uint8_t)name[i];
        head[33 + 2 * i] = 0;
    }
    struct kt_digester *dg;
    uint8_t res[1][KT_HASH_MAX_SIZE];
    int rc = kt_digester_new(&dg, &h, 1);
    if (rc < 0)
        return rc;
    kt_digester_update(dg, head, 32 + 2 * nchars);
    kt_digester_update(dg, data, data_len);
    rc = kt_digester_final(dg, res);
    kt_digester_free(dg);
    if (rc < 0)
        return rc;
    *len = kt_hash_size(h);
    memcpy(out, res[0], *len);
    return 0;
}

/* A recomputer's digests for one event (every supported bank): the event is
 * "changed" when any differs from the logged one, else "recomputed". */
void kt_evlog_pred_set(const struct kt_evlog *log, struct kt_evlog_predicted *pr,
                       const uint8_t d[KT_EVLOG_MAX_BANKS][KT_EVLOG_MAX_DIGEST])
{
    bool same = true;
    for (size_t b = 0; b < log->n_banks; b++) {
        if (!log->bank[b].supported)
            continue;
        same &= !memcmp(pr->digest[b], d[b], log->bank[b].size);
        memcpy(pr->digest[b], d[b], log->bank[b].size);
    }
    pr->how = same ? KT_PRED_RECOMPUTED : KT_PRED_CHANGED;
}

int kt_evlog_pred_insert(struct kt_evlog_pcr_pred *s, size_t pos, const struct kt_evlog_predicted *x)
{
    struct kt_evlog_predicted *ne = realloc(s->ev, (s->n + 1) * sizeof(*ne));
    if (!ne)
        return -ENOMEM;
    s->ev = ne;
    memmove(&s->ev[pos + 1], &s->ev[pos], (s->n - pos) * sizeof(*ne));
    s->ev[pos] = *x;
    s->n++;
    return 0;
}

bool kt_evlog_next_boot_secure(const struct kt_evlog_predict_opts *o)
{
    return !o->vars || !kt_efivars_next_setup_mode(o->vars);
}
