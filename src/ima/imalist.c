/* imalist.c - the IMA measurement list's binary form, as the kernel's
 * ima_measurements_show (security/integrity/ima/ima_fs.c, 6.1) writes it:
 * per entry the PCR (u32), the template digest (SHA-1, 20 bytes), the
 * template name's length (u32) and name, then, for every template but
 * 'ima', the template data's length (u32) and the data: each field as a u32
 * length and its bytes (ima_show_template_data_binary).  The 'ima' template
 * has no data length: its 'd' field is 20 bytes without a length, its 'n'
 * field the name without its NUL (IMA_SHOW_BINARY_OLD_STRING_FMT).  The
 * fields' encodings are ima_template_lib.c's: d-ng is "ALGO:" NUL digest,
 * n-ng the name with its NUL, sig the security.ima value (or nothing). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eventlog/eventlog.h"
#include "ima/imalist.h"

static const enum kt_ima_field f_ima[] = {KT_IMA_F_D, KT_IMA_F_STR};
static const enum kt_ima_field f_ng[] = {KT_IMA_F_DNG, KT_IMA_F_STR};
static const enum kt_ima_field f_sig[] = {KT_IMA_F_DNG, KT_IMA_F_STR, KT_IMA_F_HEX};
static const enum kt_ima_field f_modsig[] = {KT_IMA_F_DNG, KT_IMA_F_STR, KT_IMA_F_HEX,
                                             KT_IMA_F_DNG, KT_IMA_F_HEX};

static const struct {
    const char *name;
    const enum kt_ima_field *f;
    size_t n;
} tpls[KT_IMA_TPL__COUNT] = {
    [KT_IMA_TPL_IMA] = {"ima", f_ima, 2},
    [KT_IMA_TPL_IMA_NG] = {"ima-ng", f_ng, 2},
    [KT_IMA_TPL_IMA_SIG] = {"ima-sig", f_sig, 3},
    [KT_IMA_TPL_IMA_BUF] = {"ima-buf", f_sig, 3},
    [KT_IMA_TPL_IMA_NGV2] = {"ima-ngv2", f_ng, 2},
    [KT_IMA_TPL_IMA_SIGV2] = {"ima-sigv2", f_sig, 3},
    [KT_IMA_TPL_IMA_MODSIG] = {"ima-modsig", f_modsig, 5},
    [KT_IMA_TPL_OTHER] = {"other", NULL, 0},
};

const char *kt_ima_template_name(enum kt_ima_template t)
{
    return (unsigned)t < KT_IMA_TPL__COUNT ? tpls[t].name : "other";
}

enum kt_ima_template kt_ima_template_kind(const char *name)
{
    for (int t = 0; t < KT_IMA_TPL_OTHER; t++)
        if (!strcmp(name, tpls[t].name))
            return (enum kt_ima_template)t;
    return KT_IMA_TPL_OTHER;
}

const enum kt_ima_field *kt_ima_template_fields(enum kt_ima_template t, size_t *n)
{
    *n = (unsigned)t < KT_IMA_TPL__COUNT ? tpls[t].n : 0;
    return *n ? tpls[t].f : NULL;
}

int kt_ima_scratch(struct kt_ima_reader *r, size_t n)
{
    if (n <= r->cap)
        return 0;
    uint8_t *p = realloc(r->scratch, n);
    if (!p)
        return -ENOMEM;
    r->scratch = p;
    r->cap = n;
    return 0;
}

/* d-ng: "ALGO:" NUL digest (d-ngv2: "TYPE:ALGO:" NUL digest). */
static int digest_ng(struct kt_ima_entry *e, kt_le *f, size_t off, struct kt_error *err)
{
    const uint8_t *nul = memchr(f->p, 0, f->len);
    size_t pre = nul ? (size_t)(nul - f->p) : 0;
    if (!nul || pre < 2 || f->p[pre - 1] != ':' || pre > sizeof(e->file_alg))
        return kt_fail(err, -EBADMSG, off, "d-ng: not \"ALGO:\" NUL DIGEST");
    memcpy(e->file_alg, f->p, pre - 1);
    e->file_alg[pre - 1] = 0;
    e->file_digest = (kt_span){nul + 1, f->len - pre - 1};
    return 0;
}

int kt_ima_fields_decode(struct kt_ima_entry *e, const uint8_t *base, size_t off,
                         struct kt_error *err)
{
    size_t n;
    const enum kt_ima_field *fk = kt_ima_template_fields(e->tpl, &n);
    e->has_sig_field = e->tpl == KT_IMA_TPL_IMA_SIG || e->tpl == KT_IMA_TPL_IMA_SIGV2 ||
                       e->tpl == KT_IMA_TPL_IMA_MODSIG;
    kt_le c;
    kt_le_init(&c, base, off + e->data.len, err);
    int rc = kt_le_seek(&c, off, "template data");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        uint32_t flen;
        kt_le f;
        size_t at = kt_le_offset(&c);
        if ((rc = kt_le_u32(&c, &flen, "template field length")) < 0 ||
            (rc = kt_le_sub(&c, flen, &f, "template field")) < 0)
            break;
        if (i == 0 && fk[i] == KT_IMA_F_DNG)
            rc = digest_ng(e, &f, at, err);
        else if (i == 1 && (!flen || f.p[flen - 1]))
            rc = kt_fail(err, -EBADMSG, at, "n-ng: the name does not end with a NUL");
        else if (i == 1)
            e->file_name = (kt_span){f.p, flen - 1};
        else if (i == 2 && e->has_sig_field)
            e->sig = (kt_span){f.p, flen};
    }
    if (rc == 0 && kt_le_left(&c))
        rc = kt_fail(err, -EBADMSG, kt_le_offset(&c), "template data: %zu bytes after the "
                     "%s template's %zu fields", kt_le_left(&c), e->template_name, n);
    e->decoded = rc == 0;
    return rc;
}

