/* audit_locate.c - where the parts of a system are: efivars, the ESP and
 * the boot files on it, the kernel image, its modules. */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "audit/audit.h"

void kt_audit_fmt(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, cap, fmt, ap);
    va_end(ap);
}

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

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static void under(char *out, const char *root, const char *path)
{
    if (root && *root && strcmp(root, "/") != 0)
        kt_audit_fmt(out, KT_AUDIT_PATH, "%s%s", root, path);
    else
        kt_audit_fmt(out, KT_AUDIT_PATH, "%s", path);
}

/* DIR/NAME with NAME matched case-insensitively (FAT is), into out. */
static bool find_ci(const char *dir, const char *name, char *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *de;
    bool found = false;
    while ((de = readdir(d)) != NULL)
        if (!strcasecmp(de->d_name, name)) {
            kt_audit_fmt(out, KT_AUDIT_PATH, "%s/%s", dir, de->d_name);
            found = is_file(out);
            if (found)
                break;
        }
    closedir(d);
    return found;
}

/* The shim on the ESP: EFI/<vendor>/shimx64.efi (vendors in name order,
 * BOOT last), else EFI/BOOT/BOOTX64.EFI; the loader and MokManager beside it. */
static void locate_boot(struct kt_audit *a)
{
    struct kt_audit_link *L = a->links;
    char efi[KT_AUDIT_PATH], best[KT_AUDIT_PATH] = "";
    /* EFI, or efi when only that exists (on /boot, boot/efi is the mount point) */
    kt_audit_fmt(efi, sizeof(efi), "%s/efi", a->path[KT_AUDIT_ESP]);
    bool lower = is_dir(efi);
    kt_audit_fmt(efi, sizeof(efi), "%s/EFI", a->path[KT_AUDIT_ESP]);
    if (!is_dir(efi) && lower)
        kt_audit_fmt(efi, sizeof(efi), "%s/efi", a->path[KT_AUDIT_ESP]);
    kt_audit_fmt(L[KT_AUDIT_SHIM].path, KT_AUDIT_PATH, "%s/*/shimx64.efi", efi);
    DIR *d = opendir(efi);
    if (d) {
        struct dirent *de;
        char sub[KT_AUDIT_PATH], cand[KT_AUDIT_PATH];
        while ((de = readdir(d)) != NULL) {
            if (de->d_name[0] == '.' || !strcasecmp(de->d_name, "BOOT"))
                continue;
            kt_audit_fmt(sub, sizeof(sub), "%s/%s", efi, de->d_name);
            if (find_ci(sub, "shimx64.efi", cand) && (!best[0] || strcmp(cand, best) < 0))
                kt_audit_fmt(best, sizeof(best), "%s", cand);
        }
        closedir(d);
        if (!best[0]) {
            kt_audit_fmt(sub, sizeof(sub), "%s/BOOT", efi);
            if (!find_ci(sub, "BOOTX64.EFI", best)) {
                kt_audit_fmt(sub, sizeof(sub), "%s/boot", efi);
                if (!find_ci(sub, "BOOTX64.EFI", best))
                    best[0] = 0;
            }
        }
    }
    if (!best[0]) {
        kt_audit_fmt(L[KT_AUDIT_LOADER].path, KT_AUDIT_PATH, "%s/*/grubx64.efi", efi);
        kt_audit_fmt(L[KT_AUDIT_MOKMANAGER].path, KT_AUDIT_PATH, "%s/*/mmx64.efi", efi);
        return;
    }
    kt_audit_fmt(L[KT_AUDIT_SHIM].path, KT_AUDIT_PATH, "%s", best);
    L[KT_AUDIT_SHIM].present = true;
    char dir[KT_AUDIT_PATH];
    kt_audit_fmt(dir, sizeof(dir), "%s", best);
    *strrchr(dir, '/') = 0;
    static const char *const names[] = {[KT_AUDIT_LOADER] = "grubx64.efi",
                                        [KT_AUDIT_MOKMANAGER] = "mmx64.efi"};
    for (int i = KT_AUDIT_LOADER; i < KT_AUDIT__LINKS; i++) {
        if (i == KT_AUDIT_KERNEL_LINK)
            continue;
        if (find_ci(dir, names[i], L[i].path))
            L[i].present = true;
        else
            kt_audit_fmt(L[i].path, KT_AUDIT_PATH, "%s/%s", dir, names[i]);
    }
}

