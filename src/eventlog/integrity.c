/* integrity.c - the log's own integrity: for the event types whose digest
 * is defined over the event data (TCG PC Client Platform Firmware Profile
 * 10.4; what EDK2's Tcg2Dxe and shim hash, what tpm2_eventlog checks), each
 * bank's digest recomputed from the data.  An event whose data no longer
 * hashes to its digests was altered after it was measured: the replay (over
 * the digests) still matches the TPM, but what the data says is not what
 * was measured. */
#include <stdlib.h>
#include <string.h>

#include "eventlog/eventlog.h"

/* Which rule an event type follows. */
enum rule { NONE, DATA, VAR_BOOT, ZERO };

static enum rule rule_of(uint32_t type)
{
    switch (type) {
    case KT_EV_SEPARATOR:                  /* the 4 bytes: H(0) or H(0xFFFFFFFF) */
    case KT_EV_ACTION:                     /* the string */
    case KT_EV_EFI_ACTION:
    case KT_EV_EFI_VARIABLE_DRIVER_CONFIG: /* the whole UEFI_VARIABLE_DATA */
    case KT_EV_EFI_VARIABLE_AUTHORITY:
        return DATA;
    case KT_EV_EFI_VARIABLE_BOOT:          /* EDK2: VariableData only; the spec: all */
    case KT_EV_EFI_VARIABLE_BOOT2:
        return VAR_BOOT;
    case KT_EV_NO_ACTION:                  /* extends nothing: zero digests */
        return ZERO;
    default:
        return NONE;
    }
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* Does digest d (len bytes, bank alg) match event e's data under rule r?
 * *calc gets the digest the rule expects. */
static int matches(const struct kt_evlog_event *e, enum rule r, uint16_t alg, const uint8_t *d,
                   size_t len, uint8_t *calc, bool *ok)
{
    *ok = true;
    if (r == ZERO) {
        memset(calc, 0, len);
        *ok = all_zero(d, len);
        return 0;
    }
    enum kt_hash h = kt_evlog_hash(alg);
    if (h == KT_HASH_NONE || !kt_hash_available(h) || kt_hash_size(h) != len)
        return 0; /* a bank ktrust does not compute: not judged */
    int rc = kt_digest(h, e->data.p, e->data.len, calc);
    if (rc < 0)
        return rc;
    if (!memcmp(calc, d, len))
        return 0;
    if (r == VAR_BOOT) {
        struct kt_evlog_var v;
        struct kt_error err = KT_ERROR_INIT;
        uint8_t alt[KT_EVLOG_MAX_DIGEST];
        if (kt_evlog_var_parse(e, &v, &err) == 0 &&
            kt_digest(h, v.data.p, v.data.len, alt) == 0 && !memcmp(alt, d, len))
            return 0;
    }
    *ok = false;
    return 0;
}

int kt_evlog_event_check(const struct kt_evlog *log, size_t i, struct kt_evlog_mismatch *m)
{
    const struct kt_evlog_event *e = &log->event[i];
    enum rule r = rule_of(e->type);
    if (r == NONE)
        return 0;
    for (size_t k = 0; k < e->n_digests; k++) {
        const struct kt_evlog_digest *d = &e->digest[k];
        bool ok;
        uint8_t calc[KT_EVLOG_MAX_DIGEST];
        if (d->len > KT_EVLOG_MAX_DIGEST)
            continue;
        int rc = matches(e, r, d->alg, d->p, d->len, calc, &ok);
        if (rc < 0)
            return rc;
        if (ok)
            continue;
        memset(m, 0, sizeof(*m));
        m->event_index = e->index;
        m->offset = e->offset;
        m->digest_offset = e->data_offset - (size_t)(e->data.p - d->p);
        m->pcr = e->pcr;
        m->type = e->type;
        m->alg = d->alg;
        m->zero_rule = r == ZERO;
        m->len = d->len;
        memcpy(m->logged, d->p, d->len);
        memcpy(m->expected, calc, d->len);
        return 1;
    }
    return 0;
}

int kt_evlog_check_digests(const struct kt_evlog *log, struct kt_evlog_mismatch **out,
                           size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    for (size_t i = 0; i < log->n_events; i++) {
        struct kt_evlog_mismatch m;
        int rc = kt_evlog_event_check(log, i, &m);
        if (rc < 0) {
            free(*out);
            *out = NULL;
            *n = 0;
            return rc;
        }
        if (!rc)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 4;
            struct kt_evlog_mismatch *p = realloc(*out, cap * sizeof(*p));
            if (!p) {
                free(*out);
                *out = NULL;
                *n = 0;
                return -ENOMEM;
            }
            *out = p;
        }
        (*out)[(*n)++] = m;
    }
    return 0;
}
