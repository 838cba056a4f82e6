/* parse.c - the TCG event log: the header event (SHA-1 format), a Spec ID
 * Event03 naming the banks, then TCG_PCR_EVENT2 events (crypto-agile) or
 * more SHA-1 format events.  Read through the kt_le cursor; events point
 * into the input. */
#include <stdlib.h>
#include <string.h>

#include "eventlog/eventlog.h"
#include "util/le.h"

static const char spec_id_sig[16] = "Spec ID Event03";
static const char locality_sig[16] = "StartupLocality";

static int push_event(kt_le *c, struct kt_evlog *log, size_t *cap, struct kt_evlog_event **out)
{
    if (log->n_events == KT_EVLOG_MAX_EVENTS) /* memory bounded whatever the input (#32) */
        return kt_fail(c->err, -E2BIG, kt_le_offset(c),
                       "more than %d events (no firmware log has so many)", KT_EVLOG_MAX_EVENTS);
    if (log->n_events == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        struct kt_evlog_event *ne = realloc(log->event, nc * sizeof(*ne));
        if (!ne)
            return -ENOMEM;
        log->event = ne;
        *cap = nc;
    }
    *out = &log->event[log->n_events];
    memset(*out, 0, sizeof(**out));
    (*out)->index = log->n_events++;
    return 0;
}

static int read_data(kt_le *c, struct kt_evlog_event *e)
{
    uint32_t size;
    KT_TRY(kt_le_u32(c, &size, "event data size"));
    e->data_offset = kt_le_offset(c);
    if (size > kt_le_left(c))
        return kt_fail(c->err, -EBADMSG, e->data_offset - 4,
                       "event %zu: data size %u runs past the end (%zu bytes left)", e->index,
                       size, kt_le_left(c));
    e->data.len = size;
    return kt_le_bytes(c, size, &e->data.p, "event data");
}

static int check_pcr(kt_le *c, const struct kt_evlog_event *e)
{
    if (e->pcr < KT_EVLOG_PCRS || e->type == KT_EV_NO_ACTION)
        return 0;
    return kt_fail(c->err, -EBADMSG, e->offset, "event %zu: PCR index %u out of range (0-23)",
                   e->index, e->pcr);
}

/* TCG_PCR_EVENT: pcr, type, SHA-1 digest, size, data. */
static int sha1_event(kt_le *c, struct kt_evlog *log, size_t *cap)
{
    struct kt_evlog_event *e;
    KT_TRY(push_event(c, log, cap, &e));
    e->offset = kt_le_offset(c);
    KT_TRY(kt_le_u32(c, &e->pcr, "PCR index"));
    KT_TRY(kt_le_u32(c, &e->type, "event type"));
    e->n_digests = 1;
    e->digest[0].alg = KT_TPM_ALG_SHA1;
    e->digest[0].len = 20;
    KT_TRY(kt_le_bytes(c, 20, &e->digest[0].p, "SHA-1 digest"));
    KT_TRY(read_data(c, e));
    return check_pcr(c, e);
}

static const struct kt_evlog_bank *bank_of(const struct kt_evlog *log, uint16_t alg)
{
    for (size_t i = 0; i < log->n_banks; i++)
        if (log->bank[i].alg == alg)
            return &log->bank[i];
    return NULL;
}

/* TCG_PCR_EVENT2: pcr, type, count, {alg, digest}..., size, data. */
static int agile_event(kt_le *c, struct kt_evlog *log, size_t *cap)
{
    struct kt_evlog_event *e;
    uint32_t count;
    KT_TRY(push_event(c, log, cap, &e));
    e->offset = kt_le_offset(c);
    KT_TRY(kt_le_u32(c, &e->pcr, "PCR index"));
    KT_TRY(kt_le_u32(c, &e->type, "event type"));
    size_t at = kt_le_offset(c);
    KT_TRY(kt_le_u32(c, &count, "digest count"));
    if (count > log->n_banks)
        return kt_fail(c->err, -EBADMSG, at,
                       "event %zu: %u digests, but the Spec ID event lists %zu banks", e->index,
                       count, log->n_banks);
    for (uint32_t i = 0; i < count; i++) {
        uint16_t alg;
        at = kt_le_offset(c);
        KT_TRY(kt_le_u16(c, &alg, "digest algorithm"));
        const struct kt_evlog_bank *b = bank_of(log, alg);
        if (!b)
            return kt_fail(c->err, -EBADMSG, at,
                           "event %zu: digest algorithm 0x%04x not listed by the Spec ID event",
                           e->index, alg);
        for (uint32_t j = 0; j < i; j++)
            if (e->digest[j].alg == alg)
                return kt_fail(c->err, -EBADMSG, at,
                               "event %zu: two digests of algorithm 0x%04x", e->index, alg);
        e->digest[i].alg = alg;
        e->digest[i].len = b->size;
        KT_TRY(kt_le_bytes(c, b->size, &e->digest[i].p, "digest"));
    }
    e->n_digests = count;
    KT_TRY(read_data(c, e));
    return check_pcr(c, e);
}

