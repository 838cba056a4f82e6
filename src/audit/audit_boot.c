/* audit_boot.c - the firmware's boot entries (BootOrder, Boot####,
 * BootCurrent): each EFI_LOAD_OPTION's description and file path (the
 * media file-path node of its device path, UEFI 2.10 10.3.5.4), the file on
 * the ESP, and firmware's verdict on it (db and dbx).  The full chain is
 * audited for the entry that starts the audited shim. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/audit.h"
#include "boot/devpath.h"
#include "boot/esp.h"
#include "util/file.h"
#include "util/le.h"

/* A Boot#### variable's EFI_LOAD_OPTION (src/boot/devpath.c), its file
 * printable and '/'-separated. */
int kt_audit_load_option(const uint8_t *p, size_t len, struct kt_audit_boot *b)
{
    struct kt_load_option o;
    int rc = kt_load_option_parse(p, len, &o); /* what was read before a fault too */
    b->active = o.active;
    kt_fmt(b->description, sizeof(b->description), "%s", o.description);
    for (char *s = o.file; *s; s++)
        *s = *s == '\\' ? '/' : *s < 0x20 || *s > 0x7e ? '?' : *s;
    kt_fmt(b->file, sizeof(b->file), "%s", o.file);
    return rc;
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
        b->on_esp = kt_esp_file(a->path[KT_AUDIT_ESP], b->file, b->path, sizeof(b->path)) == 0;
        if (!b->on_esp) {
            b->path[0] = 0;
            kt_fmt(b->reason, sizeof(b->reason), "%s is not on the ESP audited", b->file);
            continue;
        }
        b->audited = a->links[KT_AUDIT_SHIM].present && same_file(b->path, a->links[KT_AUDIT_SHIM].path);
        fw_verdict(snap, b);
    }
}