int kt_ima_legacy_data(struct kt_ima_reader *r, struct kt_ima_entry *e)
{
    if (kt_ima_scratch(r, 20 + KT_IMA_EVENT_NAME_MAX + 1) < 0)
        return -ENOMEM;
    memset(r->scratch, 0, 20 + KT_IMA_EVENT_NAME_MAX + 1);
    memcpy(r->scratch, e->file_digest.p, 20);
    memcpy(r->scratch + 20, e->file_name.p, e->file_name.len);
    e->data = (kt_span){r->scratch, 20 + KT_IMA_EVENT_NAME_MAX + 1};
    snprintf(e->file_alg, sizeof(e->file_alg), "sha1");
    e->decoded = true;
    return 0;
}

/* The 'ima' template: d (20 bytes, no length), n (u32 length, no NUL). */
static int legacy(struct kt_ima_reader *r, struct kt_ima_entry *e)
{
    uint32_t nlen;
    const uint8_t *name;
    int rc;
    if ((rc = kt_le_bytes(&r->c, 20, &e->file_digest.p, "d")) < 0 ||
        (rc = kt_le_u32(&r->c, &nlen, "n length")) < 0)
        return rc;
    e->file_digest.len = 20;
    if (nlen > KT_IMA_EVENT_NAME_MAX)
        return kt_fail(r->c.err, -EBADMSG, kt_le_offset(&r->c) - 4,
                       "n: %u bytes, over the 'ima' template's %d", nlen, KT_IMA_EVENT_NAME_MAX);
    if ((rc = kt_le_bytes(&r->c, nlen, &name, "n")) < 0)
        return rc;
    if (memchr(name, 0, nlen))
        return kt_fail(r->c.err, -EBADMSG, kt_le_offset(&r->c) - nlen, "n: a NUL in the name");
    e->file_name = (kt_span){name, nlen};
    return kt_ima_legacy_data(r, e);
}

int kt_ima_binary_next(struct kt_ima_reader *r, struct kt_ima_entry *e)
{
    struct kt_error *err = r->c.err;
    uint32_t nlen, dlen;
    const uint8_t *name;
    int rc;
    if ((rc = kt_le_u32(&r->c, &e->pcr, "pcr")) < 0)
        return rc;
    if (e->pcr >= KT_EVLOG_PCRS)
        return kt_fail(err, -EBADMSG, e->offset, "pcr: %u is no PCR (0-23)%s", e->pcr,
                       e->pcr > 0xffff ? ": a big-endian list? only little-endian ones "
                                         "(x86, ima_canonical_fmt) are read" : "");
    if ((rc = kt_le_bytes(&r->c, r->digest_size, &e->template_digest.p, "template digest")) < 0 ||
        (rc = kt_le_u32(&r->c, &nlen, "template name length")) < 0)
        return rc;
    e->template_digest.len = r->digest_size;
    if (nlen == 0 || nlen > KT_IMA_MAX_TEMPLATE_NAME)
        return kt_fail(err, -EBADMSG, kt_le_offset(&r->c) - 4,
                       "template name length: %u (1-%d)", nlen, KT_IMA_MAX_TEMPLATE_NAME);
    if ((rc = kt_le_bytes(&r->c, nlen, &name, "template name")) < 0)
        return rc;
    memcpy(e->template_name, name, nlen);
    e->template_name[nlen] = 0;
    if (strlen(e->template_name) != nlen)
        return kt_fail(err, -EBADMSG, kt_le_offset(&r->c) - nlen, "template name: a NUL in it");
    e->tpl = kt_ima_template_kind(e->template_name);
    if (e->tpl == KT_IMA_TPL_IMA)
        return legacy(r, e);
    if ((rc = kt_le_u32(&r->c, &dlen, "template data length")) < 0)
        return rc;
    if (dlen > KT_IMA_MAX_TEMPLATE_DATA)
        return kt_fail(err, -EBADMSG, kt_le_offset(&r->c) - 4,
                       "template data length: %u, over %zu", dlen, KT_IMA_MAX_TEMPLATE_DATA);
    size_t off = kt_le_offset(&r->c);
    if ((rc = kt_le_bytes(&r->c, dlen, &e->data.p, "template data")) < 0)
        return rc;
    e->data.len = dlen;
    if (e->tpl == KT_IMA_TPL_OTHER)
        return 0;
    return kt_ima_fields_decode(e, r->c.base, off, err);
}
