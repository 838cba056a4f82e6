/* imalist_ascii.c - the IMA measurement list's ASCII form, as the kernel's
 * ima_ascii_measurements_show (ima_fs.c, 6.1) writes it: "%2d " PCR, the
 * template digest in hex, the template name, then each field after one
 * space (an empty field leaves the space alone): d in hex, d-ng as
 * "ALGO:HEX", n and n-ng as the name (the kernel turned its spaces into
 * underscores when it measured it), sig and buf in hex.  Each line is
 * turned back into the template data the binary form carries, so that
 * every bank is replayed from it as from the binary form; another
 * template's fields cannot be, and only the listed digests are replayed. */
#include <errno.h>
#include <string.h>

#include "ima/imalist.h"

static int nib(uint8_t ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
         : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* n hex digits at p into out; false when one is not hex or n is odd. */
static bool unhex(const uint8_t *p, size_t n, uint8_t *out)
{
    if (n % 2)
        return false;
    for (size_t i = 0; i < n; i += 2) {
        int a = nib(p[i]), b = nib(p[i + 1]);
        if (a < 0 || b < 0)
            return false;
        out[i / 2] = (uint8_t)(a << 4 | b);
    }
    return true;
}

struct line {
    const uint8_t *p; /* the rest of the line */
    size_t len;
    size_t off;       /* absolute offset of p */
    bool more;        /* the last token ended with a space: another follows */
};

/* The next token up to a space or the end; the space is consumed. */
static kt_span token(struct line *l)
{
    const uint8_t *sp = memchr(l->p, ' ', l->len);
    size_t n = sp ? (size_t)(sp - l->p) : l->len;
    kt_span t = {l->p, n};
    size_t step = n + (sp != NULL);
    l->more = sp != NULL;
    l->p += step, l->len -= step, l->off += step;
    return t;
}

/* One field's token appended to the template data at *w: u32 length, bytes. */
static bool put_field(enum kt_ima_field k, kt_span t, uint8_t *out, size_t *w)
{
    uint8_t *len = out + *w, *d = len + 4;
    size_t n = 0;
    if (k == KT_IMA_F_DNG && t.len) {
        const uint8_t *colon = t.p + t.len;
        while (colon > t.p && colon[-1] != ':')
            colon--;
        size_t pre = (size_t)(colon - t.p);
        if (pre < 2)
            return false;
        memcpy(d, t.p, pre);
        d[pre] = 0;
        n = pre + 1 + (t.len - pre) / 2;
        if (!unhex(colon, t.len - pre, d + pre + 1))
            return false;
    } else if (k == KT_IMA_F_STR) {
        memcpy(d, t.p, t.len);
        d[t.len] = 0;
        n = t.len + 1;
    } else if (k == KT_IMA_F_HEX || k == KT_IMA_F_D) {
        n = t.len / 2;
        if (!unhex(t.p, t.len, d))
            return false;
    }
    for (int i = 0; i < 4; i++)
        len[i] = (uint8_t)(n >> (8 * i));
    *w += 4 + n;
    return true;
}

static int bad(struct kt_error *err, size_t off, const char *what, size_t index)
{
    return kt_fail(err, -EBADMSG, off, "line %zu: %s", index + 1, what);
}

/* The fields of a known template, rebuilt and decoded. */
static int fields(struct kt_ima_reader *r, struct kt_ima_entry *e, struct line *l,
                  struct kt_error *err)
{
    size_t n, w = 0;
    const enum kt_ima_field *fk = kt_ima_template_fields(e->tpl, &n);
    if (kt_ima_scratch(r, l->len + 8 * n + 32) < 0)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        size_t at = l->off;
        bool more = l->more;
        kt_span t = token(l);
        if (!more || (e->tpl == KT_IMA_TPL_IMA && i == 0 && t.len != 40) ||
            !put_field(fk[i], t, r->scratch, &w))
            return bad(err, at, "a field that is not what the template says", e->index);
        if (e->tpl == KT_IMA_TPL_IMA && i == 0)
            e->file_digest = (kt_span){r->scratch + 4, 20};
        else if (e->tpl == KT_IMA_TPL_IMA)
            e->file_name = t;
    }
    if (l->more)
        return bad(err, l->off, "more fields than the template has", e->index);
    if (e->tpl == KT_IMA_TPL_IMA) {
        uint8_t d[20];
        memcpy(d, e->file_digest.p, 20); /* the scratch buffer is reused */
        if (e->file_name.len > KT_IMA_EVENT_NAME_MAX)
            return bad(err, e->offset, "n: over the 'ima' template's 255 bytes", e->index);
        e->file_digest = (kt_span){d, 20};
        int rc = kt_ima_legacy_data(r, e);
        e->file_digest = (kt_span){r->scratch, 20};
        return rc;
    }
    e->data = (kt_span){r->scratch, w};
    struct kt_error inner = KT_ERROR_INIT;
    if (kt_ima_fields_decode(e, r->scratch, 0, &inner) < 0)
        return bad(err, e->offset, inner.what, e->index);
    return 0;
}

int kt_ima_ascii_next(struct kt_ima_reader *r, struct kt_ima_entry *e, struct kt_error *err)
{
    const uint8_t *nl = memchr(r->c.p, '\n', r->c.len);
    size_t len = nl ? (size_t)(nl - r->c.p) : r->c.len;
    if (len > 2 * KT_IMA_MAX_TEMPLATE_DATA + 1024)
        return bad(err, e->offset, "over the longest line an entry can make", e->index);
    struct line l = {r->c.p, len, e->offset, true};
    while (l.len && l.p[0] == ' ')
        l.p++, l.len--, l.off++;
    kt_span pcr = token(&l), dg = token(&l), name = token(&l);
    unsigned v = 0;
    for (size_t i = 0; i < pcr.len && i < 3; i++)
        v = v * 10 + (unsigned)(pcr.p[i] - '0');
    for (size_t i = 0; i < pcr.len; i++)
        if (pcr.p[i] < '0' || pcr.p[i] > '9')
            pcr.len = 0;
    if (!pcr.len || pcr.len > 2 || v >= KT_EVLOG_PCRS)
        return bad(err, e->offset, "not \"PCR DIGEST TEMPLATE FIELDS\" (a PCR 0-23 first)", e->index);
    e->pcr = v;
    if (dg.len != 2 * r->digest_size || !unhex(dg.p, dg.len, r->digest))
        return bad(err, (size_t)(dg.p - r->c.base), "template digest: not hex of its bank's size",
                   e->index);
    e->template_digest = (kt_span){r->digest, r->digest_size};
    if (!name.len || name.len > KT_IMA_MAX_TEMPLATE_NAME || memchr(name.p, 0, name.len))
        return bad(err, (size_t)(name.p - r->c.base), "no template name", e->index);
    memcpy(e->template_name, name.p, name.len);
    e->template_name[name.len] = 0;
    e->tpl = kt_ima_template_kind(e->template_name);
    int rc = e->tpl == KT_IMA_TPL_OTHER ? 0 : fields(r, e, &l, err);
    if (rc == 0)
        kt_le_skip(&r->c, len + (nl != NULL), NULL);
    return rc;
}
