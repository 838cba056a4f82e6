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
    kt_le c;
    uint16_t ch16;
    kt_le_init(&c, p, len, NULL);
    while (kt_le_u16(&c, &ch16, "character") == 0) {
        if (ch16 == 0) {
            out[o < cap ? o : cap - 1] = 0;
            return kt_le_offset(&c);
        }
        char ch = ch16 < 0x20 || ch16 > 0x7e ? '?' : (char)ch16;
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

/* ESP + path, each component matched case-insensitively (FAT) and looked
 * up inside the ESP (kt_root_resolve with the ESP as the root): the file
 * firmware would open on that volume, never one outside it, whatever a
 * link on it or ".." says. */
static bool resolve(const char *esp, const char *path, char *out)
{
    char cur[KT_AUDIT_PATH], rel[KT_AUDIT_PATH + 256], comp[256];
    struct stat st;
    if (kt_root_resolve(esp, "", cur, sizeof(cur), &st) < 0)
        return false;
    size_t base = strlen(esp);
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
                kt_fmt(rel, sizeof(rel), "%s/%s", cur + base, de->d_name);
                found = true;
                break;
            }
        closedir(d);
        if (!found || kt_root_resolve(esp, rel, cur, sizeof(cur), &st) < 0)
            return false;
    }
    kt_fmt(out, KT_AUDIT_PATH, "%s", cur);
    return S_ISREG(st.st_mode);
}

static bool same_file(const char *x, const char *y)
{
    struct stat a, b;
    return stat(x, &a) == 0 && stat(y, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Firmware's verdict on an entry's file: db vouches, dbx does not revoke
 * (the audited shim from the snapshot's bytes: not read again). */
static void fw_verdict(const struct kt_audit_snap *s, struct kt_audit_boot *b)
{
    struct kt_chain_link l;
    const struct kt_file *f = &s->file[KT_AUDIT_SHIM];
    if (b->audited && s->file_rc[KT_AUDIT_SHIM] == 0)
        b->verdict = kt_chain_firmware_buf(&s->vars, f->data, f->len, b->path, &l);
    else
        b->verdict = kt_chain_firmware(&s->vars, b->path, &l);
    kt_fmt(b->reason, sizeof(b->reason), "%s", l.reason);
    b->checked = true;
}

/* A u16 variable's value (after the attribute word), or -1. */
static int u16_var(const struct kt_efivar *v)
{
    size_t len;
    const uint8_t *p = kt_efivar_data(v, &len);
    kt_le c;
    uint16_t n;
    kt_le_init(&c, p, len, NULL);
    return p && kt_le_u16(&c, &n, "value") == 0 ? n : -1;
}

void kt_audit_boot_entries(struct kt_audit *a, const struct kt_audit_snap *snap)
{
    const struct kt_efivars *s = &snap->vars;
    a->boot_current = -1;
    if (!a->found[KT_AUDIT_EFIVARS])
        return;
    a->boot_current = u16_var(&s->var[KT_EFIVAR_BOOT_CURRENT]);
    size_t len;
    const uint8_t *order = kt_efivar_data(&s->var[KT_EFIVAR_BOOT_ORDER], &len);
    if (!order)
        return;
    a->have_boot_order = true;
    kt_le c;
    uint16_t number;
    kt_le_init(&c, order, len, NULL);
    while (a->n_boot < KT_AUDIT_MAX_BOOT && kt_le_u16(&c, &number, "BootOrder") == 0) {
        struct kt_audit_boot *b = &a->boot[a->n_boot++];
        memset(b, 0, sizeof(*b));
        b->number = number;
        char name[16];
        kt_fmt(name, sizeof(name), "Boot%04X", b->number);
        size_t olen;
        const uint8_t *opt = kt_efivar_data(kt_efivars_boot(s, number), &olen);
        if (!opt) {
            kt_fmt(b->reason, sizeof(b->reason), "no %s variable", name);
            continue;
        }
        b->present = true;
        if (kt_audit_load_option(opt, olen, b) < 0) {
            b->malformed = true;
            kt_fmt(b->reason, sizeof(b->reason), "%s: not an EFI_LOAD_OPTION", name);
        }
        if (b->malformed || !b->file[0] || !a->found[KT_AUDIT_ESP])
            continue;
        b->on_esp = resolve(a->path[KT_AUDIT_ESP], b->file, b->path);
        if (!b->on_esp) {
            kt_fmt(b->reason, sizeof(b->reason), "%s is not on the ESP audited", b->file);
            continue;
        }
        b->audited = a->links[KT_AUDIT_SHIM].present && same_file(b->path, a->links[KT_AUDIT_SHIM].path);
        fw_verdict(snap, b);
    }
}
