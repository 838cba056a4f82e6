/* sdboot_uki.c - Type #2 entries (config_entry_add_unified of systemd 252:
 * EFI/Linux/NAME.efi with an .osrel, its name, version and sort key picked as
 * bootspec_pick_name_version_sort_key picks them, .cmdline as its options)
 * and add-ons (UAPI.5: EFI/Linux/NAME.efi.extra.d/X.addon.efi for one UKI,
 * loader/addons/X.addon.efi for all; taken by systemd-stub from v254 on). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdboot/sdboot.h"
#include "uki/uki.h"
#include "util/err.h"
#include "util/file.h"

/* The os-release fields systemd-boot reads, in the order it picks them. */
enum { PRETTY, IMAGE_ID, NAME, ID, IMAGE_VERSION, VERSION, VERSION_ID, BUILD_ID, N_OSREL };

/* .osrel as systemd-boot reads it (line_get_key_value with '=': only a
 * double-quoted value is unquoted, no escapes), the name, version and sort
 * key into e.  false when it has no name or no version. */
static bool osrel(const uint8_t *p, size_t len, struct kt_sdboot_entry *e)
{
    static const char *const keys[N_OSREL] = {"PRETTY_NAME", "IMAGE_ID", "NAME", "ID",
                                              "IMAGE_VERSION", "VERSION", "VERSION_ID", "BUILD_ID"};
    char *v[N_OSREL] = {0};
    size_t n = strnlen((const char *)p, len);
    char *text = malloc(n + 1);
    if (!text)
        return false;
    memcpy(text, p, n);
    text[n] = 0;
    struct kt_sdboot_lines l = {.text = text, .sep = "="};
    char *k, *val;
    while (kt_sdboot_line(&l, &k, &val, NULL, NULL))
        for (size_t i = 0; i < N_OSREL; i++)
            if (!strcmp(k, keys[i]))
                v[i] = val;
    const char *name = v[PRETTY] ? v[PRETTY] : v[IMAGE_ID] ? v[IMAGE_ID] : v[NAME] ? v[NAME] : v[ID];
    const char *ver = v[IMAGE_VERSION] ? v[IMAGE_VERSION]
                      : v[VERSION]     ? v[VERSION]
                      : v[VERSION_ID]  ? v[VERSION_ID]
                                       : v[BUILD_ID];
    const char *key = v[IMAGE_ID] ? v[IMAGE_ID] : v[ID];
    bool ok = name && ver;
    if (ok) {
        kt_sdboot_copy(e->title, sizeof(e->title), name);
        kt_sdboot_copy(e->version, sizeof(e->version), ver);
        kt_sdboot_copy(e->sort_key, sizeof(e->sort_key), key ? key : "");
    }
    free(text);
    return ok;
}

/* .cmdline as the entry's options, its last newline chomped. */
static void cmdline(const struct kt_uki *u, struct kt_sdboot_entry *e)
{
    const uint8_t *p;
    size_t n;
    if (kt_uki_get(u, ".cmdline", &p, &n) < 0 || !n)
        return;
    n = strnlen((const char *)p, n);
    if (n && p[n - 1] == '\n')
        n--;
    if (n >= sizeof(e->options))
        n = sizeof(e->options) - 1;
    memcpy(e->options, p, n);
    e->options[n] = 0;
}

/* One EFI/Linux/NAME.efi: an entry when it has an .osrel with a name and a
 * version; its add-ons from NAME.efi.extra.d. */
static int unified(struct kt_sdboot *s, const char *rel, const char *real, const char *name, void *ctx)
{
    (void)ctx;
    struct kt_file f = {0};
    struct kt_error err = KT_ERROR_INIT;
    struct kt_uki *u = NULL;
    const uint8_t *p = NULL;
    size_t n = 0;
    const char *why = NULL;
    if (kt_file_open(real, &f, &err) < 0)
        why = "cannot be read";
    else if (kt_uki_open_buf(f.data, f.len, &u, &err) < 0)
        why = err.code == -ENOMEM ? NULL : "not a PE image systemd-boot can read: no entry";
    else if (kt_uki_get(u, ".osrel", &p, &n) < 0 || !n)
        why = "no .osrel: systemd-boot makes no entry of it";
    struct kt_sdboot_entry *e = calloc(1, sizeof(*e));
    if (!e || err.code == -ENOMEM) {
        kt_uki_free(u);
        kt_file_close(&f);
        free(e);
        return s->rc = -ENOMEM;
    }
    if (!why && !osrel(p, n, e))
        why = ".osrel has no name (PRETTY_NAME, IMAGE_ID, NAME, ID) or no version (IMAGE_VERSION, "
              "VERSION, VERSION_ID, BUILD_ID): systemd-boot makes no entry of it";
    int rc = 0;
    if (why) {
        kt_sdboot_add_problem(s, 0, why);
    } else {
        e->kind = KT_SDBOOT_UKI;
        kt_sdboot_copy(e->id, sizeof(e->id), name);
        kt_sdboot_lower(e->id);
        kt_sdboot_copy(e->source, sizeof(e->source), rel);
        kt_sdboot_copy(e->image, sizeof(e->image), rel);
        kt_sdboot_copy(e->resolved, sizeof(e->resolved), real);
        kt_sdboot_tries(name, ".efi", &e->tries_left, &e->tries_done);
        cmdline(u, e);
        char dir[KT_SDBOOT_PATH];
        snprintf(dir, sizeof(dir), "%.4000s.extra.d", rel);
        rc = kt_sdboot_add_entry(s, e);
        if (rc == 0)
            rc = kt_sdboot_scan_addons(s, dir, rel);
    }
    kt_uki_free(u);
    kt_file_close(&f);
    free(e);
    return rc;
}

int kt_sdboot_scan_unified(struct kt_sdboot *s)
{
    return kt_sdboot_each_file(s, "/EFI/Linux", ".efi", true, unified, NULL);
}

static int addon(struct kt_sdboot *s, const char *rel, const char *real, const char *name, void *ctx)
{
    (void)name;
    return kt_sdboot_add_addon(s, ctx, rel, real);
}

int kt_sdboot_scan_addons(struct kt_sdboot *s, const char *dir, const char *owner)
{
    return kt_sdboot_each_file(s, dir, ".addon.efi", false, addon, (void *)owner);
}

size_t kt_sdboot_addon_check(const struct kt_uki *u, char *names, size_t cap)
{
    size_t bad = 0, o = 0;
    if (names && cap)
        names[0] = 0;
    for (size_t i = 0; i < kt_uki_section_count(u); i++) {
        const struct kt_uki_section *sec = kt_uki_section_at(u, i);
        if (sec->role == KT_UKI_STUB ||
            (sec->canonical && (!strcmp(sec->canonical, ".cmdline") || !strcmp(sec->canonical, ".dtb"))))
            continue;
        bad++;
        if (names && o < cap) {
            int w = snprintf(names + o, cap - o, "%s%s", o ? " " : "", sec->name);
            o = w < 0 ? cap : o + (size_t)w;
        }
    }
    return bad;
}

bool kt_sdboot_stub_loads_addons(const struct kt_uki *u)
{
    char v[128];
    if (kt_uki_stub_version(u, v, sizeof(v)) < 0 || strncmp(v, "systemd-stub ", 13) != 0)
        return false;
    return atoi(v + 13) >= 254;
}
