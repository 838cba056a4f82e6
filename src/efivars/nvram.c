/* nvram.c - does a variable write fit in the firmware's NVRAM
 * (ktrust/nvram.h): EDK2's per-variable limit and the store's free space,
 * the store's numbers from efivarfs' statfs (QueryVariableInfo) or a saved
 * copy of them, and shim's runtime mirrors. */
#include "ktrust/nvram.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>

#include "util/err.h"
#include "util/file.h"
#include "util/fmt.h"

#define EFIVARFS_MAGIC 0xde5e81e4u

size_t kt_nv_var_size(const char *name, size_t data_len)
{
    size_t name16 = 2 * (strlen(name) + 1);
    return KT_NV_AUTH_HEADER + ((name16 + 3) & ~(size_t)3) + data_len;
}

/* statfs of an efivarfs mount: f_blocks and f_bfree in f_bsize units are
 * QueryVariableInfo's MaximumVariableStorageSize and
 * RemainingVariableStorageSize (0 when firmware does not report them). */
static int from_statfs(const char *dir, struct kt_nv_limits *out)
{
    struct statfs st;
    if (statfs(dir, &st) < 0 || (uint32_t)st.f_type != EFIVARFS_MAGIC || st.f_blocks == 0)
        return 0;
    out->store_size = (uint64_t)st.f_blocks * (uint64_t)st.f_bsize;
    out->store_free = (uint64_t)st.f_bfree * (uint64_t)st.f_bsize;
    out->free_known = true;
    kt_fmt(out->source, sizeof(out->source), "efivarfs statfs");
    return 1;
}

/* The saved numbers beside dir: DIR/../KT_NV_SAVED_NAME. */
static int from_saved(const char *dir, struct kt_nv_limits *out)
{
    char path[KT_EFIVARS_PATH + 32];
    kt_fmt(path, sizeof(path), "%s/../%s", dir, KT_NV_SAVED_NAME);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char key[32];
    uint64_t v;
    bool size = false, free = false;
    while (fscanf(f, "%31s %" SCNu64, key, &v) == 2) {
        if (!strcmp(key, "storage_space")) {
            out->store_size = v;
            size = true;
        } else if (!strcmp(key, "remaining_space")) {
            out->store_free = v;
            free = true;
        }
    }
    fclose(f);
    if (!size || !free || !out->store_size)
        return 0;
    out->free_known = true;
    kt_fmt(out->source, sizeof(out->source), "saved statfs");
    return 1;
}

int kt_nv_limits_read(const char *dir, struct kt_nv_limits *out)
{
    memset(out, 0, sizeof(*out));
    if (!dir || !dir[0])
        return 0;
    if (from_statfs(dir, out) || from_saved(dir, out))
        return 1;
    memset(out, 0, sizeof(*out));
    return 0;
}

int kt_nv_limits_save(const char *dir, const char *path)
{
    struct kt_nv_limits l;
    if (!kt_nv_limits_read(dir, &l))
        return 0;
    char text[128];
    int n = snprintf(text, sizeof(text), "storage_space %" PRIu64 "\nremaining_space %" PRIu64 "\n",
                     l.store_size, l.store_free);
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_write_atomic(path, text, (size_t)n, &e);
    return rc < 0 ? rc : 1;
}

void kt_nv_fit(const struct kt_efivars *was, const struct kt_efivars *now, enum kt_efivar_id id,
               const struct kt_nv_limits *lim, uint64_t free, bool free_known,
               struct kt_nv_fit *out)
{
    memset(out, 0, sizeof(*out));
    out->var = id;
    const char *name = kt_efivar_name(id);
    bool had = kt_efivar_data(&was->var[id], &out->data_before) != NULL;
    bool has = kt_efivar_data(&now->var[id], &out->data_after) != NULL;
    out->before = had ? kt_nv_var_size(name, out->data_before) : 0;
    out->after = has ? kt_nv_var_size(name, out->data_after) : 0;
    out->write = out->after;
    out->too_big = lim && lim->max_var ? out->after > lim->max_var : -1;
    out->no_room = free_known ? out->write > free : -1;
    if (free_known && out->no_room == 0)
        out->free_after = free - out->after + out->before;
    else if (free_known)
        out->free_after = free;
}

int kt_nv_check_write(const struct kt_efivars *was, const struct kt_efivars *now,
                      enum kt_efivar_id id, const struct kt_nv_limits *lim, uint64_t *free,
                      struct kt_nv_fit *fit, struct kt_error *err)
{
    struct kt_nv_fit f;
    kt_nv_fit(was, now, id, lim, *free, lim->free_known, &f);
    if (fit)
        *fit = f;
    char a[32], b[32];
    if (f.too_big == 1)
        return kt_fail(err, -EPERM, KT_NO_OFFSET,
                       "does not fit: this %s would be %s bytes; this firmware takes at most %s "
                       "per variable", kt_efivar_name(id), kt_thousands(f.after, a),
                       kt_thousands(lim->max_var, b));
    if (f.no_room == 1)
        return kt_fail(err, -EPERM, KT_NO_OFFSET,
                       "does not fit: the write needs %s bytes free (a new copy of %s); the "
                       "store has %s", kt_thousands(f.write, a), kt_efivar_name(id),
                       kt_thousands(*free, b));
    if (lim->free_known)
        *free = f.free_after;
    return 0;
}

int kt_efivars_apply_file_nv(struct kt_efivars *s, const char *path,
                             const struct kt_nv_limits *lim, uint64_t *free,
                             struct kt_efivars_change *c)
{
    struct kt_efivars was;
    if (kt_efivars_copy(s, &was) < 0) {
        memset(c, 0, sizeof(*c));
        c->target = KT_EFIVAR__COUNT;
        return c->verdict = -ENOMEM;
    }
    int rc = kt_efivars_apply_file(s, path, c);
    if (rc == 0 && c->target < KT_EFIVAR__COUNT) {
        struct kt_error e = KT_ERROR_INIT;
        if (kt_nv_check_write(&was, s, c->target, lim, free, NULL, &e) < 0) {
            kt_efivars_change_free(c);
            c->verdict = rc = -EPERM;
            c->error = e;
            kt_efivars_free(s);
            *s = was;
            return rc;
        }
    }
    kt_efivars_free(&was);
    return rc;
}

void kt_nv_shim_mirrors(const struct kt_efivars *s, uint64_t free, bool free_known,
                        struct kt_nv_shim *out)
{
    static const enum kt_efivar_id mirrors[4] = {KT_EFIVAR_MOKLIST, KT_EFIVAR_MOKLISTX,
                                                 KT_EFIVAR_SBAT_LEVEL_RT,
                                                 KT_EFIVAR_MOKLIST_TRUSTED};
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < 4; i++) {
        size_t len;
        if (!kt_efivar_data(&s->var[mirrors[i]], &len))
            continue;
        out->size[i] = kt_nv_var_size(kt_efivar_name(mirrors[i]), len);
        out->total += out->size[i];
        out->known = true;
    }
    out->room = out->known && free_known ? out->total <= free : -1;
}