static bool alg_supported(uint16_t alg, uint16_t size)
{
    switch (alg) {
    case KT_TPM_ALG_SHA1: return size == 20;
    case KT_TPM_ALG_SHA256: return size == 32;
    case KT_TPM_ALG_SHA384: return size == 48;
    case KT_TPM_ALG_SHA512: return size == 64;
    case KT_TPM_ALG_SM3_256: return size == 32;
    default: return false;
    }
}

/* TCG_EfiSpecIDEventStruct, in the header event's data. */
static int spec_id(const struct kt_evlog_event *h, struct kt_evlog *log, struct kt_error *err,
                   const uint8_t *base)
{
    kt_le c = {h->data.p, h->data.len, base, err};
    uint32_t platform_class, n;
    KT_TRY(kt_le_skip(&c, 16, "Spec ID signature"));
    KT_TRY(kt_le_u32(&c, &platform_class, "platform class"));
    KT_TRY(kt_le_u8(&c, &log->spec_minor, "spec version minor"));
    KT_TRY(kt_le_u8(&c, &log->spec_major, "spec version major"));
    KT_TRY(kt_le_u8(&c, &log->spec_errata, "spec errata"));
    KT_TRY(kt_le_u8(&c, &log->uintn_size, "uintn size"));
    size_t at = kt_le_offset(&c);
    KT_TRY(kt_le_u32(&c, &n, "number of algorithms"));
    if (n == 0 || n > KT_EVLOG_MAX_BANKS)
        return kt_fail(err, -EBADMSG, at, "Spec ID event: %u algorithms (1-%d expected)", n,
                       KT_EVLOG_MAX_BANKS);
    for (uint32_t i = 0; i < n; i++) {
        struct kt_evlog_bank *b = &log->bank[i];
        at = kt_le_offset(&c);
        KT_TRY(kt_le_u16(&c, &b->alg, "algorithm id"));
        KT_TRY(kt_le_u16(&c, &b->size, "digest size"));
        if (b->size == 0 || b->size > KT_EVLOG_MAX_DIGEST)
            return kt_fail(err, -EBADMSG, at, "Spec ID event: algorithm 0x%04x digest size %u",
                           b->alg, b->size);
        for (uint32_t j = 0; j < i; j++)
            if (log->bank[j].alg == b->alg)
                return kt_fail(err, -EBADMSG, at, "Spec ID event: algorithm 0x%04x twice",
                               b->alg);
        b->supported = alg_supported(b->alg, b->size);
    }
    log->n_banks = n;
    uint8_t vendor;
    KT_TRY(kt_le_u8(&c, &vendor, "vendor info size"));
    return kt_le_skip(&c, vendor, "vendor info");
}

static void note_locality(struct kt_evlog *log, const struct kt_evlog_event *e)
{
    if (e->type == KT_EV_NO_ACTION && e->data.len >= 17 &&
        !memcmp(e->data.p, locality_sig, 16) && !log->have_locality) {
        log->have_locality = true;
        log->startup_locality = e->data.p[16];
    }
}

int kt_evlog_parse(const uint8_t *buf, size_t len, struct kt_evlog *log, struct kt_error *err)
{
    memset(log, 0, sizeof(*log));
    size_t cap = 0;
    kt_le c;
    kt_le_init(&c, buf, len, err);
    if (len == 0)
        return kt_fail(err, -EBADMSG, 0, "empty event log");
    KT_TRY(sha1_event(&c, log, &cap));
    const struct kt_evlog_event *h = &log->event[0];
    if (h->type == KT_EV_NO_ACTION && h->data.len >= 16 && !memcmp(h->data.p, spec_id_sig, 16)) {
        log->crypto_agile = true;
        KT_TRY(spec_id(h, log, err, buf));
    } else {
        log->n_banks = 1;
        log->bank[0] = (struct kt_evlog_bank){KT_TPM_ALG_SHA1, 20, true};
        note_locality(log, h);
    }
    while (kt_le_left(&c)) {
        KT_TRY(log->crypto_agile ? agile_event(&c, log, &cap) : sha1_event(&c, log, &cap));
        note_locality(log, &log->event[log->n_events - 1]);
    }
    return 0;
}

void kt_evlog_free(struct kt_evlog *log)
{
    if (!log)
        return;
    free(log->event);
    log->event = NULL;
    log->n_events = 0;
}

const uint8_t *kt_evlog_event_digest(const struct kt_evlog_event *e, uint16_t alg, size_t *len)
{
    for (size_t i = 0; i < e->n_digests; i++)
        if (e->digest[i].alg == alg) {
            if (len)
                *len = e->digest[i].len;
            return e->digest[i].p;
        }
    return NULL;
}