/* The newest boot/vmlinuz-* (by name) when the running release is not there. */
static bool newest_kernel(const char *bootdir, char *release, size_t cap)
{
    DIR *d = opendir(bootdir);
    if (!d)
        return false;
    struct dirent *de;
    bool found = false;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "vmlinuz-", 8) || !de->d_name[8])
            continue;
        char p[KT_AUDIT_PATH];
        kt_audit_fmt(p, sizeof(p), "%s/%s", bootdir, de->d_name);
        if (!is_file(p))
            continue;
        if (!found || strverscmp(de->d_name + 8, release) > 0)
            kt_audit_fmt(release, cap, "%s", de->d_name + 8);
        found = true;
    }
    closedir(d);
    return found;
}

void kt_audit_locate(const struct kt_audit_opts *o, struct kt_audit *a)
{
    const char *root = o->root;
    char *P[KT_AUDIT__PARTS];
    for (int i = 0; i < KT_AUDIT__PARTS; i++)
        P[i] = a->path[i];
    if (o->efivars)
        kt_audit_fmt(P[KT_AUDIT_EFIVARS], KT_AUDIT_PATH, "%s", o->efivars);
    else
        under(P[KT_AUDIT_EFIVARS], root, "/sys/firmware/efi/efivars");
    a->found[KT_AUDIT_EFIVARS] = is_dir(P[KT_AUDIT_EFIVARS]);

    if (o->esp) {
        kt_audit_fmt(P[KT_AUDIT_ESP], KT_AUDIT_PATH, "%s", o->esp);
    } else {
        static const char *const esps[] = {"/boot/efi", "/efi", "/boot"};
        under(P[KT_AUDIT_ESP], root, esps[0]);
        for (size_t i = 0; i < 3; i++) {
            char p[KT_AUDIT_PATH], e[KT_AUDIT_PATH + 8];
            under(p, root, esps[i]);
            kt_audit_fmt(e, sizeof(e), "%s/EFI", p);
            if (is_dir(e)) {
                kt_audit_fmt(P[KT_AUDIT_ESP], KT_AUDIT_PATH, "%s", p);
                break;
            }
        }
    }
    a->found[KT_AUDIT_ESP] = is_dir(P[KT_AUDIT_ESP]);
    locate_boot(a);

    struct utsname u;
    if (o->release)
        kt_audit_fmt(a->release, sizeof(a->release), "%s", o->release);
    else if (uname(&u) == 0)
        kt_audit_fmt(a->release, sizeof(a->release), "%s", u.release);
    if (o->kernel) {
        kt_audit_fmt(P[KT_AUDIT_KERNEL], KT_AUDIT_PATH, "%s", o->kernel);
        const char *b = strrchr(o->kernel, '/');
        b = b ? b + 1 : o->kernel;
        if (!o->release && !strncmp(b, "vmlinuz-", 8))
            kt_audit_fmt(a->release, sizeof(a->release), "%s", b + 8);
    } else {
        char boot[KT_AUDIT_PATH], name[KT_AUDIT_PATH + 300];
        under(boot, root, "/boot");
        kt_audit_fmt(name, sizeof(name), "%s/vmlinuz-%s", boot, a->release);
        if (!is_file(name) && !o->release && newest_kernel(boot, a->release, sizeof(a->release)))
            kt_audit_fmt(name, sizeof(name), "%s/vmlinuz-%s", boot, a->release);
        kt_audit_fmt(P[KT_AUDIT_KERNEL], KT_AUDIT_PATH, "%s", name);
    }
    a->found[KT_AUDIT_KERNEL] = is_file(P[KT_AUDIT_KERNEL]);
    struct kt_audit_link *K = &a->links[KT_AUDIT_KERNEL_LINK];
    kt_audit_fmt(K->path, KT_AUDIT_PATH, "%s", P[KT_AUDIT_KERNEL]);
    K->present = a->found[KT_AUDIT_KERNEL];

    if (o->modules) {
        kt_audit_fmt(P[KT_AUDIT_MODULES], KT_AUDIT_PATH, "%s", o->modules);
    } else {
        char mods[KT_AUDIT_PATH], name[KT_AUDIT_PATH + 300];
        under(mods, root, "/lib/modules");
        kt_audit_fmt(name, sizeof(name), "%s/%s", mods, a->release);
        kt_audit_fmt(P[KT_AUDIT_MODULES], KT_AUDIT_PATH, "%s", name);
    }
    a->found[KT_AUDIT_MODULES] = is_dir(P[KT_AUDIT_MODULES]);
}
