/* sbat.c - SBAT CSV records (images' .sbat and SbatLevel payloads), shim's
 * generation arithmetic and the revocation rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbat/internal.h"

uint16_t kt_sbat_atoi16(kt_span s)
{
    /* shim's atoi (its AsciiStrDecimalToUintn): spaces and tabs first are
     * skipped, then decimal digits up to the first other byte; leading
     * zeros add nothing.  The UINTN result lands in a UINT16: modulo 2^16. */
    uint16_t v = 0;
    size_t i = 0;
    while (i < s.len && (s.p[i] == ' ' || s.p[i] == '\t'))
        i++;
    for (; i < s.len && s.p[i] >= '0' && s.p[i] <= '9'; i++)
        v = (uint16_t)(v * 10u + (unsigned)(s.p[i] - '0'));
    return v;
}

char *kt_sbat_col(const struct kt_sbat_entry *e, int col, char *buf, size_t cap)
{
    size_t n = 0;
    if (col >= 0 && col < KT_SBAT_NCOLS && cap) {
        n = e->col[col].len < cap - 1 ? e->col[col].len : cap - 1;
        if (n)
            memcpy(buf, e->col[col].p, n);
    }
    if (cap)
        buf[n] = '\0';
    return buf;
}

static int push(struct kt_sbat_entry **v, size_t *n, size_t *cap, const struct kt_sbat_entry *e)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        struct kt_sbat_entry *nv = realloc(*v, nc * sizeof(*nv));
        if (!nv)
            return -ENOMEM;
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = *e;
    return 0;
}

/* A byte that ends a record in shim's parse_csv_data: CR and LF are its
 * delimiters, and a NUL ends the line it is in (the scan for a delimiter
 * stops there) without ending the data: parsing goes on after it. */
static bool record_end(uint8_t c) { return c == '\r' || c == '\n' || c == 0; }

int kt_sbat_csv(const uint8_t *buf, size_t len, size_t base, size_t need, size_t keep,
                const char *what, struct kt_sbat_entry **out, size_t *n_out,
                struct kt_error *err)
{
    struct kt_sbat_entry *v = NULL;
    size_t n = 0, cap = 0, pos = 0;
    if (len >= 3 && buf[0] == 0xef && buf[1] == 0xbb && buf[2] == 0xbf)
        pos = 3; /* a UTF-8 BOM, only at the very start */
    for (;;) {
        while (pos < len && record_end(buf[pos]))
            pos++; /* runs of CR, LF and NUL: no records */
        if (pos >= len)
            break;
        size_t lend = pos;
        while (lend < len && !record_end(buf[lend]))
            lend++;
        struct kt_sbat_entry e;
        memset(&e, 0, sizeof(e));
        e.offset = base + pos;
        /* the columns, split on commas (shim's parse_csv_line): only the
         * first `keep` are ever looked at, whatever follows them (more
         * columns, a trailing comma, an empty one) is not */
        size_t c = pos, ncols = 0;
        for (;;) {
            const uint8_t *comma = memchr(buf + c, ',', lend - c);
            size_t cend = comma ? (size_t)(comma - buf) : lend;
            if (ncols < keep) {
                if (cend == c) {
                    free(v);
                    return kt_fail(err, -EBADMSG, base + c,
                                   "%s: record %zu: column %zu is empty", what, n + 1, ncols + 1);
                }
                e.col[ncols].p = buf + c;
                e.col[ncols].len = cend - c;
            }
            ncols++;
            if (!comma || ncols == keep)
                break;
            c = cend + 1;
        }
        if (ncols < need) {
            free(v);
            return kt_fail(err, -EBADMSG, e.offset,
                           "%s: record %zu has %zu column%s, %zu needed", what, n + 1, ncols,
                           ncols == 1 ? "" : "s", need);
        }
        e.ncols = ncols;
        e.generation = kt_sbat_atoi16(e.col[KT_SBAT_GENERATION]);
        if (push(&v, &n, &cap, &e) < 0) {
            free(v);
            return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
        }
        pos = lend;
    }
    *out = v;
    *n_out = n;
    return 0;
}

int kt_sbat_parse(const uint8_t *buf, size_t len, size_t base, struct kt_sbat *out,
                  struct kt_error *err)
{
    memset(out, 0, sizeof(*out));
    out->offset = base;
    out->present = true;
    /* real shim 16.1 reads a .sbat section only up to its first NUL: a
     * record after it is never seen, whether the NUL ends a line or starts
     * one (tests/boot: sbat_after_nul, sbat_nul_line_start; the CSV reader
     * alone would go on after it) */
    const uint8_t *nul = memchr(buf, 0, len);
    if (nul)
        len = (size_t)(nul - buf);
    return kt_sbat_csv(buf, len, base, KT_SBAT_NCOLS, KT_SBAT_NCOLS, ".sbat", &out->entries,
                       &out->n, err);
}

void kt_sbat_free(struct kt_sbat *s)
{
    if (!s)
        return;
    free(s->entries);
    s->entries = NULL;
    s->n = 0;
}

static bool same_name(const struct kt_sbat_entry *a, const struct kt_sbat_entry *b)
{
    kt_span x = a->col[KT_SBAT_COMPONENT], y = b->col[KT_SBAT_COMPONENT];
    return x.len == y.len && memcmp(x.p, y.p, x.len) == 0;
}

int kt_sbat_check(const struct kt_sbat *image, const struct kt_sbat_level *level,
                  const struct kt_sbat_entry **img, const struct kt_sbat_entry **lvl,
                  struct kt_error *err)
{
    if (img)
        *img = NULL;
    if (lvl)
        *lvl = NULL;
    for (size_t i = 0; image && i < image->n; i++) {
        const struct kt_sbat_entry *ie = &image->entries[i];
        for (size_t j = 0; j < level->n; j++) {
            const struct kt_sbat_entry *le = &level->entries[j];
            if (!same_name(ie, le))
                continue;
            if (ie->generation < le->generation) {
                char name[128];
                if (img)
                    *img = ie;
                if (lvl)
                    *lvl = le;
                return kt_fail(err, -EKEYREJECTED, ie->offset,
                               "revoked by SBAT: %s %u < %u (level %s)",
                               kt_sbat_col(ie, KT_SBAT_COMPONENT, name, sizeof(name)),
                               ie->generation, le->generation,
                               level->stamp[0] ? level->stamp : "without date stamp");
            }
            break; /* only the first level entry of that name counts */
        }
    }
    return 0;
}

int kt_sbat_fold(int verdict, int sbat_rc)
{
    if (sbat_rc == 0 || verdict == -EKEYREJECTED)
        return verdict;
    return sbat_rc;
}
