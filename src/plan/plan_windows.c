/* plan_windows.c - dual boot: a Windows boot manager on the ESP
 * (EFI/Microsoft/Boot/bootmgfw.efi, found through src/boot's ESP lookup)
 * judged by firmware's db and dbx in each state, as shim is; a step that
 * would stop one that boots is held back, with the order that keeps it
 * booting (Windows installs its boot manager signed by Windows UEFI CA
 * 2023 only once db holds that CA and Windows has booted). */
#include <stdio.h>
#include <string.h>

#include "boot/esp.h"
#include "chain/chain.h"
#include "plan/plan_kek.h"
#include "plan/plan_windows.h"
#include "util/fmt.h"

#define BOOTMGFW "EFI/Microsoft/Boot/bootmgfw.efi"

void kt_plan_windows_find(struct kt_plan *p, const char *esp)
{
    p->windows[0] = 0;
    if (esp && kt_esp_file(esp, BOOTMGFW, p->windows, sizeof(p->windows)) < 0)
        p->windows[0] = 0;
}

void kt_plan_windows_judge(const struct kt_plan *p, const struct kt_efivars *s,
                           struct kt_plan_state *st)
{
    st->windows_found = p->windows[0] != 0;
    if (!st->windows_found)
        return;
    struct kt_chain_link l;
    st->windows_verdict = kt_chain_firmware_app(s, p->windows, &l);
    kt_fmt(st->windows_reason, sizeof(st->windows_reason), "%s", l.reason);
}

bool kt_plan_windows_holds(struct kt_plan *p, const struct kt_efivars *s,
                           const struct kt_efivars *next, struct kt_plan_file *f)
{
    if (!p->windows[0])
        return false;
    struct kt_chain_link now, after;
    if (kt_chain_firmware_app(s, p->windows, &now) != 0 || kt_chain_firmware_app(next, p->windows, &after) == 0)
        return false;
    f->held = true;
    p->n_held++;
    const char *name = strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path;
    bool db2023 = kt_plan_var_holds(s, KT_EFIVAR_DB, KT_MS_CA_WINDOWS, 2023);
    kt_fmt(f->reason, sizeof(f->reason),
           "held back: it would stop the Windows boot manager on the ESP (%s: %s); %s%s "
           "once so that it installs its 2023-signed boot manager; then %s",
           BOOTMGFW, after.reason,
           db2023 ? "db holds Windows UEFI CA 2023: boot Windows" : "apply DBUpdate2024 first",
           db2023 ? "" : ", and boot Windows", name);
    return true;
}
