/* chain_install_uki.c - check-update --install NEW_UKI: a new UKI for a
 * machine whose ESP keeps its systemd-boot (and shim, when shim starts
 * it): the boot engine with the ESP's current systemd-boot and shim (the
 * program firmware starts: kt_boot_first_stage) and the new UKI where
 * systemd-boot's next entry's UKI is. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/esp.h"
#include "chain/chain.h"
#include "util/err.h"
#include "util/fmt.h"

#define KT_INSTALL_PATH 4200

/* The ESP's systemd-boot and the shim that starts it ("" none): the
 * program firmware starts (kt_boot_first_stage: BootNext, BootOrder, the
 * removable path) is systemd-boot, or shim with systemd-boot as its second
 * stage (grubx64.efi beside it, shim's DEFAULT_LOADER); else bootctl's own
 * path, firmware starting systemd-boot. */
static void current(const struct kt_efivars *vars, const char *esp, char *shim, char *sd,
                    size_t cap)
{
    char boot[KT_INSTALL_PATH], second[KT_INSTALL_PATH];
    struct kt_boot_first *f = calloc(1, sizeof(*f));
    shim[0] = sd[0] = 0;
    if (f && kt_boot_first_stage(esp, vars, f) == 0) {
        if (kt_chain_is_systemd_boot(f->path)) {
            kt_fmt(sd, cap, "%s", f->path);
            free(f);
            return;
        }
        char *slash = strrchr(f->file, '/');
        kt_fmt(boot, sizeof(boot), "%.*s/grubx64.efi", (int)(slash - f->file), f->file);
        if (kt_esp_file(esp, boot, second, sizeof(second)) == 0 &&
            kt_chain_is_systemd_boot(second)) {
            kt_fmt(shim, cap, "%s", f->path);
            kt_fmt(sd, cap, "%s", second);
            free(f);
            return;
        }
    }
    free(f);
    if (kt_esp_file(esp, "/EFI/systemd/systemd-bootx64.efi", boot, sizeof(boot)) == 0 &&
        kt_chain_is_systemd_boot(boot))
        kt_fmt(sd, cap, "%s", boot);
}

/* shim -> systemd-boot -> the UKI, shim's protocol judging the UKI. */
static int via_shim(const struct kt_efivars *vars, const char *shim, const char *sd,
                    const char *uki, struct kt_install_check *r, struct kt_error *err)
{
    const char *loaders[1] = {sd};
    int rc = kt_chain_install_check(vars, shim, loaders, 1, r, err);
    if (rc < 0 || r->verdict != 0)
        return rc;
    struct kt_chain_opts o = {.vars = vars, .sbat = true, .shim = shim, .loader = sd, .kernel = uki};
    struct kt_chain_report rep;
    rc = kt_chain_run(&o, &rep, err);
    const struct kt_chain_link *K = &rep.link[KT_CHAIN_AT_KERNEL];
    if (rc < 0) {
        r->file = rep.error_file;
    } else if (K->verdict != 0) {
        r->verdict = K->verdict;
        r->why = KT_INSTALL_SHIM_KEYS;
        r->file = uki;
        kt_fmt(r->reason, sizeof(r->reason), "%s: %s (shim's protocol judges it)", uki, K->reason);
    }
    kt_chain_report_free(&rep);
    return rc;
}

int kt_chain_install_uki(const struct kt_efivars *vars, const char *esp, const char *uki,
                         struct kt_install_check *r, char *sdboot, size_t cap,
                         struct kt_error *err)
{
    char shim[KT_INSTALL_PATH], sd[KT_INSTALL_PATH];
    memset(r, 0, sizeof(*r));
    current(vars, esp, shim, sd, sizeof(sd));
    kt_fmt(sdboot, cap, "%s", sd);
    if (!sd[0]) {
        r->file = uki;
        return kt_fail(err, -ENOENT, KT_NO_OFFSET, "no systemd-boot on the ESP to start the UKI");
    }
    const char *loaders[1] = {uki};
    int rc = shim[0] ? via_shim(vars, shim, sd, uki, r, err)
                     : kt_chain_install_check(vars, sd, loaders, 1, r, err);
    if (rc == 0 && r->verdict == 0)
        kt_fmt(r->reason, sizeof(r->reason), "the new UKI boots behind the ESP's systemd-boot %s%s",
               sd, shim[0] ? " and shim" : " (no shim: db and dbx judge it)");
    if (r->file && r->file != uki) { /* the ESP's shim or systemd-boot: kept, not new */
        const char *what = strcmp(r->file, sd) ? "shim" : "systemd-boot";
        char why[sizeof(r->reason)];
        kt_fmt(r->found, sizeof(r->found), "%s", r->file);
        r->file = r->found;
        if (r->verdict) { /* "the new shim is ...": "the ESP's shim F (which stays) is ..." */
            const char *w = r->reason, *sp = strchr(w + 8, ' ');
            bool subject = !strncmp(w, "the new ", 8) && sp;
            kt_fmt(why, sizeof(why), "%s", subject ? sp + 1 : w);
            kt_fmt(r->reason, sizeof(r->reason), "the ESP's %s %s (which stays)%s%s", what,
                   r->found, subject ? " " : ": ", why);
        }
    }
    return rc;
}
