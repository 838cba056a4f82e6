/* crypttab.c - the encrypted volumes a system unlocks at boot: the second
 * field of each /etc/crypttab line (a path, or UUID=, PARTUUID=, LABEL=,
 * PARTLABEL= resolved through /dev/disk/by-*), under a root. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seal/seal.h"
#include "util/err.h"
#include "util/file.h"

static const struct {
    const char *tag, *dir;
} by[] = {
    {"UUID=", "/dev/disk/by-uuid/"},
    {"PARTUUID=", "/dev/disk/by-partuuid/"},
    {"LABEL=", "/dev/disk/by-label/"},
    {"PARTLABEL=", "/dev/disk/by-partlabel/"},
};

static int add(char ***v, size_t *n, const char *root, const char *dir, const char *rest)
{
    char **nv = realloc(*v, (*n + 1) * sizeof(**v));
    if (!nv)
        return -ENOMEM;
    *v = nv;
    char in[4200], out[4200];
    snprintf(in, sizeof(in), "%s%s", dir, rest);
    /* under a root, links resolved inside it (never a host's device) */
    if (!*root || kt_root_resolve(root, in, out, sizeof(out), NULL) < 0)
        snprintf(out, sizeof(out), "%s%s", root, in);
    if (!(nv[*n] = strdup(out)))
        return -ENOMEM;
    (*n)++;
    return 0;
}

/* One line's device field, or NULL for a comment or a blank line. */
static const char *device_field(char *line)
{
    char *save = NULL;
    char *name = strtok_r(line, " \t\n", &save);
    if (!name || name[0] == '#')
        return NULL;
    return strtok_r(NULL, " \t\n", &save);
}

int kt_seal_crypttab(const char *root, char ***out, size_t *n, struct kt_error *err)
{
    *out = NULL;
    *n = 0;
    const char *r = root && strcmp(root, "/") ? root : "";
    char path[4200];
    snprintf(path, sizeof(path), "%s/etc/crypttab", r);
    FILE *f = fopen(path, "r");
    if (!f)
        return kt_fail(err, -errno, KT_NO_OFFSET, "%s: %s", path, strerror(errno));
    char line[4096];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        const char *dev = device_field(line);
        if (!dev)
            continue;
        size_t k = 0;
        while (k < sizeof(by) / sizeof(by[0]) && strncmp(dev, by[k].tag, strlen(by[k].tag)))
            k++;
        if (k < sizeof(by) / sizeof(by[0]))
            rc = add(out, n, r, by[k].dir, dev + strlen(by[k].tag));
        else
            rc = add(out, n, r, "", dev);
    }
    fclose(f);
    if (rc < 0)
        kt_seal_crypttab_free(*out, *n), *out = NULL, *n = 0;
    return rc;
}

void kt_seal_crypttab_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}
