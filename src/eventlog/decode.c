/* decode.c - event data: UEFI_VARIABLE_DATA and the device path of a
 * UEFI_IMAGE_LOAD_EVENT, read through the kt_le cursor. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
    for (size_t i = 0; i < chars && o + 1 < cap; i++) {
        uint16_t u = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
        if (u == 0)
            break;
        out[o++] = u < 0x80 ? (char)u : '?';
    }
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

struct out {
    char *buf;
    size_t cap, n;
};

static void ap(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ap(struct out *o, const char *fmt, ...)
{
    if (o->n + 1 >= o->cap)
        return;
    va_list a;
    va_start(a, fmt);
    int w = vsnprintf(o->buf + o->n, o->cap - o->n, fmt, a);
    va_end(a);
    if (w > 0)
        o->n = o->n + (size_t)w < o->cap ? o->n + (size_t)w : o->cap - 1;
}

static void ap_hex(struct out *o, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ap(o, "%02x", p[i]);
}

/* One node's text.  body: the node after its 4-byte header. */
static void node_text(struct out *o, uint8_t type, uint8_t sub, const uint8_t *b, size_t n,
                      char *file, size_t file_cap)
{
    char g[37];
    if (type == 1 && sub == 1 && n >= 2) {
        ap(o, "Pci(0x%x,0x%x)", b[1], b[0]);
    } else if (type == 2 && sub == 1 && n >= 8) {
        uint32_t hid = kt_le32(b), uid = kt_le32(b + 4);
        if (hid == 0x0a0341d0 || hid == 0x0a0841d0)
            ap(o, "%s(0x%x)", hid == 0x0a0341d0 ? "PciRoot" : "PcieRoot", uid);
        else
            ap(o, "Acpi(0x%08x,0x%x)", hid, uid);
    } else if (type == 3 && sub == 2 && n >= 4) {
        ap(o, "Scsi(0x%x,0x%x)", kt_le16(b), kt_le16(b + 2));
    } else if (type == 3 && sub == 5 && n >= 2) {
        ap(o, "USB(0x%x,0x%x)", b[0], b[1]);
    } else if (type == 3 && sub == 0x12 && n >= 6) {
        ap(o, "Sata(0x%x,0x%x,0x%x)", kt_le16(b), kt_le16(b + 2), kt_le16(b + 4));
    } else if (type == 3 && sub == 0x17 && n >= 12) {
        ap(o, "NVMe(0x%x,", kt_le32(b));
        ap_hex(o, b + 4, 8);
        ap(o, ")");
    } else if (type == 4 && sub == 1 && n >= 38) {
        uint32_t part = kt_le32(b);
        uint64_t start = kt_le64(b + 4), size = kt_le64(b + 12);
        if (b[36] == 2 && b[37] == 2)
            ap(o, "HD(%u,GPT,%s,0x%llx,0x%llx)", part, kt_guid_str(b + 20, g),
               (unsigned long long)start, (unsigned long long)size);
        else
            ap(o, "HD(%u,MBR,0x%08x,0x%llx,0x%llx)", part, kt_le32(b + 20),
               (unsigned long long)start, (unsigned long long)size);
    } else if (type == 4 && sub == 4) {
        char path[512];
        utf16_ascii(b, n / 2, path, sizeof(path));
        ap(o, "%s", path);
        if (file)
            snprintf(file, file_cap, "%s", path);
    } else if (type == 4 && (sub == 6 || sub == 7) && n >= 16) {
        ap(o, "%s(%s)", sub == 6 ? "FvFile" : "Fv", kt_guid_str(b, g));
    } else {
        ap(o, "Path(%u,%u,", type, sub);
        ap_hex(o, b, n);
        ap(o, ")");
    }
}

int kt_evlog_devpath(const struct kt_evlog_event *e, char *buf, size_t cap, char *file,
                     size_t file_cap)
{
    kt_le c, dp;
    uint64_t dplen;
    struct out o = {buf, cap, 0};
    if (cap)
        buf[0] = 0;
    if (file && file_cap)
        file[0] = 0;
    data_cursor(e, &c, NULL);
    if (kt_le_skip(&c, 24, NULL) < 0 || kt_le_u64(&c, &dplen, NULL) < 0 ||
        dplen > kt_le_left(&c) || kt_le_sub(&c, (size_t)dplen, &dp, NULL) < 0)
        return -EBADMSG;
    bool first = true;
    while (kt_le_left(&dp) >= 4) {
        uint8_t type, sub;
        uint16_t len;
        const uint8_t *body;
        kt_le_u8(&dp, &type, NULL);
        kt_le_u8(&dp, &sub, NULL);
        kt_le_u16(&dp, &len, NULL);
        if (len < 4 || kt_le_bytes(&dp, len - 4u, &body, NULL) < 0)
            return -EBADMSG;
        if (type == 0x7f && sub == 0xff)
            break;
        if (type == 0x7f) {
            ap(&o, ",");
            first = true;
            continue;
        }
        if (!first)
            ap(&o, "/");
        first = false;
        node_text(&o, type, sub, body, len - 4u, file, file_cap);
    }
    return 0;
}
