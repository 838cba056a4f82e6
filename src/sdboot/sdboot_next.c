/* sdboot_next.c - THE rule for which UKI boots next on an ESP, for every
 * command alike (eventlog --predict's PCR 11 and 12, the sealed tokens'
 * signed policies, audit): when systemd-boot is on the ESP, the program
 * of the entry it boots next (kt_sdboot_next, with the Loader* variables
 * of the snapshot) when that program is a UKI, with a Type #1 entry's
 * options (the load options systemd-boot passes and measures);
 * kt_sdboot_pick_uki: that, or the UKI the caller names, or the one of
 * EFI/Linux, with the rule that picked it (what every command says). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "boot/esp.h"
#include "sdboot/sdboot.h"
#include "uki/uki.h"
#include "util/err.h"
#include "util/file.h"
#include "util/fmt.h"

/* Where systemd-boot is installed: bootctl's own path, the removable path,
 * and shim's second stage in the removable directory. */
static const char *const sdboot_paths[] = {
    "/EFI/systemd/systemd-bootx64.efi",
    "/EFI/BOOT/BOOTX64.EFI",
    "/EFI/BOOT/grubx64.efi",
};

bool kt_sdboot_is_binary(const uint8_t *buf, size_t len)
{
    struct kt_uki *u = NULL;
    char v[128];
    bool yes = kt_uki_open_buf(buf, len, &u, NULL) == 0 &&
               kt_uki_stub_version(u, v, sizeof(v)) == 0 && strncmp(v, "systemd-boot ", 13) == 0;
    kt_uki_free(u);
    return yes;
}

/* Is the file at path on esp systemd-boot? */
static bool is_sdboot_file(const char *esp, const char *path)
{
    char real[KT_SDBOOT_PATH];
    struct kt_file f;
    if (kt_esp_file(esp, path, real, sizeof(real)) < 0 || kt_file_open(real, &f, NULL) < 0)
        return false;
    bool yes = kt_sdboot_is_binary(f.data, f.len);
    kt_file_close(&f);
    return yes;
}

bool kt_sdboot_on_esp(const char *esp)
{
    char real[KT_SDBOOT_PATH];
    if (!esp)
        return false;
    if (kt_esp_file(esp, "/loader/loader.conf", real, sizeof(real)) == 0)
        return true;
    for (size_t i = 0; i < sizeof(sdboot_paths) / sizeof(*sdboot_paths); i++)
        if (is_sdboot_file(esp, sdboot_paths[i]))
            return true;
    return false;
}

static int pick(const struct kt_sdboot *s, struct kt_sdboot_next_uki *out, struct kt_error *err)
{
    long i = kt_sdboot_next(s, true, &out->rule);
    const struct kt_sdboot_entry *e = i >= 0 ? kt_sdboot_entry_at(s, (size_t)i) : NULL;
    if (!e)
        return kt_fail(err, -ENOENT, KT_NO_OFFSET, "systemd-boot: no entry to boot on the ESP");
    kt_sdboot_copy(out->entry, sizeof(out->entry), e->id);
    if (e->image_rc < 0)
        return kt_fail(err, -EXDEV, KT_NO_OFFSET,
                       "systemd-boot's next entry %s: %s has '.' or '..' or leaves the ESP",
                       e->id, e->image);
    if (e->kind != KT_SDBOOT_UKI && !kt_uki_detect_file(e->resolved))
        return kt_fail(err, -ENOENT, KT_NO_OFFSET,
                       "systemd-boot's next entry %s starts %s, not a UKI", e->id, e->image);
    kt_sdboot_copy(out->path, sizeof(out->path), e->resolved);
    kt_sdboot_copy(out->image, sizeof(out->image), e->image);
    out->type1 = e->kind != KT_SDBOOT_UKI;
    if (out->type1 && !kt_sdboot_copy(out->options, sizeof(out->options), e->options))
        return kt_fail(err, -E2BIG, KT_NO_OFFSET, "systemd-boot's next entry %s: options too long",
                       e->id);
    return 1;
}

int kt_sdboot_next_uki(const char *esp, const struct kt_efivars *vars,
                       struct kt_sdboot_next_uki *out, struct kt_error *err)
{
    memset(out, 0, sizeof(*out));
    out->rule = KT_SDBOOT_BY_NONE;
    if (!kt_sdboot_on_esp(esp))
        return 0;
    struct kt_sdboot *s = NULL;
    int rc = kt_sdboot_open(esp, vars, &s, err);
    if (rc == -ENOENT)
        return kt_fail(err, -ENOENT, KT_NO_OFFSET, "systemd-boot: no entry to boot on the ESP");
    if (rc == 0)
        rc = pick(s, out, err);
    kt_sdboot_free(s);
    return rc;
}

int kt_sdboot_only_uki(const char *esp, char *path, size_t cap)
{
    char dir[KT_SDBOOT_PATH];
    kt_fmt(dir, sizeof(dir), "%s/EFI/Linux", esp);
    DIR *d = opendir(dir);
    if (!d)
        return -ENOENT;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || e->d_name[0] == '.' || strcasecmp(e->d_name + len - 4, ".efi"))
            continue;
        if (n++ == 0)
            kt_fmt(path, cap, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    return n == 1 ? 0 : n ? -E2BIG : -ENOENT;
}

/* A UKI the caller names: on the ESP when its real path is under the ESP's. */
static int given_uki(const char *esp, const char *given, struct kt_sdboot_next_uki *out)
{
    char re[KT_SDBOOT_PATH], rg[KT_SDBOOT_PATH];
    out->rule = KT_SDBOOT_BY_GIVEN;
    if (!kt_sdboot_copy(out->path, sizeof(out->path), given))
        return -E2BIG;
    size_t n = esp && realpath(esp, re) && realpath(given, rg) ? strlen(re) : 0;
    if (n && !strncmp(rg, re, n) && rg[n] == '/')
        kt_sdboot_copy(out->image, sizeof(out->image), rg + n);
    return 1;
}

int kt_sdboot_pick_uki(const char *esp, const struct kt_efivars *vars, const char *given,
                       bool only, struct kt_sdboot_next_uki *out, struct kt_error *err)
{
    memset(out, 0, sizeof(*out));
    out->rule = KT_SDBOOT_BY_NONE;
    if (given)
        return given_uki(esp, given, out);
    int rc = esp ? kt_sdboot_next_uki(esp, vars, out, err) : 0;
    if (rc != 0 || !only || !esp || kt_sdboot_only_uki(esp, out->path, sizeof(out->path)) < 0)
        return rc;
    out->rule = KT_SDBOOT_BY_ONLY;
    kt_fmt(out->image, sizeof(out->image), "%s", out->path + strlen(esp));
    return 1;
}
