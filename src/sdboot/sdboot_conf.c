/* sdboot_conf.c - systemd-boot 252's configuration files: the line reader
 * (line_get_key_value), loader/loader.conf (config_defaults_load_from_file)
 * and Type #1 entries (config_entry_add_type1).  A line systemd-boot
 * skips or a value it refuses is a problem (file, line, reason). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sdboot/sdboot.h"

int kt_sdboot_line(struct kt_sdboot_lines *l, char **key, char **value, kt_sdboot_problem_fn add,
                   void *ctx)
{
    for (;;) {
        char *line = l->text + l->pos;
        if (!*line)
            return 0;
        l->line = l->newlines + 1;
        size_t len = strcspn(line, "\n\r");
        l->newlines += line[len] == '\n'; /* "\r\n": the '\n' ends an empty line of its own */
        l->pos += len + (line[len] != 0);
        line[len] = 0;
        if (!len)
            continue;
        while (*line == ' ' || *line == '\t')
            line++, len--;
        while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
            len--;
        line[len] = 0;
        if (!len || line[0] == '#')
            continue;
        char *v = line + strcspn(line, l->sep);
        if (!*v) {
            if (add) {
                char why[KT_SDBOOT_TEXT];
                snprintf(why, sizeof(why), "'%.60s' has no value: systemd-boot skips the line", line);
                add(ctx, l->line, why);
            }
            continue;
        }
        *v++ = 0;
        v += strspn(v, l->sep);
        if (v[0] == '"' && line[len - 1] == '"' && v != line + len - 1) {
            v++;
            line[len - 1] = 0;
        }
        *key = line;
        *value = v;
        return 1;
    }
}

bool kt_sdboot_copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    bool fits = n < cap;
    if (!fits)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
    return fits;
}

bool kt_sdboot_to_path(char *dst, size_t cap, const char *src)
{
    size_t j = 0;
    dst[j++] = '/';
    for (; *src; src++) {
        char c = *src == '\\' ? '/' : *src;
        if (c == '/' && dst[j - 1] == '/')
            continue;
        if (j + 1 >= cap) {
            dst[j] = 0;
            return false;
        }
        dst[j++] = c;
    }
    dst[j] = 0;
    return true;
}

void kt_sdboot_lower(char *s)
{
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'Z')
            *s = (char)(*s - 'A' + 'a');
}

/* A decimal number at *p (parse_number: digits only), advancing *p. */
static bool number(const char **p, unsigned long long *v)
{
    if (**p < '0' || **p > '9')
        return false;
    *v = 0;
    for (; **p >= '0' && **p <= '9'; (*p)++) {
        if (*v > (1ull << 60))
            return false;
        *v = *v * 10 + (unsigned)(**p - '0');
    }
    return true;
}

void kt_sdboot_tries(const char *name, const char *suffix, int *left, int *done)
{
    *left = *done = -1;
    const char *plus = strrchr(name, '+');
    if (!plus)
        return;
    const char *c = plus + 1;
    unsigned long long l, d = 0;
    if (!number(&c, &l) || l > 0x7fffffff)
        return;
    if (*c == '-' && (c++, !number(&c, &d) || d > 0x7fffffff))
        return;
    if (strcmp(c, suffix) != 0)
        return; /* a counter in the middle of the name */
    *left = (int)l;
    *done = (int)d;
}

/* Append value to dst (a space between), as options= and initrd= gather. */
static bool append(char *dst, size_t cap, const char *value)
{
    size_t n = strlen(dst);
    if (n && n + 1 < cap)
        dst[n++] = ' ';
    return kt_sdboot_copy(dst + n, cap - n, value);
}

static void too_long(kt_sdboot_problem_fn add, void *ctx, unsigned line, const char *key)
{
    char why[KT_SDBOOT_TEXT];
    snprintf(why, sizeof(why), "%s: value too long for ktrust (kept truncated)", key);
    if (add)
        add(ctx, line, why);
}

/* One key of a Type #1 entry: 1 taken, 0 unknown (ignored, as the Boot
 * Loader Specification lets other programs add keys), -1 drop the entry. */
static int entry_key(struct kt_sdboot_entry *e, const char *k, const char *v, bool *ok)
{
    static const struct {
        const char *key;
        size_t off, cap;
    } text[] = {
        {"title", offsetof(struct kt_sdboot_entry, title), KT_SDBOOT_TEXT},
        {"sort-key", offsetof(struct kt_sdboot_entry, sort_key), KT_SDBOOT_TEXT},
        {"version", offsetof(struct kt_sdboot_entry, version), KT_SDBOOT_TEXT},
        {"machine-id", offsetof(struct kt_sdboot_entry, machine_id), KT_SDBOOT_TEXT},
    };
    for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++)
        if (!strcmp(k, text[i].key)) {
            *ok = kt_sdboot_copy((char *)e + text[i].off, text[i].cap, v);
            return 1;
        }
    if (!strcmp(k, "linux") || !strcmp(k, "efi")) {
        e->kind = k[0] == 'l' ? KT_SDBOOT_LINUX : KT_SDBOOT_EFI;
        *ok = kt_sdboot_to_path(e->image, sizeof(e->image), v);
        return 1;
    }
    if (!strcmp(k, "architecture"))
        return strcmp(v, "x64") == 0 ? 1 : -1; /* EFI_MACHINE_TYPE_NAME, case and all */
    if (!strcmp(k, "devicetree")) {
        *ok = kt_sdboot_to_path(e->devicetree, sizeof(e->devicetree), v);
        return 1;
    }
    if (!strcmp(k, "initrd") || !strcmp(k, "options")) {
        char path[KT_SDBOOT_PATH];
        bool in = k[0] != 'i' || kt_sdboot_to_path(path, sizeof(path), v);
        *ok = in && append(k[0] == 'i' ? e->initrd : e->options,
                           k[0] == 'i' ? sizeof(e->initrd) : sizeof(e->options), k[0] == 'i' ? path : v);
        return 1;
    }
    return 0;
}

