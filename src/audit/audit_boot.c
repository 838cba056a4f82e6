/* audit_boot.c - the firmware's boot entries (BootOrder, Boot####,
 * BootCurrent): each EFI_LOAD_OPTION's description and file path (the
 * media file-path node of its device path, UEFI 2.10 10.3.5.4), the file on
 * the ESP, and firmware's verdict on it (db and dbx).  The full chain is
 * audited for the entry that starts the audited shim. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "audit/audit.h"
#include "util/file.h"
#include "util/le.h"

/* UCS-2 (len bytes) to ASCII-safe UTF-8 into out; stops at NUL.  Returns
 * the bytes consumed including the NUL, or 0 when there is none. */
static size_t ucs2(const uint8_t *p, size_t len, char *out, size_t cap, bool slashes)
{
    size_t o = 0;
    for (size_t i = 0; i + 1 < len; i += 2) {
        uint16_t c = kt_le16(p + i);
        if (c == 0) {
            out[o < cap ? o : cap - 1] = 0;
            return i + 2;
        }
        char ch = c < 0x20 || c > 0x7e ? '?' : (char)c;
        if (slashes && ch == '\\')
            ch = '/';
        if (o + 1 < cap)
            out[o++] = ch;
    }
    out[o < cap ? o : cap - 1] = 0;
    return 0;
}

int kt_audit_load_option(const uint8_t *p, size_t len, struct kt_audit_boot *b)
{
    kt_le c, list;
    uint32_t attributes;
    uint16_t list_len;
    kt_le_init(&c, p, len, NULL);
    if (kt_le_u32(&c, &attributes, "Attributes") < 0 ||
        kt_le_u16(&c, &list_len, "FilePathListLength") < 0)
        return -EBADMSG;
    b->active = (attributes & 1) != 0; /* LOAD_OPTION_ACTIVE */
    size_t d = ucs2(c.p, kt_le_left(&c), b->description, sizeof(b->description), false);
    if (!d || kt_le_skip(&c, d, "Description") < 0 ||
        kt_le_sub(&c, list_len, &list, "FilePathList") < 0)
        return -EBADMSG;
    while (kt_le_left(&list) >= 4) { /* device path nodes: type, subtype, length */
        uint8_t type, sub;
        uint16_t node_len;
        kt_le node;
        kt_le_u8(&list, &type, "Type");
        kt_le_u8(&list, &sub, "SubType");
        kt_le_u16(&list, &node_len, "Length");
        if (node_len < 4 || kt_le_sub(&list, node_len - 4u, &node, "node") < 0)
            return -EBADMSG;
        if (type == 0x7f && sub == 0xff) /* end of the device path */
            break;
        if (type == 0x04 && sub == 0x04 && !b->file[0]) /* media, file path */
            ucs2(node.p, kt_le_left(&node), b->file, sizeof(b->file), true);
    }
    return 0;
}

/* ESP + path, each component matched case-insensitively (FAT). */
static bool resolve(const char *esp, const char *path, char *out)
{
    char cur[KT_AUDIT_PATH], comp[256];
    kt_audit_fmt(cur, sizeof(cur), "%s", esp);
    const char *s = path;
    while (*s) {
        while (*s == '/')
            s++;
        size_t n = strcspn(s, "/");
        if (!n)
            break;
        if (n >= sizeof(comp))
            return false;
        memcpy(comp, s, n);
        comp[n] = 0;
        s += n;
        if (!strcmp(comp, ".") || !strcmp(comp, ".."))
            return false; /* firmware paths do not climb out of the ESP, nor do we */
        DIR *d = opendir(cur);
        if (!d)
            return false;
        struct dirent *de;
        bool found = false;
        while ((de = readdir(d)) != NULL)
            if (!strcasecmp(de->d_name, comp)) {
                size_t l = strlen(cur);
                kt_audit_fmt(cur + l, sizeof(cur) - l, "/%s", de->d_name);
                found = true;
                break;
            }
        closedir(d);
        if (!found)
            return false;
    }
    struct stat st;
    kt_audit_fmt(out, KT_AUDIT_PATH, "%s", cur);
    return stat(cur, &st) == 0 && S_ISREG(st.st_mode);
}

