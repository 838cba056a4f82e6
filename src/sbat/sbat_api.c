/* sbat_api.c - the handles of ktrust/sbat.h over the structs of sbat.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbat/sbat.h"

static int oom(struct kt_error *err)
{
    return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
}

int kt_sbat_open_image(const uint8_t *image, size_t len, struct kt_sbat **out,
                       struct kt_error *err)
{
    *out = NULL;
    struct kt_pe *pe = NULL;
    int rc = kt_pe_parse(image, len, &pe, err);
    if (rc < 0)
        return rc;
    struct kt_sbat *s = calloc(1, sizeof(*s));
    if (!s)
        rc = oom(err);
    else if ((rc = kt_sbat_from_pe(pe, s, err)) < 0)
        kt_sbat_close(s);
    else
        *out = s;
    kt_pe_free(pe);
    return rc;
}

int kt_sbat_open_csv(const uint8_t *buf, size_t len, size_t base, struct kt_sbat **out,
                     struct kt_error *err)
{
    *out = NULL;
    struct kt_sbat *s = calloc(1, sizeof(*s));
    if (!s)
        return oom(err);
    int rc = kt_sbat_parse(buf, len, base, s, err);
    if (rc < 0) {
        kt_sbat_close(s);
        return rc;
    }
    s->present = true;
    *out = s;
    return 0;
}

void kt_sbat_close(struct kt_sbat *s)
{
    if (!s)
        return;
    kt_sbat_free(s);
    free(s);
}

bool kt_sbat_present(const struct kt_sbat *s) { return s && s->present; }
size_t kt_sbat_count(const struct kt_sbat *s) { return s ? s->n : 0; }

const struct kt_sbat_entry *kt_sbat_entry_at(const struct kt_sbat *s, size_t i)
{
    return s && i < s->n ? &s->entries[i] : NULL;
}

const char *kt_sbat_entry_col(const struct kt_sbat_entry *e, enum kt_sbat_column col,
                              size_t *len)
{
    if ((unsigned)col >= KT_SBAT_NCOLS) {
        *len = 0;
        return "";
    }
    *len = e->col[col].len;
    return e->col[col].p ? (const char *)e->col[col].p : "";
}

unsigned kt_sbat_entry_generation(const struct kt_sbat_entry *e) { return e->generation; }
size_t kt_sbat_entry_offset(const struct kt_sbat_entry *e) { return e->offset; }

int kt_sbat_level_open_buf(const uint8_t *buf, size_t len, const char *source,
                           struct kt_sbat_level **out, struct kt_error *err)
{
    *out = NULL;
    struct kt_sbat_level *l = calloc(1, sizeof(*l));
    if (!l)
        return oom(err);
    int rc = kt_sbat_level_parse(buf, len, l, err);
    if (rc < 0) {
        kt_sbat_level_free(l);
        free(l);
        return rc;
    }
    if (source)
        snprintf(l->source, sizeof(l->source), "%s", source);
    *out = l;
    return 0;
}

const char *kt_sbat_level_stamp(const struct kt_sbat_level *l) { return l->stamp; }
const char *kt_sbat_level_source(const struct kt_sbat_level *l) { return l->source; }
size_t kt_sbat_level_count(const struct kt_sbat_level *l) { return l ? l->n : 0; }

const struct kt_sbat_entry *kt_sbat_level_entry_at(const struct kt_sbat_level *l, size_t i)
{
    return l && i < l->n ? &l->entries[i] : NULL;
}

int kt_sbat_check_level(const struct kt_sbat *image, const struct kt_sbat_level *level,
                        const struct kt_sbat_entry **img, const struct kt_sbat_entry **lvl,
                        struct kt_error *err)
{
    const struct kt_sbat_entry *i = NULL, *v = NULL;
    int rc = kt_sbat_check(image, level, &i, &v, err);
    if (img)
        *img = i;
    if (lvl)
        *lvl = v;
    return rc;
}