int kt_sdboot_entry_parse(const char *text, size_t len, const char *name,
                          struct kt_sdboot_entry *e, kt_sdboot_problem_fn add, void *ctx,
                          char *why, size_t cap)
{
    memset(e, 0, sizeof(*e));
    e->kind = (enum kt_sdboot_kind)-1;
    kt_sdboot_copy(e->id, sizeof(e->id), name);
    kt_sdboot_lower(e->id);
    kt_sdboot_tries(name, ".conf", &e->tries_left, &e->tries_done);
    snprintf(why, cap, "%s", "");
    size_t n = strnlen(text, len);
    char *buf = malloc(n + 1);
    if (!buf)
        return -ENOMEM;
    memcpy(buf, text, n);
    buf[n] = 0;
    if (n < len && add)
        add(ctx, 0, "a NUL byte: systemd-boot reads no further");
    struct kt_sdboot_lines l = {.text = buf, .sep = " \t"};
    char *k, *v;
    int keep = 1;
    while (keep && kt_sdboot_line(&l, &k, &v, add, ctx)) {
        bool ok = true;
        int r = entry_key(e, k, v, &ok);
        if (r < 0) {
            snprintf(why, cap, "line %u: architecture '%.40s' is not x64", l.line, v);
            keep = 0;
        } else if (!ok) {
            too_long(add, ctx, l.line, k);
        }
    }
    free(buf);
    if (keep && e->kind == (enum kt_sdboot_kind)-1) {
        snprintf(why, cap, "%s", "neither linux nor efi: systemd-boot drops the entry");
        keep = 0;
    }
    return keep;
}

const char *const kt_sdboot_setting_names[KT_SDBOOT_SETTINGS] = {
    "default", "timeout", "editor", "auto-entries", "auto-firmware", "beep",
    "reboot-for-bitlocker", "secure-boot-enroll", "console-mode", "random-seed-mode",
};

static bool one_of(const char *v, const char *const *words)
{
    for (; *words; words++)
        if (!strcmp(v, *words))
            return true;
    return false;
}

/* Is v a value systemd 252 takes for setting i? */
static bool setting_ok(size_t i, const char *v)
{
    static const char *const booleans[] = {"1", "yes", "y", "true", "t", "on",
                                           "0", "no", "n", "false", "f", "off", NULL};
    static const char *const timeouts[] = {"menu-force", "menu-hidden", NULL};
    static const char *const enroll[] = {"manual", "force", "off", NULL};
    static const char *const console[] = {"auto", "max", "keep", NULL};
    static const char *const seed[] = {"off", "with-system-token", "always", NULL};
    const char *p = v;
    unsigned long long u = 0;
    bool num = number(&p, &u) && !*p;
    switch (i) {
    case 0: return v[0] != '@' || !strcasecmp(v, "@saved");
    case 1: return one_of(v, timeouts) || (num && u <= 0xfffffffdull);
    case 7: return one_of(v, enroll);
    case 8: return one_of(v, console) || (num && u <= 0x7fffffffull);
    case 9: return one_of(v, seed) || one_of(v, booleans);
    default: return one_of(v, booleans);
    }
}

void kt_sdboot_conf_parse(char *text, struct kt_sdboot_conf *c, kt_sdboot_problem_fn add, void *ctx)
{
    struct kt_sdboot_lines l = {.text = text, .sep = " \t"};
    char *k, *v, why[KT_SDBOOT_TEXT];
    while (kt_sdboot_line(&l, &k, &v, add, ctx)) {
        size_t i = 0;
        while (i < KT_SDBOOT_SETTINGS && strcmp(k, kt_sdboot_setting_names[i]) != 0)
            i++;
        if (i == KT_SDBOOT_SETTINGS)
            snprintf(why, sizeof(why), "unknown key '%.60s': systemd-boot 252 ignores the line", k);
        else if (!setting_ok(i, v))
            snprintf(why, sizeof(why), "%s: '%.60s' is not a value systemd-boot 252 takes: it ignores "
                     "the line", k, v);
        else if (!(c->cut[i] = !kt_sdboot_copy(c->value[i], sizeof(c->value[i]), v)))
            why[0] = 0;
        else
            snprintf(why, sizeof(why), "%s: value too long for ktrust (kept truncated)", k);
        if (i < KT_SDBOOT_SETTINGS && setting_ok(i, v))
            c->set[i] = true;
        if (why[0] && add)
            add(ctx, l.line, why);
    }
}
