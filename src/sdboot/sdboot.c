/* sdboot.c - systemd-boot on an ESP: loader.conf, the Type #1 entries of
 * loader/entries, the Loader* variables, the handle and its accessors.
 * Files are looked up as firmware's FAT driver finds them (src/boot/esp.c):
 * case-blind, never outside the ESP. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "boot/esp.h"
#include "ktrust/efivars.h"
#include "sdboot/sdboot.h"
#include "util/err.h"
#include "util/file.h"

/* "." or ".." as a component: firmware's FAT driver may climb with them;
 * ktrust judges no file it reached that way. */
static bool dotted(const char *p)
{
    for (;;) {
        p += strspn(p, "/");
        size_t n = strcspn(p, "/");
        if (!n)
            return false;
        if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return true;
        p += n;
    }
}

/* Look the entry's program up: 1 kept (image_rc says whether ktrust can
 * judge it), 0 dropped (systemd-boot finds no such file). */
static int locate(struct kt_sdboot *s, struct kt_sdboot_entry *e)
{
    char why[KT_SDBOOT_TEXT];
    const char *key = e->kind == KT_SDBOOT_EFI ? "efi" : "linux";
    e->image_rc = dotted(e->image) ? -EXDEV
                                   : kt_esp_file(s->esp, e->image, e->resolved, sizeof(e->resolved));
    if (e->image_rc == 0)
        return 1;
    e->resolved[0] = 0;
    if (e->image_rc == -ENOENT || e->image_rc == -ENOTDIR) {
        snprintf(why, sizeof(why), "%s %.150s: no such file on the ESP: systemd-boot drops the entry",
                 key, e->image);
        kt_sdboot_add_problem(s, 0, why);
        return 0;
    }
    snprintf(why, sizeof(why), "%s %.150s: %s: ktrust does not judge it", key, e->image,
             e->image_rc == -EXDEV || e->image_rc == -ELOOP
                 ? "the path has '.' or '..' or a link that leaves the ESP"
                 : "cannot be read");
    kt_sdboot_add_problem(s, 0, why);
    return 1;
}

static int type1(struct kt_sdboot *s, const char *rel, const char *real, const char *name, void *ctx)
{
    (void)ctx;
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    struct kt_sdboot_entry *en = calloc(1, sizeof(*en));
    char why[KT_SDBOOT_TEXT];
    int rc = en ? kt_file_open(real, &f, &e) : -ENOMEM;
    if (rc == -ENOMEM) {
        free(en);
        return s->rc = rc;
    }
    if (rc < 0) {
        kt_sdboot_add_problem(s, 0, e.what[0] ? e.what : "cannot be read");
        free(en);
        return 0;
    }
    rc = kt_sdboot_entry_parse((const char *)f.data, f.len, name, en, kt_sdboot_add_problem, s, why,
                               sizeof(why));
    kt_file_close(&f);
    kt_sdboot_copy(en->source, sizeof(en->source), rel);
    if (rc == 0)
        kt_sdboot_add_problem(s, 0, why);
    else if (rc > 0 && locate(s, en))
        rc = kt_sdboot_add_entry(s, en);
    free(en);
    return rc < 0 ? rc : 0;
}

static void load_conf(struct kt_sdboot *s)
{
    char real[KT_SDBOOT_PATH];
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    if (kt_esp_file(s->esp, "/loader/loader.conf", real, sizeof(real)) < 0)
        return;
    s->problem_file = "/loader/loader.conf";
    if (kt_file_open(real, &f, &e) < 0) {
        kt_sdboot_add_problem(s, 0, e.what[0] ? e.what : "cannot be read");
        return;
    }
    size_t n = strnlen((const char *)f.data, f.len);
    char *text = malloc(n + 1);
    if (text) {
        memcpy(text, f.data, n);
        text[n] = 0;
        if (n < f.len)
            kt_sdboot_add_problem(s, 0, "a NUL byte: systemd-boot reads no further");
        kt_sdboot_conf_parse(text, &s->conf, kt_sdboot_add_problem, s);
    } else {
        s->rc = -ENOMEM;
    }
    free(text);
    kt_file_close(&f);
}

/* A Loader* variable: UTF-16LE up to its NUL, as UTF-8 (efivar_get: an odd
 * size is refused). */
