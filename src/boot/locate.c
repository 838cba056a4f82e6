/* locate.c - where each part of a Linux system lives (efivarfs, the TCG
 * event log, the TPM's PCR files, the IMA measurement list, kernels, modules, the ESP's mount
 * points): written once, for audit, eventlog, plan-updates, check-update
 * and the CLI's live defaults. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ktrust/boot.h"
#include "util/err.h"

static const char *const parts[KT_SYS__PARTS] = {
    [KT_SYS_EFIVARS] = KT_SYS_EFIVARS_PATH,
    [KT_SYS_EVENTLOG] = KT_SYS_EVENTLOG_PATH,
    [KT_SYS_TPM_PCRS] = KT_SYS_TPM_PCRS_PATH,
    [KT_SYS_BOOT] = "/boot",
    [KT_SYS_MODULES] = "/lib/modules",
    [KT_SYS_ESP] = "/boot/efi",
    [KT_SYS_IMA_LIST] = KT_SYS_IMA_LIST_PATH,
};

const char *kt_sys_path(enum kt_sys_part part)
{
    return (unsigned)part < KT_SYS__PARTS ? parts[part] : NULL;
}

int kt_sys_path_under(const char *root, enum kt_sys_part part, char *out, size_t cap)
{
    const char *p = kt_sys_path(part);
    if (!p)
        return -EINVAL;
    if (!root || !strcmp(root, "/"))
        root = "";
    int n = snprintf(out, cap, "%s%s", root, p);
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

const char *const *kt_sys_esp_candidates(size_t *n)
{
    static const char *const esps[] = {"/boot/efi", "/efi", "/boot"};
    *n = sizeof(esps) / sizeof(esps[0]);
    return esps;
}

int kt_sys_kernel_config_under(const char *root, char *out, size_t cap)
{
    char boot[4096];
    KT_TRY(kt_sys_path_under(root, KT_SYS_BOOT, boot, sizeof(boot)));
    DIR *d = opendir(boot);
    if (!d)
        return -ENOENT;
    char best[256] = "";
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        char p[4096 + 256];
        if (strncmp(de->d_name, "config-", 7) || !de->d_name[7] || strlen(de->d_name) >= sizeof(best))
            continue;
        snprintf(p, sizeof(p), "%s/%s", boot, de->d_name);
        if (lstat(p, &st) < 0 || !S_ISREG(st.st_mode))
            continue;
        if (!best[0] || strverscmp(de->d_name + 7, best + 7) > 0)
            snprintf(best, sizeof(best), "%s", de->d_name);
    }
    closedir(d);
    if (!best[0])
        return -ENOENT;
    int n = snprintf(out, cap, "%s/%s", boot, best);
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}
