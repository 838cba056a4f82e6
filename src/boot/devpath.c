/* devpath.c - device paths as text and the file they name, and
 * EFI_LOAD_OPTION, read through the kt_le cursor. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "boot/devpath.h"
#include "ktrust/esl.h"

struct out {
    char *buf;
    size_t cap, n;
};

static void ap(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ap(struct out *o, const char *fmt, ...)
{
    if (!o->buf || o->n + 1 >= o->cap)
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

/* UTF-16LE code units of c up to a NUL or its end, as ASCII into out
 * (printable: 0x20..0x7e kept, else every unit under 0x80; '?' for the
 * rest).  Returns true when a NUL ended it (consumed). */
static bool utf16(kt_le *c, struct out *o, bool printable)
{
    uint16_t u;
    while (kt_le_u16(c, &u, NULL) == 0) {
        if (u == 0)
            return true;
        bool keep = printable ? u >= 0x20 && u <= 0x7e : u < 0x80;
        ap(o, "%c", keep ? (char)u : '?');
    }
    return false;
}

/* An ACPI node: the PCI root bridges by name, else the HID and UID. */
static void acpi_text(struct out *o, kt_le *b)
{
    uint32_t hid, uid;
    kt_le_u32(b, &hid, NULL);
    kt_le_u32(b, &uid, NULL);
    if (hid == 0x0a0341d0 || hid == 0x0a0841d0)
        ap(o, "%s(0x%x)", hid == 0x0a0341d0 ? "PciRoot" : "PcieRoot", uid);
    else
        ap(o, "Acpi(0x%08x,0x%x)", hid, uid);
}

/* A hard-drive media node: partition number, start, size, signature. */
static void hd_text(struct out *o, kt_le *b)
{
    uint32_t part, mbr;
    uint64_t start, size;
    const uint8_t *sig;
    uint8_t fmt, type;
    char g[37];
    kt_le_u32(b, &part, NULL);
    kt_le_u64(b, &start, NULL);
    kt_le_u64(b, &size, NULL);
    kt_le_bytes(b, 16, &sig, NULL);
    kt_le_u8(b, &fmt, NULL);
    kt_le_u8(b, &type, NULL);
    if (fmt == 2 && type == 2) {
        ap(o, "HD(%u,GPT,%s,0x%llx,0x%llx)", part, kt_guid_str(sig, g),
           (unsigned long long)start, (unsigned long long)size);
    } else {
        kt_le s;
        kt_le_init(&s, sig, 4, NULL);
        kt_le_u32(&s, &mbr, NULL);
        ap(o, "HD(%u,MBR,0x%08x,0x%llx,0x%llx)", part, mbr, (unsigned long long)start,
           (unsigned long long)size);
    }
}

/* One node's text; b: the node after its 4-byte header (n bytes). */
static void node_text(struct out *o, uint8_t type, uint8_t sub, kt_le *b)
{
    size_t n = kt_le_left(b);
    uint8_t x, y;
    uint16_t h, i, j;
    uint32_t w;
    char g[37];
    if (type == 1 && sub == 1 && n >= 2) {
        kt_le_u8(b, &x, NULL); /* function, then device */
        kt_le_u8(b, &y, NULL);
        ap(o, "Pci(0x%x,0x%x)", y, x);
    } else if (type == 2 && sub == 1 && n >= 8) {
        acpi_text(o, b);
    } else if (type == 3 && sub == 2 && n >= 4) {
        kt_le_u16(b, &h, NULL);
        kt_le_u16(b, &i, NULL);
        ap(o, "Scsi(0x%x,0x%x)", h, i);
    } else if (type == 3 && sub == 5 && n >= 2) {
        kt_le_u8(b, &x, NULL);
        kt_le_u8(b, &y, NULL);
        ap(o, "USB(0x%x,0x%x)", x, y);
    } else if (type == 3 && sub == 0x12 && n >= 6) {
        kt_le_u16(b, &h, NULL);
        kt_le_u16(b, &i, NULL);
        kt_le_u16(b, &j, NULL);
        ap(o, "Sata(0x%x,0x%x,0x%x)", h, i, j);
    } else if (type == 3 && sub == 0x17 && n >= 12) {
        kt_le_u32(b, &w, NULL);
        ap(o, "NVMe(0x%x,", w);
        ap_hex(o, b->p, 8);
        ap(o, ")");
    } else if (type == 4 && sub == 1 && n >= 38) {
        hd_text(o, b);
    } else if (type == 4 && sub == 4) {
        utf16(b, o, false);
    } else if (type == 4 && (sub == 6 || sub == 7) && n >= 16) {
        ap(o, "%s(%s)", sub == 6 ? "FvFile" : "Fv", kt_guid_str(b->p, g));
    } else {
        ap(o, "Path(%u,%u,", type, sub);
        ap_hex(o, b->p, n);
        ap(o, ")");
    }
}

/* A file-path node's string joined to the file so far with one '\'. */
static void file_part(struct out *f, kt_le b)
{
    const uint8_t *p = b.p;
    bool lead = kt_le_left(&b) >= 2 && (p[0] == '\\' || p[0] == '/') && p[1] == 0;
    if (f->n && f->buf[f->n - 1] != '\\' && !lead)
        ap(f, "\\");
    utf16(&b, f, false);
}

int kt_devpath_decode(kt_le *dp, char *text, size_t text_cap, char *file, size_t file_cap)
{
    struct out o = {text, text_cap, 0}, f = {file, file_cap, 0};
    if (text && text_cap)
        text[0] = 0;
    if (file && file_cap)
        file[0] = 0;
    bool first = true, first_instance = true;
    while (kt_le_left(dp) >= 4) {
        uint8_t type, sub;
        uint16_t len;
        kt_le body;
        kt_le_u8(dp, &type, NULL);
        kt_le_u8(dp, &sub, NULL);
        kt_le_u16(dp, &len, NULL);
        if (len < 4 || kt_le_sub(dp, len - 4u, &body, NULL) < 0)
            return -EBADMSG;
        if (type == 0x7f && sub == 0xff)
            break;
        if (type == 0x7f) { /* the end of an instance */
            ap(&o, ",");
            first = true;
            first_instance = false;
            continue;
        }
        if (!first)
            ap(&o, "/");
        first = false;
        if (type == 4 && sub == 4 && first_instance)
            file_part(&f, body);
        node_text(&o, type, sub, &body);
    }
    return 0;
}

int kt_load_option_parse(const uint8_t *p, size_t len, struct kt_load_option *o)
{
    kt_le c, list;
    uint16_t list_len;
    memset(o, 0, sizeof(*o));
    kt_le_init(&c, p, len, NULL);
    if (kt_le_u32(&c, &o->attributes, "Attributes") < 0 ||
        kt_le_u16(&c, &list_len, "FilePathListLength") < 0)
        return -EBADMSG;
    o->active = (o->attributes & 1) != 0; /* LOAD_OPTION_ACTIVE */
    o->boot_category = (o->attributes & 0x1F00u) == 0; /* UEFI 2.10 3.1.3 LOAD_OPTION_CATEGORY */
    struct out d = {o->description, sizeof(o->description), 0};
    if (!utf16(&c, &d, true) || kt_le_sub(&c, list_len, &list, "FilePathList") < 0)
        return -EBADMSG;
    return kt_devpath_decode(&list, NULL, 0, o->file, sizeof(o->file));
}