static void load_var(struct kt_sdboot *s, const struct kt_efivars *vars, size_t i)
{
    static const enum kt_efivar_id ids[KT_SDBOOT_VARS] = {
        KT_EFIVAR_LOADER_ENTRY_DEFAULT, KT_EFIVAR_LOADER_ENTRY_ONESHOT, KT_EFIVAR_LOADER_ENTRY_LAST};
    size_t len, o = 0;
    const uint8_t *p = vars ? kt_efivar_data(&vars->var[ids[i]], &len) : NULL;
    if (!p)
        return;
    s->problem_file = vars->var[ids[i]].path;
    if (len % 2) {
        kt_sdboot_add_problem(s, 0, "an odd number of bytes: systemd-boot takes it as unset");
        return;
    }
    for (size_t k = 0; k + 1 < len; k += 2) {
        unsigned c = p[k] | (unsigned)p[k + 1] << 8;
        if (!c)
            break;
        if (o + 4 >= sizeof(s->var[i])) {
            kt_sdboot_add_problem(s, 0, "value too long for ktrust (kept truncated): which "
                                  "entry it picks is not answered");
            s->var_cut[i] = true;
            break;
        }
        if (c < 0x80) {
            s->var[i][o++] = (char)c;
        } else if (c < 0x800) {
            s->var[i][o++] = (char)(0xc0 | c >> 6);
            s->var[i][o++] = (char)(0x80 | (c & 0x3f));
        } else {
            s->var[i][o++] = (char)(0xe0 | c >> 12);
            s->var[i][o++] = (char)(0x80 | ((c >> 6) & 0x3f));
            s->var[i][o++] = (char)(0x80 | (c & 0x3f));
        }
    }
    s->var[i][o] = 0;
    s->var_set[i] = true;
}

int kt_sdboot_open(const char *esp, const struct kt_efivars *vars, struct kt_sdboot **out,
                   struct kt_error *err)
{
    *out = NULL;
    char real[KT_SDBOOT_PATH];
    struct stat st;
    if ((kt_esp_resolve(esp, "/loader", real, sizeof(real), &st) < 0 || !S_ISDIR(st.st_mode)) &&
        (kt_esp_resolve(esp, "/EFI/Linux", real, sizeof(real), &st) < 0 || !S_ISDIR(st.st_mode)))
        return kt_fail(err, -ENOENT, KT_NO_OFFSET, "no loader/ nor EFI/Linux/ on the ESP");
    struct kt_sdboot *s = calloc(1, sizeof(*s));
    if (!s)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    kt_sdboot_copy(s->esp, sizeof(s->esp), esp);
    load_conf(s);
    for (size_t i = 0; i < KT_SDBOOT_VARS; i++)
        load_var(s, vars, i);
    int rc = kt_sdboot_each_file(s, "/loader/entries", ".conf", true, type1, NULL);
    if (rc == 0)
        rc = kt_sdboot_scan_unified(s);
    if (rc == 0)
        rc = kt_sdboot_scan_addons(s, "/loader/addons", "");
    if (rc == 0)
        kt_sdboot_sort(s);
    for (size_t i = 0; i < s->n; i++)
        while (kt_sdboot_addon_at(s, i, s->e[i].n_addons))
            s->e[i].n_addons++;
    if (rc < 0 || s->rc < 0) {
        kt_sdboot_free(s);
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    }
    *out = s;
    return 0;
}

void kt_sdboot_free(struct kt_sdboot *s)
{
    if (!s)
        return;
    free(s->e);
    free(s->p);
    free(s->a);
    free(s);
}

size_t kt_sdboot_count(const struct kt_sdboot *s)
{
    return s->n;
}

const struct kt_sdboot_entry *kt_sdboot_entry_at(const struct kt_sdboot *s, size_t i)
{
    return i < s->n ? &s->e[i] : NULL;
}

const char *kt_sdboot_setting(const struct kt_sdboot *s, const char *key)
{
    for (size_t i = 0; i < KT_SDBOOT_SETTINGS; i++)
        if (!strcmp(key, kt_sdboot_setting_names[i]))
            return s->conf.set[i] ? s->conf.value[i] : NULL;
    return NULL;
}

const char *kt_sdboot_variable(const struct kt_sdboot *s, const char *name)
{
    static const char *const names[KT_SDBOOT_VARS] = {"LoaderEntryDefault", "LoaderEntryOneShot",
                                                      "LoaderEntryLastBooted"};
    for (size_t i = 0; i < KT_SDBOOT_VARS; i++)
        if (!strcmp(name, names[i]))
            return s->var_set[i] ? s->var[i] : NULL;
    return NULL;
}

size_t kt_sdboot_problem_count(const struct kt_sdboot *s)
{
    return s->np;
}

const struct kt_sdboot_problem *kt_sdboot_problem_at(const struct kt_sdboot *s, size_t i)
{
    return i < s->np ? &s->p[i] : NULL;
}

const struct kt_sdboot_addon *kt_sdboot_addon_at(const struct kt_sdboot *s, size_t i, size_t k)
{
    if (i >= s->n || s->e[i].kind != KT_SDBOOT_UKI)
        return NULL;
    for (int global = 0; global < 2; global++)
        for (size_t j = 0; j < s->na; j++)
            if (global ? !s->a[j].owner[0] : !strcmp(s->a[j].owner, s->e[i].source)) {
                if (k-- == 0)
                    return &s->a[j].a;
            }
    return NULL;
}

const char *kt_sdboot_kind_name(enum kt_sdboot_kind k)
{
    static const char *const names[] = {"linux", "efi", "uki"};
    return (unsigned)k < 3 ? names[k] : "?";
}
