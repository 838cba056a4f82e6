/* audit_locate.c - where the parts of a system are: efivars, the ESP and
 * the boot files on it, the kernel image, its modules. */
#include <dirent.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "audit/audit.h"
#include "boot/esp.h"
#include "ktrust/boot.h"
#include "ktrust/chain.h"
#include "ktrust/efivars.h"
#include "util/file.h"

const char *kt_audit_part_name(enum kt_audit_part p)
{
    static const char *const n[] = {"efivars", "esp", "kernel", "modules"};
    return p < KT_AUDIT__PARTS ? n[p] : "?";
}

const char *kt_audit_link_name(int link)
{
    static const char *const n[] = {"shim", "loader", "kernel", "mokmanager"};
    return link >= 0 && link < KT_AUDIT__LINKS ? n[link] : "?";
}

/* PATH looked up inside BASE (kt_root_resolve: a link resolved there, an
 * absolute target from BASE's top, ".." stopping at it; BASE NULL: the
 * host's lookup) into out; true when it is an object of that type.  out
 * holds where it was looked for either way. */
static bool look(const char *base, const char *path, char *out, mode_t type)
{
    struct stat st;
    return kt_root_resolve(base, path, out, KT_AUDIT_PATH, &st) == 0 &&
           (st.st_mode & S_IFMT) == type;
}

/* The root parts are looked up in: NULL for the live system. */
static const char *root_of(const struct kt_audit_opts *o)
{
    return o->root && *o->root && strcmp(o->root, "/") != 0 ? o->root : NULL;
}

/* The part of a path kt_root_resolve wrote under base: the path inside it. */
static const char *inside(const char *base, const char *p)
{
    return p + strlen(base);
}

/* DIR/NAME on the ESP (kt_esp_resolve: each component matched
 * case-insensitively, as on FAT, never leaving the ESP), an object of that
 * type, into out; DIR is "" or a path a lookup wrote under esp. */