static bool same_file(const char *x, const char *y)
{
    struct stat a, b;
    return stat(x, &a) == 0 && stat(y, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Firmware's verdict on an entry's file: db vouches, dbx does not revoke. */
static void fw_verdict(struct kt_audit *a, struct kt_audit_boot *b)
{
    static const struct {
        const char *name;
        int (*fn)(struct kt_chain *, const uint8_t *, size_t, const char *, struct kt_error *);
    } vars[] = {{"db", kt_chain_add_db}, {"dbx", kt_chain_add_dbx}};
    struct kt_chain *ch;
    if (kt_chain_new(&ch) < 0)
        return;
    char buf[KT_AUDIT_PATH + 64];
    for (size_t i = 0; i < 2; i++) {
        const char *p = kt_audit_find_var(a->path[KT_AUDIT_EFIVARS], vars[i].name, buf, sizeof(buf));
        struct kt_file f = {0};
        struct kt_error e = KT_ERROR_INIT;
        if (p && kt_file_open(p, &f, &e) == 0 && f.len > 4)
            vars[i].fn(ch, f.data, f.len, p, &e);
        kt_file_close(&f);
    }
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    struct kt_chain_link l;
    if (kt_file_open(b->path, &f, &e) == 0) {
        kt_chain_shim(ch, f.data, f.len, b->path, &l); /* a shim's keys go nowhere here */
        kt_file_close(&f);
        b->verdict = l.verdict;
        kt_audit_fmt(b->reason, sizeof(b->reason), "%s", l.reason);
    } else {
        b->verdict = e.code ? e.code : -ENOENT;
        kt_audit_fmt(b->reason, sizeof(b->reason), "%s", e.what);
    }
    b->checked = true;
    kt_chain_free(ch);
}

void kt_audit_boot_entries(struct kt_audit *a)
{
    if (!a->found[KT_AUDIT_EFIVARS])
        return;
    const char *dir = a->path[KT_AUDIT_EFIVARS];
    char buf[KT_AUDIT_PATH + 64];
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    const char *p = kt_audit_find_var(dir, "BootCurrent", buf, sizeof(buf));
    a->boot_current = -1;
    if (p && kt_file_open(p, &f, &e) == 0 && f.len >= 6)
        a->boot_current = kt_le16(f.data + 4);
    kt_file_close(&f);
    p = kt_audit_find_var(dir, "BootOrder", buf, sizeof(buf));
    if (!p || kt_file_open(p, &f, &e) < 0)
        return;
    a->have_boot_order = true;
    for (size_t i = 4; i + 2 <= f.len && a->n_boot < KT_AUDIT_MAX_BOOT; i += 2) {
        struct kt_audit_boot *b = &a->boot[a->n_boot++];
        memset(b, 0, sizeof(*b));
        b->number = kt_le16(f.data + i);
        char name[16];
        kt_audit_fmt(name, sizeof(name), "Boot%04X", b->number);
        struct kt_file g = {0};
        const char *q = kt_audit_find_var(dir, name, buf, sizeof(buf));
        if (!q || kt_file_open(q, &g, &e) < 0) {
            kt_audit_fmt(b->reason, sizeof(b->reason), "no %s variable", name);
            continue;
        }
        b->present = true;
        if (g.len < 4 || kt_audit_load_option(g.data + 4, g.len - 4, b) < 0) {
            b->malformed = true;
            kt_audit_fmt(b->reason, sizeof(b->reason), "%s: not an EFI_LOAD_OPTION", name);
        }
        kt_file_close(&g);
        if (b->malformed || !b->file[0] || !a->found[KT_AUDIT_ESP])
            continue;
        b->on_esp = resolve(a->path[KT_AUDIT_ESP], b->file, b->path);
        if (!b->on_esp) {
            kt_audit_fmt(b->reason, sizeof(b->reason), "%s is not on the ESP audited", b->file);
            continue;
        }
        b->audited = a->links[KT_AUDIT_SHIM].present && same_file(b->path, a->links[KT_AUDIT_SHIM].path);
        fw_verdict(a, b);
    }
    kt_file_close(&f);
}
