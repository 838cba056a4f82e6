/* sbat_level.c - SbatLevel payloads: parse, the built-in ones, a shim's
 * .sbatlevel section, and --sbat-level SPEC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbat/internal.h"
#include "util/le.h"
#include "util/file.h"

/* From rhboot/shim SbatLevel_Variable.txt (the corpus copy at
 * peers/shim-sbat): the payloads shim 16.x builds in. */
static const struct {
    const char *name, *text;
} builtins[] = {
    {"original", "sbat,1,2021030218\n"},
    {"automatic", "sbat,1,2024040900\nshim,4\ngrub,4\ngrub.peimage,2\n"},
    {"latest", "sbat,1,2025051000\nshim,4\ngrub,5\ngrub.proxmox,2\n"},
};

const char *kt_sbat_builtin(const char *name)
{
    for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
        if (!strcmp(name, builtins[i].name))
            return builtins[i].text;
    return NULL;
}

/* An efivarfs attribute word in front of the payload, by its value. */
static bool attribute_word(const uint8_t *buf, size_t len, uint32_t *attrs)
{
    static const uint32_t known =
        KT_SBAT_ATTR_NV | KT_SBAT_ATTR_BS | KT_SBAT_ATTR_RT | KT_SBAT_ATTR_TIME_AUTH;
    if (len < 4)
        return false;
    uint32_t a = (uint32_t)buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 |
                 (uint32_t)buf[3] << 24;
    if ((a & ~known) || !(a & KT_SBAT_ATTR_BS))
        return false;
    *attrs = a;
    return true;
}

int kt_sbat_level_parse(const uint8_t *buf, size_t len, struct kt_sbat_level *out,
                        struct kt_error *err)
{
    memset(out, 0, sizeof(*out));
    if (attribute_word(buf, len, &out->attributes)) {
        out->has_attributes = true;
        out->payload_off = 4;
    }
    out->text = malloc(len + 1);
    if (!out->text)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    if (len)
        memcpy(out->text, buf, len);
    out->text[len] = '\0';
    out->text_len = len;
    size_t skip = out->payload_off;
    int rc = kt_sbat_csv(out->text + skip, len - skip, skip, 2, 3, "SbatLevel", &out->entries,
                         &out->n, err);
    if (rc < 0) {
        kt_sbat_level_free(out);
        return rc;
    }
    if (out->n && out->entries[0].ncols >= 3) {
        const struct kt_sbat_entry *f = &out->entries[0];
        if (f->col[0].len == 4 && !memcmp(f->col[0].p, "sbat", 4))
            kt_sbat_col(f, 2, out->stamp, sizeof(out->stamp));
    }
    snprintf(out->source, sizeof(out->source), "payload");
    return 0;
}

/* shim's nth_sbat_field: the index where the n-th comma-separated field of
 * str starts, scanning at most limit bytes and stopping at a NUL (the index
 * it stopped at when there are fewer fields). */
static size_t nth_field(const char *str, size_t limit, int n)
{
    size_t i;
    for (i = 0; i < limit && str[i] != '\0'; i++) {
        if (n == 0)
            return i;
        if (str[i] == ',')
            n--;
    }
    return i;
}

bool kt_sbat_level_preserve(const struct kt_sbat_level *cur, const char *cand, char *why,
                            size_t cap)
{
    static const char sig[] = "sbat,", original[] = "sbat,1,2021030218\n";
    const char *c = (const char *)cur->text + cur->payload_off;
    size_t size = cur->text_len - cur->payload_off; /* c[size] is the NUL after it */
    uint32_t a = cur->attributes;
    if (cur->has_attributes && (a & KT_SBAT_ATTR_NV) &&
        a != (KT_SBAT_ATTR_NV | KT_SBAT_ATTR_BS) &&
        a != (KT_SBAT_ATTR_NV | KT_SBAT_ATTR_BS | KT_SBAT_ATTR_TIME_AUTH)) {
        snprintf(why, cap, "its attributes 0x%x are not the 0x3 or 0x23 shim accepts", a);
        return false;
    }
    if (size < sizeof(original) - 1) {
        snprintf(why, cap, "it is shorter than \"sbat,1,2021030218\\n\" (%zu bytes)", size);
        return false;
    }
    if (strncmp(c, sig, sizeof(sig) - 1) != 0) {
        snprintf(why, cap, "it does not start with \"sbat,\"");
        return false;
    }
    size_t nlim = strlen(cand) + 1;
    size_t cv = nth_field(c, size, 1), cd = nth_field(c, size, 2);
    size_t nv = nth_field(cand, nlim, 1), nd = nth_field(cand, nlim, 2);
    long cvl = (long)cd - (long)cv - 1, nvl = (long)nd - (long)nv - 1;
    if (cvl > nvl ||
        (cvl == nvl && strncmp(c + cv, cand + nv, nvl < 0 ? (size_t)-1 : (size_t)nvl) > 0)) {
        snprintf(why, cap, "its version column is newer than the candidate's");
        return true;
    }
    if (cap)
        why[0] = '\0'; /* the date stamp decides: the usual case */
    return strncmp(c + cd, cand + nd, 10) >= 0;
}

