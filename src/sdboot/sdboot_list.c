/* sdboot_list.c - the lists a systemd-boot reading builds (entries,
 * problems, add-ons) and the one walk of an ESP directory's files (by name,
 * case-blind suffix, hidden files skipped, links leaving the ESP refused). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "boot/esp.h"
#include "sdboot/sdboot.h"

void kt_sdboot_add_problem(void *ctx, unsigned line, const char *reason)
{
    struct kt_sdboot *s = ctx;
    struct kt_sdboot_problem *p = realloc(s->p, (s->np + 1) * sizeof(*p));
    if (!p) {
        s->rc = -ENOMEM;
        return;
    }
    s->p = p;
    p += s->np++;
    kt_sdboot_copy(p->file, sizeof(p->file), s->problem_file ? s->problem_file : "");
    p->line = line;
    kt_sdboot_copy(p->reason, sizeof(p->reason), reason);
}

int kt_sdboot_add_entry(struct kt_sdboot *s, const struct kt_sdboot_entry *e)
{
    struct kt_sdboot_entry *n = realloc(s->e, (s->n + 1) * sizeof(*n));
    if (!n)
        return s->rc = -ENOMEM;
    s->e = n;
    s->e[s->n++] = *e;
    return 0;
}

int kt_sdboot_add_addon(struct kt_sdboot *s, const char *owner, const char *path, const char *resolved)
{
    struct kt_sdboot_owned_addon *a = realloc(s->a, (s->na + 1) * sizeof(*a));
    if (!a)
        return s->rc = -ENOMEM;
    s->a = a;
    a += s->na++;
    memset(a, 0, sizeof(*a));
    kt_sdboot_copy(a->owner, sizeof(a->owner), owner);
    kt_sdboot_copy(a->a.path, sizeof(a->a.path), path);
    kt_sdboot_copy(a->a.resolved, sizeof(a->a.resolved), resolved);
    a->a.global = !owner[0];
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of dir's files that end in suffix (case-blind), sorted. */
static int list(const char *real, const char *suffix, bool skip_auto, char ***out, size_t *n)
{
    DIR *d = opendir(real);
    if (!d)
        return -errno;
    size_t sl = strlen(suffix);
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        if (de->d_name[0] == '.' || l <= sl || strcasecmp(de->d_name + l - sl, suffix) ||
            (skip_auto && !strncmp(de->d_name, "auto-", 5)))
            continue;
        char **v = realloc(*out, (*n + 1) * sizeof(*v));
        char *name = strdup(de->d_name);
        if (v)
            *out = v;
        if (!v || !name) {
            free(name);
            rc = -ENOMEM;
        } else {
            (*out)[(*n)++] = name;
        }
    }
    closedir(d);
    if (*n)
        qsort(*out, *n, sizeof(**out), by_name);
    return rc;
}

int kt_sdboot_each_file(struct kt_sdboot *s, const char *dir, const char *suffix, bool skip_auto,
                        kt_sdboot_file_fn fn, void *ctx)
{
    char real[KT_SDBOOT_PATH], rel[KT_SDBOOT_PATH], file[KT_SDBOOT_PATH];
    struct stat st;
    if (kt_esp_resolve(s->esp, dir, real, sizeof(real), &st) < 0 || !S_ISDIR(st.st_mode))
        return 0;
    char **names = NULL;
    size_t n = 0;
    int rc = list(real, suffix, skip_auto, &names, &n);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        snprintf(rel, sizeof(rel), "%s/%.*s", dir, (int)(sizeof(rel) - strlen(dir) - 2), names[i]);
        int r = kt_esp_file(s->esp, rel, file, sizeof(file));
        s->problem_file = rel;
        if (r == -EXDEV || r == -ELOOP)
            kt_sdboot_add_problem(s, 0, "a link that leaves the ESP: ktrust does not follow it");
        else if (r == 0)
            rc = fn(s, rel, file, names[i], ctx);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc < 0 ? rc : s->rc;
}
