/* decode.c - event data: UEFI_VARIABLE_DATA and the device path of a
 * UEFI_IMAGE_LOAD_EVENT (decoded by src/boot/devpath.c), read through the
 * kt_le cursor. */
#include <stdio.h>
#include <string.h>

#include "boot/devpath.h"
#include "eventlog/eventlog.h"
#include "ktrust/esl.h"
#include "util/le.h"

/* Event data as a cursor whose offsets are absolute in the log. */
static void data_cursor(const struct kt_evlog_event *e, kt_le *c, struct kt_error *err)
{
    c->p = e->data.p;
    c->len = e->data.len;
    c->base = e->data.p - e->data_offset;
    c->err = err;
}

/* UTF-16LE code units as ASCII ('?' for the rest) into out. */
static void utf16_ascii(const uint8_t *p, size_t chars, char *out, size_t cap)
{
    size_t o = 0;
    kt_le c;
    uint16_t u;
    kt_le_init(&c, p, 2 * chars, NULL);
    while (o + 1 < cap && kt_le_u16(&c, &u, NULL) == 0 && u != 0)
        out[o++] = u < 0x80 ? (char)u : '?';
    out[o] = 0;
}

int kt_evlog_var_parse(const struct kt_evlog_event *e, struct kt_evlog_var *v,
                       struct kt_error *err)
{
    kt_le c;
    const uint8_t *g, *name;
    uint64_t nlen, dlen;
    memset(v, 0, sizeof(*v));
    data_cursor(e, &c, err);
    KT_TRY(kt_le_bytes(&c, 16, &g, "UEFI_VARIABLE_DATA GUID"));
    memcpy(v->guid, g, 16);
    KT_TRY(kt_le_u64(&c, &nlen, "UnicodeNameLength"));
    size_t at = kt_le_offset(&c);
    KT_TRY(kt_le_u64(&c, &dlen, "VariableDataLength"));
    if (nlen > kt_le_left(&c) / 2)
        return kt_fail(err, -EBADMSG, at - 8,
                       "event %zu: UnicodeNameLength %llu runs past the event data", e->index,
                       (unsigned long long)nlen);
    KT_TRY(kt_le_bytes(&c, (size_t)nlen * 2, &name, "UnicodeName"));
    if (dlen > kt_le_left(&c))
        return kt_fail(err, -EBADMSG, at,
                       "event %zu: VariableDataLength %llu runs past the event data (%zu left)",
                       e->index, (unsigned long long)dlen, kt_le_left(&c));
    v->name_chars = (size_t)nlen;
    utf16_ascii(name, v->name_chars, v->name, sizeof(v->name));
    v->data.len = (size_t)dlen;
    return kt_le_bytes(&c, v->data.len, &v->data.p, "VariableData");
}

int kt_evlog_devpath(const struct kt_evlog_event *e, char *buf, size_t cap, char *file,
                     size_t file_cap)
{
    kt_le c, dp;
    uint64_t dplen;
    if (cap)
        buf[0] = 0;
    if (file && file_cap)
        file[0] = 0;
    data_cursor(e, &c, NULL);
    if (kt_le_skip(&c, 24, NULL) < 0 || kt_le_u64(&c, &dplen, NULL) < 0 ||
        dplen > kt_le_left(&c) || kt_le_sub(&c, (size_t)dplen, &dp, NULL) < 0)
        return -EBADMSG;
    return kt_devpath_decode(&dp, buf, cap, file, file_cap); /* src/boot/devpath.c */
}
