/* efivars.c - read an efivarfs directory into a kt_efivars state. */
#include "efivars/efivars.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "boot/vars.h"
#include "util/file.h"

/* The names are the catalogue's (src/boot/vars.c). */
const char *kt_efivar_name(enum kt_efivar_id id)
{
    const struct kt_var_info *v = kt_var_info(id);
    return v ? v->name : "?";
}

/* Read one file into v (present, or unreadable with the reason). */
static int load(struct kt_efivar *v, const char *dir, const char *file)
{
    snprintf(v->path, sizeof(v->path), "%s/%s", dir, file);
    v->error = (struct kt_error)KT_ERROR_INIT;
    struct kt_file f = {0};
    struct stat st;
    if (lstat(v->path, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* efivarfs holds no links: one under an audited root must not lead
         * to a file of the host's */
        v->state = KT_EFIVAR_UNREADABLE;
        kt_fail(&v->error, -ELOOP, KT_NO_OFFSET, "a symbolic link (efivarfs holds none)");
        return 0;
    }
    if (kt_file_open(v->path, &f, &v->error) < 0) {
        v->state = KT_EFIVAR_UNREADABLE;
        return 0;
    }
    v->raw = malloc(f.len ? f.len : 1);
    if (!v->raw) {
        kt_file_close(&f);
        return -ENOMEM;
    }
    memcpy(v->raw, f.data, f.len);
    v->raw_len = f.len;
    v->state = KT_EFIVAR_PRESENT;
    kt_file_close(&f);
    return 0;
}

/* "Boot####" (four upper-case hex digits): the number, else -1. */
static long boot_number(const char *name, size_t len)
{
    if (len != 8 || strncmp(name, "Boot", 4))
        return -1;
    long n = 0;
    for (size_t i = 4; i < 8; i++) {
        char c = name[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        n = n * 16 + d;
    }
    return n;
}

static int add_boot(struct kt_efivars *s, unsigned number, const char *dir, const char *file)
{
    if (kt_efivars_boot(s, number))
        return 0; /* the first in directory order, as for every variable */
    struct kt_efivar_boot *b = realloc(s->boot, (s->n_boot + 1) * sizeof(*b));
    if (!b)
        return -ENOMEM;
    s->boot = b;
    memset(&b[s->n_boot], 0, sizeof(*b));
    b[s->n_boot].number = number;
    s->n_boot++;
    return load(&b[s->n_boot - 1].var, dir, file);
}

/* One directory entry NAME-GUID (a GUID of 36 characters). */
static int take(struct kt_efivars *s, const char *dir, const char *file)
{
    size_t len = strlen(file);
    if (len < 38 || file[len - 37] != '-')
        return 0;
    size_t nl = len - 37;
    for (int i = 0; i < KT_EFIVAR__COUNT; i++)
        if (strlen(kt_var_info(i)->name) == nl && !strncmp(file, kt_var_info(i)->name, nl))
            return s->var[i].state == KT_EFIVAR_ABSENT ? load(&s->var[i], dir, file) : 0;
    long n = boot_number(file, nl);
    return n >= 0 ? add_boot(s, (unsigned)n, dir, file) : 0;
}

int kt_efivars_read(const char *dir, struct kt_efivars *s, struct kt_error *err)
{
    memset(s, 0, sizeof(*s));
    DIR *d = opendir(dir);
    if (!d)
        return kt_fail(err, -errno, KT_NO_OFFSET, "cannot open: %s", strerror(errno));
    snprintf(s->dir, sizeof(s->dir), "%s", dir);
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d)) != NULL)
        rc = take(s, dir, de->d_name);
    closedir(d);
    if (rc < 0) {
        kt_efivars_free(s);
        return kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    }
    return 0;
}

void kt_efivars_free(struct kt_efivars *s)
{
    for (int i = 0; i < KT_EFIVAR__COUNT; i++)
        free(s->var[i].raw);
    for (size_t i = 0; i < s->n_boot; i++)
        free(s->boot[i].var.raw);
    free(s->boot);
    memset(s, 0, sizeof(*s));
}

const uint8_t *kt_efivar_data(const struct kt_efivar *v, size_t *len)
{
    *len = 0;
    if (!v || v->state != KT_EFIVAR_PRESENT)
        return NULL;
    *len = v->raw_len > 4 ? v->raw_len - 4 : 0;
    return v->raw + (v->raw_len > 4 ? 4 : v->raw_len);
}

int kt_efivars_byte(const struct kt_efivars *s, enum kt_efivar_id id)
{
    size_t len;
    const uint8_t *p = kt_efivar_data(&s->var[id], &len);
    return p && len >= 1 ? p[0] != 0 : -1;
}

int kt_efivars_sbat_level(const struct kt_efivars *s, struct kt_sbat_level *out,
                          const struct kt_efivar **which, struct kt_error *err)
{
    const struct kt_efivar *v = &s->var[KT_EFIVAR_SBAT_LEVEL_RT];
    if (v->state == KT_EFIVAR_ABSENT)
        v = &s->var[KT_EFIVAR_SBAT_LEVEL];
    *which = v;
    if (v->state == KT_EFIVAR_ABSENT)
        return 0;
    if (v->state == KT_EFIVAR_UNREADABLE) {
        if (err)
            *err = v->error;
        return v->error.code ? v->error.code : -EIO;
    }
    int rc = kt_sbat_level_parse(v->raw, v->raw_len, out, err);
    if (rc < 0)
        return rc;
    snprintf(out->source, sizeof(out->source), "variable");
    return 1;
}

const struct kt_efivar *kt_efivars_boot(const struct kt_efivars *s, unsigned number)
{
    for (size_t i = 0; i < s->n_boot; i++)
        if (s->boot[i].number == number)
            return &s->boot[i].var;
    return NULL;
}

static int copy_var(const struct kt_efivar *v, struct kt_efivar *o)
{
    *o = *v;
    o->raw = NULL;
    if (!v->raw)
        return 0;
    o->raw = malloc(v->raw_len ? v->raw_len : 1);
    if (!o->raw)
        return -ENOMEM;
    memcpy(o->raw, v->raw, v->raw_len);
    return 0;
}

int kt_efivars_copy(const struct kt_efivars *s, struct kt_efivars *out)
{
    memset(out, 0, sizeof(*out));
    memcpy(out->dir, s->dir, sizeof(out->dir));
    int rc = 0;
    for (int i = 0; rc == 0 && i < KT_EFIVAR__COUNT; i++)
        rc = copy_var(&s->var[i], &out->var[i]);
    if (rc == 0 && s->n_boot) {
        out->boot = calloc(s->n_boot, sizeof(*out->boot));
        if (!out->boot)
            rc = -ENOMEM;
        for (size_t i = 0; rc == 0 && i < s->n_boot; i++, out->n_boot++) {
            out->boot[i].number = s->boot[i].number;
            rc = copy_var(&s->boot[i].var, &out->boot[i].var);
        }
    }
    if (rc < 0)
        kt_efivars_free(out);
    return rc;
}
