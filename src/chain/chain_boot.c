/* chain_boot.c - which program firmware starts from an ESP (UEFI 2.10
 * 3.1.1-3.1.2 and 3.5.1.1, as EDK2's BDS does it): BootNext first, then
 * BootOrder's active load options in order, then the removable-media path.
 * A load option is followed to its file path on the ESP (src/boot/devpath.c
 * decodes it, src/boot/esp.c finds it case-blind and never outside). */
#include <errno.h>
#include <string.h>

#include "boot/devpath.h"
#include "boot/esp.h"
#include "chain/chain.h"
#include "util/fmt.h"
#include "util/le.h"


/* Boot#### number's file on the ESP into out; active: LOAD_OPTION_ACTIVE
 * must be set and the category BOOT (EDK2's BootBootOptions skips the
 * rest; BootNext is started as it is).  A file path that may have been
 * cut to fit is never looked up (a prefix could name another file).
 * true when it is there. */
static bool option_file(const char *esp, const struct kt_efivars *vars, unsigned number,
                        bool active, struct kt_boot_first *out)
{
    size_t len;
    const uint8_t *p = kt_efivar_data(kt_efivars_boot(vars, number), &len);
    struct kt_load_option o;
    if (!p || kt_load_option_parse(p, len, &o) < 0 || !o.file[0] ||
        strlen(o.file) + 8 >= sizeof(o.file) ||
        (active && (!o.active || !o.boot_category)))
        return false;
    for (char *s = o.file; *s; s++)
        *s = *s == '\\' ? '/' : *s;
    if (kt_esp_file(esp, o.file, out->path, sizeof(out->path)) < 0)
        return false;
    out->number = (int)number;
    kt_fmt(out->file, sizeof(out->file), "%s%s", o.file[0] == '/' ? "" : "/", o.file);
    return true;
}

int kt_boot_first_stage(const char *esp, const struct kt_efivars *vars, struct kt_boot_first *out)
{
    memset(out, 0, sizeof(*out));
    size_t len;
    const uint8_t *p = vars ? kt_efivar_data(&vars->var[KT_EFIVAR_BOOT_NEXT], &len) : NULL;
    kt_le c;
    uint16_t n;
    kt_le_init(&c, p, p ? len : 0, NULL);
    /* BootNext: a UINT16 (EDK2's BdsEntry drops one of another size), tried
     * whatever its LOAD_OPTION_ACTIVE */
    if (p && len == 2 && kt_le_u16(&c, &n, "BootNext") == 0 && option_file(esp, vars, n, false, out)) {
        out->by = KT_BOOT_BY_NEXT;
        return 0;
    }
    p = vars ? kt_efivar_data(&vars->var[KT_EFIVAR_BOOT_ORDER], &len) : NULL;
    kt_le_init(&c, p, p ? len : 0, NULL);
    while (p && kt_le_u16(&c, &n, "BootOrder") == 0)
        if (option_file(esp, vars, n, true, out)) {
            out->by = KT_BOOT_BY_ORDER;
            return 0;
        }
    out->by = KT_BOOT_BY_REMOVABLE;
    out->number = -1;
    kt_fmt(out->file, sizeof(out->file), "/EFI/BOOT/BOOTX64.EFI");
    return kt_esp_file(esp, out->file, out->path, sizeof(out->path)) == 0 ? 0 : -ENOENT;
}

const char *kt_boot_by_name(enum kt_boot_by by)
{
    static const char *const names[] = {"bootnext", "bootorder", "removable"};
    return (unsigned)by < 3 ? names[by] : "?";
}