static bool on_esp(const char *esp, const char *dir, const char *name, char *out, mode_t type)
{
    char rel[KT_AUDIT_PATH + 256];
    struct stat st;
    kt_fmt(rel, sizeof(rel), "%s/%s", *dir ? inside(esp, dir) : "", name);
    return kt_esp_resolve(esp, rel, out, KT_AUDIT_PATH, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

/* The shim the firmware starts by its variables (kt_boot_first_stage:
 * BootNext, then BootOrder's active options) into best, when that program
 * is a shimx64.efi on the ESP: on a disk with two vendors' shims, the one
 * the boot entries name, not the first by name. */
static bool shim_by_boot_entries(const struct kt_audit *a, char *best)
{
    if (!a->found[KT_AUDIT_EFIVARS])
        return false;
    struct kt_efivars vars;
    struct kt_error e = KT_ERROR_INIT;
    if (kt_efivars_read(a->path[KT_AUDIT_EFIVARS], &vars, &e) < 0)
        return false;
    struct kt_boot_first *f = malloc(sizeof(*f));
    bool ok = f && kt_boot_first_stage(a->path[KT_AUDIT_ESP], &vars, f) == 0 &&
              f->by != KT_BOOT_BY_REMOVABLE && strrchr(f->file, '/') &&
              !strcasecmp(strrchr(f->file, '/') + 1, "shimx64.efi") && strlen(f->path) < KT_AUDIT_PATH;
    if (ok)
        kt_fmt(best, KT_AUDIT_PATH, "%s", f->path);
    free(f);
    kt_efivars_free(&vars);
    return ok;
}

/* The shim on the ESP: the one the boot entries start (shim_by_boot_entries),
 * else EFI/<vendor>/shimx64.efi (vendors in name order, BOOT last), else
 * EFI/BOOT/BOOTX64.EFI; the loader and MokManager beside it.  Every file is
 * looked up inside the ESP (on_esp()): firmware reads them from that
 * volume, and a link on it that leads out is refused. */
static void locate_boot(struct kt_audit *a)
{
    struct kt_audit_link *L = a->links;
    const char *esp = a->path[KT_AUDIT_ESP];
    char efi[KT_AUDIT_PATH], best[KT_AUDIT_PATH] = "";
    /* EFI, or efi when only that exists (on /boot, boot/efi is the mount point) */
    bool lower = on_esp(esp, "", "efi", efi, S_IFDIR);
    bool upper = on_esp(esp, "", "EFI", efi, S_IFDIR);
    if (!upper && lower)
        on_esp(esp, "", "efi", efi, S_IFDIR);
    kt_fmt(L[KT_AUDIT_SHIM].path, KT_AUDIT_PATH, "%s/*/shimx64.efi", efi);
    DIR *d = (upper || lower) && !shim_by_boot_entries(a, best) ? opendir(efi) : NULL;
    if (d) {
        struct dirent *de;
        char sub[KT_AUDIT_PATH], cand[KT_AUDIT_PATH];
        while ((de = readdir(d)) != NULL) {
            if (de->d_name[0] == '.' || !strcasecmp(de->d_name, "BOOT"))
                continue;
            if (on_esp(esp, efi, de->d_name, sub, S_IFDIR) &&
                on_esp(esp, sub, "shimx64.efi", cand, S_IFREG) &&
                (!best[0] || strcmp(cand, best) < 0))
                kt_fmt(best, sizeof(best), "%s", cand);
        }
        closedir(d);
        if (!best[0] && (!on_esp(esp, efi, "BOOT", sub, S_IFDIR) ||
                         !on_esp(esp, sub, "BOOTX64.EFI", best, S_IFREG)))
            best[0] = 0;
    }
    if (!best[0]) {
        kt_fmt(L[KT_AUDIT_LOADER].path, KT_AUDIT_PATH, "%s/*/grubx64.efi", efi);
        kt_fmt(L[KT_AUDIT_MOKMANAGER].path, KT_AUDIT_PATH, "%s/*/mmx64.efi", efi);
        return;
    }
    kt_fmt(L[KT_AUDIT_SHIM].path, KT_AUDIT_PATH, "%s", best);
    L[KT_AUDIT_SHIM].present = true;
    char dir[KT_AUDIT_PATH];
    kt_fmt(dir, sizeof(dir), "%s", best);
    *strrchr(dir, '/') = 0;
    static const char *const names[] = {[KT_AUDIT_LOADER] = "grubx64.efi",
                                        [KT_AUDIT_MOKMANAGER] = "mmx64.efi"};
    for (int i = KT_AUDIT_LOADER; i < KT_AUDIT__LINKS; i++) {
        if (i == KT_AUDIT_KERNEL_LINK)
            continue;
        if (on_esp(esp, dir, names[i], L[i].path, S_IFREG))
            L[i].present = true;
        else
            kt_fmt(L[i].path, KT_AUDIT_PATH, "%s/%s", dir, names[i]);
    }
}

/* The newest vmlinuz-* (by name) in the boot directory bootdir (a path
 * look() wrote under root) when the running release is not there. */
static bool newest_kernel(const char *root, const char *bootdir, char *release, size_t cap)
{
    DIR *d = opendir(bootdir);
    if (!d)
        return false;
    struct dirent *de;
    bool found = false;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "vmlinuz-", 8) || !de->d_name[8])
            continue;
        char rel[KT_AUDIT_PATH + 256], p[KT_AUDIT_PATH];
        kt_fmt(rel, sizeof(rel), "%s/%s", root ? inside(root, bootdir) : bootdir, de->d_name);
        if (!look(root, rel, p, S_IFREG))
            continue;
        if (!found || strverscmp(de->d_name + 8, release) > 0)
            kt_fmt(release, cap, "%s", de->d_name + 8);
        found = true;
    }
    closedir(d);
    return found;
}

/* Under --root every default part, and everything found in it, is looked up
 * inside the root as the audited system sees it (look() with the root as
 * its base): an absolute link is the root's, ".." stops at its top.  An
 * explicit path is the host's, as given. */