void kt_sbat_level_free(struct kt_sbat_level *l)
{
    if (!l)
        return;
    free(l->entries);
    free(l->text);
    memset(l, 0, sizeof(*l));
}

int kt_sbat_level_from_shim(const struct kt_pe *pe, const char *which, const uint8_t **text,
                            size_t *len, struct kt_error *err)
{
    int idx = !strcmp(which, "automatic") ? 0 : !strcmp(which, "latest") ? 1 : -1;
    if (idx < 0)
        return kt_fail(err, -EINVAL, KT_NO_OFFSET, "SbatLevel policy '%s': latest or automatic",
                       which);
    const struct kt_pe_section *sec = NULL;
    for (size_t i = 0; i < pe->n_sections; i++)
        if (!strcmp(pe->sections[i].name, ".sbatlevel"))
            sec = &pe->sections[i];
    kt_span s;
    if (!sec || kt_pe_find_section(pe, ".sbatlevel", &s) < 0)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "no .sbatlevel section (not a shim 15.8+)");
    size_t base = sec->raw_off;
    if (s.len < 12)
        return kt_fail(err, -EBADMSG, base, ".sbatlevel: %zu bytes, header needs 12", s.len);
    /* u32 version; u32 offsets of the "automatic" and "latest" payloads,
     * counted from after the version */
    kt_le c, payload;
    uint32_t version, offs[2];
    kt_le_init(&c, s.p, s.len, NULL);
    kt_le_u32(&c, &version, NULL); /* 12 bytes: checked */
    kt_le_u32(&c, &offs[0], NULL);
    kt_le_u32(&c, &offs[1], NULL);
    if (version != 0)
        return kt_fail(err, -EBADMSG, base, ".sbatlevel: version %u, only 0 is known", version);
    uint32_t off = offs[idx];
    if ((uint64_t)off + 4 >= s.len)
        return kt_fail(err, -EBADMSG, base + 4 + 4 * (size_t)idx,
                       ".sbatlevel: %s offset %u outside the section", which, off);
    kt_le_window(&c, 4 + (size_t)off, s.len - 4 - off, &payload, NULL); /* checked */
    const uint8_t *start = payload.p;
    const uint8_t *nul = memchr(start, 0, payload.len);
    if (!nul)
        return kt_fail(err, -EBADMSG, base + 4 + off, ".sbatlevel: %s payload has no NUL",
                       which);
    *text = start;
    *len = (size_t)(nul - start);
    return 0;
}

static int level_from_shim_file(const char *path, const char *which,
                                struct kt_sbat_level *out, struct kt_error *err)
{
    struct kt_file f;
    int rc = kt_file_open(path, &f, err);
    if (rc < 0)
        return rc;
    struct kt_pe *pe = NULL;
    rc = kt_pe_parse(f.data, f.len, &pe, err);
    if (rc == 0) {
        const uint8_t *t;
        size_t n;
        rc = kt_sbat_level_from_shim(pe, which, &t, &n, err);
        if (rc == 0)
            rc = kt_sbat_level_parse(t, n, out, err);
        if (rc == 0)
            snprintf(out->source, sizeof(out->source), "shim .sbatlevel %s", which);
        kt_pe_free(pe);
    }
    kt_file_close(&f);
    return rc;
}

int kt_sbat_level_spec(const char *spec, struct kt_sbat_level *out, struct kt_error *err)
{
    memset(out, 0, sizeof(*out));
    const char *b = kt_sbat_builtin(spec);
    if (b) {
        int rc = kt_sbat_level_parse((const uint8_t *)b, strlen(b), out, err);
        if (rc == 0)
            snprintf(out->source, sizeof(out->source), "%s (shim 16.x built in)", spec);
        return rc;
    }
    if (!strncmp(spec, "shim:", 5)) {
        char path[4096];
        const char *which = "automatic";
        snprintf(path, sizeof(path), "%s", spec + 5);
        size_t pl = strlen(path);
        if (pl > 7 && !strcmp(path + pl - 7, ":latest")) {
            which = "latest";
            path[pl - 7] = '\0';
        } else if (pl > 10 && !strcmp(path + pl - 10, ":automatic")) {
            path[pl - 10] = '\0';
        }
        return level_from_shim_file(path, which, out, err);
    }
    struct kt_file f;
    int rc = kt_file_open(spec, &f, err);
    if (rc < 0)
        return rc;
    rc = kt_sbat_level_parse(f.data, f.len, out, err);
    kt_file_close(&f);
    if (rc == 0)
        snprintf(out->source, sizeof(out->source), "file");
    return rc;
}