void kt_audit_locate(const struct kt_audit_opts *o, struct kt_audit *a)
{
    const char *root = root_of(o);
    char *P[KT_AUDIT__PARTS];
    for (int i = 0; i < KT_AUDIT__PARTS; i++)
        P[i] = a->path[i];
    a->offline = !o->root && (o->efivars || o->esp);
    if (o->efivars)
        a->found[KT_AUDIT_EFIVARS] = look(NULL, o->efivars, P[KT_AUDIT_EFIVARS], S_IFDIR);
    else
        a->found[KT_AUDIT_EFIVARS] = look(root, kt_sys_path(KT_SYS_EFIVARS), P[KT_AUDIT_EFIVARS], S_IFDIR);

    if (o->esp) {
        a->found[KT_AUDIT_ESP] = look(NULL, o->esp, P[KT_AUDIT_ESP], S_IFDIR);
    } else {
        /* the first of these with an EFI folder, else /boot/efi */
        size_t n_esps;
        const char *const *esps = kt_sys_esp_candidates(&n_esps);
        a->found[KT_AUDIT_ESP] = look(root, esps[0], P[KT_AUDIT_ESP], S_IFDIR);
        for (size_t i = 0; i < n_esps; i++) {
            char p[KT_AUDIT_PATH], e[KT_AUDIT_PATH];
            if (look(root, esps[i], p, S_IFDIR) && look(p, "/EFI", e, S_IFDIR)) {
                kt_fmt(P[KT_AUDIT_ESP], KT_AUDIT_PATH, "%s", p);
                a->found[KT_AUDIT_ESP] = true;
                break;
            }
        }
    }
    locate_boot(a);
    kt_audit_sdboot_locate(a);

    struct utsname u;
    if (o->release)
        kt_fmt(a->release, sizeof(a->release), "%s", o->release);
    else if (!a->offline && uname(&u) == 0)
        kt_fmt(a->release, sizeof(a->release), "%s", u.release);
    if (o->kernel) {
        a->found[KT_AUDIT_KERNEL] = look(NULL, o->kernel, P[KT_AUDIT_KERNEL], S_IFREG);
        const char *b = strrchr(o->kernel, '/');
        b = b ? b + 1 : o->kernel;
        if (!o->release && !strncmp(b, "vmlinuz-", 8))
            kt_fmt(a->release, sizeof(a->release), "%s", b + 8);
    } else if (!a->offline) {
        char boot[KT_AUDIT_PATH], name[KT_AUDIT_PATH + 300];
        bool have_boot = look(root, kt_sys_path(KT_SYS_BOOT), boot, S_IFDIR);
        const char *in = have_boot && root ? inside(root, boot) : kt_sys_path(KT_SYS_BOOT);
        kt_fmt(name, sizeof(name), "%s/vmlinuz-%s", in, a->release);
        a->found[KT_AUDIT_KERNEL] = look(root, name, P[KT_AUDIT_KERNEL], S_IFREG);
        if (!a->found[KT_AUDIT_KERNEL] && !o->release && have_boot &&
            newest_kernel(root, boot, a->release, sizeof(a->release))) {
            kt_fmt(name, sizeof(name), "%s/vmlinuz-%s", in, a->release);
            a->found[KT_AUDIT_KERNEL] = look(root, name, P[KT_AUDIT_KERNEL], S_IFREG);
        }
    }
    struct kt_audit_link *K = &a->links[KT_AUDIT_KERNEL_LINK];
    kt_fmt(K->path, KT_AUDIT_PATH, "%s", P[KT_AUDIT_KERNEL]);
    K->present = a->found[KT_AUDIT_KERNEL];

    if (o->modules) {
        a->found[KT_AUDIT_MODULES] = look(NULL, o->modules, P[KT_AUDIT_MODULES], S_IFDIR);
    } else if (!a->offline) {
        /* the walk (audit_modules.c) then follows no link inside it */
        char name[KT_AUDIT_PATH + 300];
        kt_fmt(name, sizeof(name), "%s/%s", kt_sys_path(KT_SYS_MODULES), a->release);
        a->found[KT_AUDIT_MODULES] = look(root, name, P[KT_AUDIT_MODULES], S_IFDIR);
    }
}
