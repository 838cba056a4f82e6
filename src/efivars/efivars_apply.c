/* efivars_apply.c - apply a signed update (EFI_VARIABLE_AUTHENTICATION_2)
 * to a variable state the way EDK2's AuthService.c does a SetVariable():
 * find the variable the signature covers, check its authority against the
 * state's PK/KEK (or setup mode), then append (dropping entries already
 * there, FilterSignatureList) or replace. */
#include "efivars/efivars.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "authvar/authvar.h"
#include "boot/edk2.h"
#include "boot/vars.h"
#include "crypto/crypto.h"
#include "esl/esl.h"
#include "util/file.h"
#include "util/fmt.h"
#include "util/le.h"

#define ESL_HDR 28u /* SignatureType, ListSize, HeaderSize, SignatureSize */

/* The names a signature may cover, the usual ones first. */
static const enum kt_efivar_id targets[] = {KT_EFIVAR_DB, KT_EFIVAR_DBX, KT_EFIVAR_KEK,
                                            KT_EFIVAR_PK, KT_EFIVAR_DBT, KT_EFIVAR_DBR};

/* One EFI_SIGNATURE_LIST of a well-formed buffer, or 0 at the end; -EBADMSG
 * for a list that does not fit (err names the offset). */
struct esl_list {
    const uint8_t *hdr; /* the list (type GUID first) */
    uint32_t size, header_size, sig_size;
    size_t n;           /* entries */
    const uint8_t *sigs;
};

static int next_list(const uint8_t *buf, size_t len, size_t *off, struct esl_list *l,
                     struct kt_error *err)
{
    if (*off >= len)
        return 0;
    kt_le c;
    kt_le_init(&c, buf, len, err);
    if (kt_le_seek(&c, *off, "EFI_SIGNATURE_LIST") < 0)
        return -EBADMSG;
    if (kt_le_skip(&c, 16, "SignatureType") < 0 ||
        kt_le_u32(&c, &l->size, "SignatureListSize") < 0 ||
        kt_le_u32(&c, &l->header_size, "SignatureHeaderSize") < 0 ||
        kt_le_u32(&c, &l->sig_size, "SignatureSize") < 0)
        return -EBADMSG;
    size_t body = (size_t)l->size - ESL_HDR;
    if (l->size < ESL_HDR || l->size > len - *off || l->header_size > body ||
        l->sig_size < 16 || (body - l->header_size) % l->sig_size)
        return kt_fail(err, -EBADMSG, *off, "EFI_SIGNATURE_LIST sizes do not fit");
    l->hdr = buf + *off;
    l->sigs = l->hdr + ESL_HDR + l->header_size;
    l->n = (body - l->header_size) / l->sig_size;
    *off += l->size;
    return 1;
}

/* Is EFI_SIGNATURE_DATA sig (of list l's type and size) in buf? */
static bool holds(const uint8_t *buf, size_t len, const struct esl_list *l, const uint8_t *sig)
{
    size_t off = 0;
    struct esl_list o;
    while (next_list(buf, len, &off, &o, NULL) > 0) {
        if (o.sig_size != l->sig_size || memcmp(o.hdr, l->hdr, 16))
            continue;
        for (size_t i = 0; i < o.n; i++)
            if (!memcmp(o.sigs + i * o.sig_size, sig, l->sig_size))
                return true;
    }
    return false;
}

/* The lists of a keeping only the entries b lacks (FilterSignatureList);
 * *out malloc'd (NULL, 0 when nothing is left); *total counts a's entries. */
static int filter(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, uint8_t **out,
                  size_t *olen, size_t *total, struct kt_error *err)
{
    *out = NULL;
    *olen = 0;
    *total = 0;
    uint8_t *o = malloc(alen ? alen : 1);
    if (!o)
        return -ENOMEM;
    size_t off = 0, w = 0;
    struct esl_list l;
    int rc;
    while ((rc = next_list(a, alen, &off, &l, err)) > 0) {
        size_t start = w, kept = 0;
        for (size_t i = 0; i < l.n; i++) {
            const uint8_t *sig = l.sigs + i * l.sig_size;
            ++*total;
            if (b && holds(b, blen, &l, sig))
                continue;
            if (!kept) {
                memcpy(o + w, l.hdr, ESL_HDR + l.header_size);
                w += ESL_HDR + l.header_size;
            }
            memcpy(o + w, sig, l.sig_size);
            w += l.sig_size;
            kept++;
        }
        if (kept) {
            uint32_t size = (uint32_t)(w - start);
            for (int k = 0; k < 4; k++)
                o[start + 16 + k] = (uint8_t)(size >> (8 * k));
        }
    }
    if (rc < 0 || !w) {
        free(o);
        return rc < 0 ? rc : 0;
    }
    *out = o;
    *olen = w;
    return 0;
}

/* ---- describing entries ---------------------------------------------- */

struct lines {
    char **v;
    size_t n;
};

static int push(struct lines *ls, const char *s)
{
    char **v = realloc(ls->v, (ls->n + 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    ls->v = v;
    if (!(v[ls->n] = strdup(s)))
        return -ENOMEM;
    ls->n++;
    return 0;
}

static int describe(void *ctx, const struct kt_esl_entry *e)
{
    char line[600], hex[2 * 64 + 1];
    if (e->type == KT_ESL_X509) {
        struct kt_x509 *x = NULL;
        struct kt_error xe = KT_ERROR_INIT;
        if (kt_x509_parse(e->data.p, e->data.len, &x, &xe) == 0)
            kt_fmt(line, sizeof(line), "X509 %s", x->subject_cn ? x->subject_cn : x->subject);
        else
            kt_fmt(line, sizeof(line), "X509 (unparsable: %s)", xe.what);
        kt_x509_free(x);
    } else if (e->type == KT_ESL_OTHER) {
        kt_fmt(line, sizeof(line), "%s entry (%zu bytes)", kt_authvar_entry_type(e), e->data.len);
    } else {
        size_t n = e->data.len > 64 ? 64 : e->data.len;
        kt_fmt(line, sizeof(line), "%s %s", kt_authvar_entry_type(e), kt_hex(e->data.p, n, hex));
    }
    return push(ctx, line);
}

static int describe_all(const uint8_t *buf, size_t len, char ***out, size_t *n)
{
    struct lines ls = {0};
    struct kt_error e = KT_ERROR_INIT;
    int rc = buf ? kt_esl_foreach(buf, len, describe, &ls, &e) : 0;
    *out = ls.v;
    *n = ls.n;
    return rc == -ENOMEM ? rc : 0;
}

/* ---- authority --------------------------------------------------------- */

static void certset_of(struct kt_certset *set, const struct kt_efivar *v)
{
    size_t len;
    const uint8_t *p = kt_efivar_data(v, &len);
    struct kt_error e = KT_ERROR_INIT;
    if (p && len)
        (void)kt_certset_add(set, p, len, &e); /* no certificate: no authority */
}

/* A state whose PK is present is in user mode, whatever its SetupMode
 * file says. */
bool kt_efivars_in_setup_mode(const struct kt_efivars *s)
{
    size_t len;
    return !kt_efivar_data(&s->var[KT_EFIVAR_PK], &len) || !len;
}

/* Verify v as a write of `id`: res->attributes != 0 when the signature
 * covers that name.  In setup mode a PK write is checked against the PK it
 * carries (AuthVarTypePayload) and other writes need no authority. */
static int verify_as(const struct kt_authvar *v, enum kt_efivar_id id, bool setup,
                     const struct kt_certset *pk, const struct kt_certset *kek,
                     struct kt_certset *self, struct kt_authvar_result *res, bool again)
{
    const char *name = kt_efivar_name(id);
    /* the PKCS#7 is parsed once for every name tried (res keeps it) */
    int (*verify)(const struct kt_authvar *, const char *, const uint8_t *,
                  const struct kt_certset *, const struct kt_certset *,
                  struct kt_authvar_result *) = again ? kt_authvar_verify_again
                                                      : kt_authvar_verify;
    if (!setup)
        return verify(v, name, NULL, pk, kek, res);
    if (id == KT_EFIVAR_PK) { /* self outlives res: res->authority points into it */
        struct kt_error e = KT_ERROR_INIT;
        kt_certset_free(self);
        (void)kt_certset_add(self, v->payload.p, v->payload.len, &e);
        int rc = verify(v, name, NULL, self, NULL, res);
        if (rc == -ENOKEY) { /* 2022.11's self-signed-PK rule; later EDK2 drops it */
            char note[160];
            res->accepted_from = kt_edk2_accepted_from(KT_EDK2_PK_NOT_SELF_SIGNED);
            res->error = (struct kt_error)KT_ERROR_INIT;
            rc = res->verdict = kt_fail(&res->error, -ENOKEY, KT_NO_OFFSET,
                                        "setup mode: the PK written is not signed by itself: %s",
                                        kt_edk2_note(KT_EDK2_PK_NOT_SELF_SIGNED, note,
                                                     sizeof(note)));
        }
        return rc;
    }
    int rc = verify(v, name, NULL, NULL, NULL, res);
    if (rc < 0 && rc != -ENOKEY && res->matched_attributes && res->payload_rc == 0) {
        /* the signature does not verify, but its messageDigest names this
         * variable: EDK2 2022.11 (ProcessVarWithKek / ProcessVarWithPk in
         * setup mode) checks only the payload's format (CheckSignatureListFormat) */
        res->attributes = res->matched_attributes;
        res->append = (res->attributes & KT_EFI_VAR_APPEND_WRITE) != 0;
        rc = -ENOKEY;
    }
    if (rc == -ENOKEY) { /* well-formed: setup mode asks no more */
        res->verdict = 0;
        res->error = (struct kt_error)KT_ERROR_INIT;
        return 0;
    }
    return rc;
}

bool kt_efivars_whole(const struct kt_efivars *s)
{
    return s->var[KT_EFIVAR_SETUP_MODE].state == KT_EFIVAR_PRESENT;
}

bool kt_efivars_next_setup_mode(const struct kt_efivars *s)
{
    return kt_efivars_whole(s) && kt_efivars_in_setup_mode(s);
}

/* ---- the write --------------------------------------------------------- */

/* The vendor GUID of a variable file: from its name, else the catalogue's. */
static const char *guid_of(const struct kt_efivar *v, enum kt_efivar_id id, char *buf)
{
    const char *slash = strrchr(v->path, '/');
    const char *base = slash ? slash + 1 : v->path;
    size_t n = strlen(base);
    if (n >= 37 && base[n - 37] == '-') {
        memcpy(buf, base + n - 36, 37);
        return buf;
    }
    return kt_var_vendor_str(kt_var_info(id)->vendor); /* the catalogue's */
}

/* Replace v's bytes by attrs + data (absent when data is NULL and del). */
static int store(struct kt_efivars *s, enum kt_efivar_id id, const uint8_t attrs[4],
                 const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, bool del)
{
    struct kt_efivar *v = &s->var[id];
    if (del) {
        free(v->raw);
        v->raw = NULL;
        v->raw_len = 0;
        v->state = KT_EFIVAR_ABSENT;
        return 0;
    }
    uint8_t *raw = malloc(4 + alen + blen);
    if (!raw)
        return -ENOMEM;
    memcpy(raw, attrs, 4);
    if (alen)
        memcpy(raw + 4, a, alen);
    if (blen)
        memcpy(raw + 4 + alen, b, blen);
    if (v->state != KT_EFIVAR_PRESENT || !v->path[0]) {
        char g[37];
        const char *guid = guid_of(v, id, g);
        kt_fmt(v->path, sizeof(v->path), "%s%s%s-%s", s->dir, s->dir[0] ? "/" : "",
               kt_efivar_name(id), guid);
    }
    free(v->raw);
    v->raw = raw;
    v->raw_len = 4 + alen + blen;
    v->state = KT_EFIVAR_PRESENT;
    v->error = (struct kt_error)KT_ERROR_INIT;
    return 0;
}

static void set_byte(struct kt_efivars *s, enum kt_efivar_id id, uint8_t value)
{
    struct kt_efivar *v = &s->var[id];
    if (v->state == KT_EFIVAR_PRESENT && v->raw_len >= 5)
        v->raw[4] = value;
}

static int write_change(struct kt_efivars *s, const struct kt_authvar *v,
                        struct kt_efivars_change *c)
{
    struct kt_efivar *var = &s->var[c->target];
    size_t olen;
    const uint8_t *old = kt_efivar_data(var, &olen);
    uint8_t attrs[4] = {(uint8_t)kt_var_info(c->target)->attrs, 0, 0, 0}; /* a new variable */
    if (var->state == KT_EFIVAR_PRESENT && var->raw_len >= 4)
        memcpy(attrs, var->raw, 4);
    uint8_t *gained = NULL, *lost = NULL;
    size_t glen = 0, llen = 0, total = 0, t2 = 0;
    int rc = filter(v->payload.p, v->payload.len, old, olen, &gained, &glen, &total, &c->error);
    if (rc == 0 && !c->append)
        rc = filter(old, olen, v->payload.p, v->payload.len, &lost, &llen, &t2, &c->error);
    if (rc == 0)
        rc = describe_all(gained, glen, &c->gained, &c->n_gained);
    if (rc == 0)
        rc = describe_all(lost, llen, &c->lost, &c->n_lost);
    if (rc == 0 && c->append) {
        c->n_present = total - c->n_gained;
        rc = store(s, c->target, attrs, old, olen, gained, glen, false);
    } else if (rc == 0) {
        rc = store(s, c->target, attrs, v->payload.p, v->payload.len, NULL, 0, !v->payload.len);
    }
    free(gained);
    free(lost);
    if (rc == -ENOMEM)
        return kt_fail(&c->error, -ENOMEM, KT_NO_OFFSET, "out of memory");
    if (rc < 0)
        return rc;
    if (c->target == KT_EFIVAR_PK) /* enrolling a PK leaves setup mode; deleting one enters it */
        set_byte(s, KT_EFIVAR_SETUP_MODE, v->payload.len ? 0 : 1);
    return 0;
}

void kt_efivars_auth_of(const struct kt_efivars *s, struct kt_efivars_auth *a)
{
    memset(a, 0, sizeof(*a));
    certset_of(&a->pk, &s->var[KT_EFIVAR_PK]);
    certset_of(&a->kek, &s->var[KT_EFIVAR_KEK]);
    a->setup_mode = kt_efivars_in_setup_mode(s);
    a->guess = KT_EFIVAR_DB;
}

void kt_efivars_auth_free(struct kt_efivars_auth *a)
{
    kt_certset_free(&a->pk);
    kt_certset_free(&a->kek);
    memset(a, 0, sizeof(*a));
}

int kt_efivars_apply(struct kt_efivars *s, const uint8_t *buf, size_t len,
                     struct kt_efivars_change *c)
{
    struct kt_efivars_auth a;
    kt_efivars_auth_of(s, &a);
    int rc = kt_efivars_apply_auth(s, &a, buf, len, c);
    kt_efivars_auth_free(&a);
    return rc;
}

/* The variable a file's name says it writes (efitools' KEK.auth, db-x.auth:
 * a variable's name, any case, then '.', '-', '_' or the end), for a
 * setup-mode write whose signature names none; KT_EFIVAR__COUNT: none. */
static enum kt_efivar_id named_by_file(const char *path)
{
    static const enum kt_efivar_id longest_first[] = {KT_EFIVAR_DBX, KT_EFIVAR_DBT, KT_EFIVAR_DBR,
                                                      KT_EFIVAR_KEK, KT_EFIVAR_DB, KT_EFIVAR_PK};
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    for (size_t i = 0; i < sizeof(longest_first) / sizeof(longest_first[0]); i++) {
        const char *n = kt_efivar_name(longest_first[i]);
        size_t k = strlen(n);
        if (!strncasecmp(base, n, k) && (!base[k] || strchr(".-_", base[k])))
            return longest_first[i];
    }
    return KT_EFIVAR__COUNT;
}

/* Setup mode, a write no name's signature covers, to the variable the
 * caller names: EDK2 2022.11 (ProcessVarWithKek, ProcessVarWithPk for
 * KEK/db/dbx/dbt/dbr) checks no signature in setup mode, only the
 * payload's format (CheckSignatureListFormat); a PK write is still checked
 * against the PK it carries.  A replace write (the attributes a signature
 * would say are not known).  1 when it applies, 0 when not. */
static int setup_named(const struct kt_authvar *v, enum kt_efivar_id named,
                       struct kt_efivars_change *c)
{
    if (named == KT_EFIVAR__COUNT || named == KT_EFIVAR_PK)
        return 0;
    struct kt_authvar_result res;
    (void)kt_authvar_verify(v, kt_efivar_name(named), NULL, NULL, NULL, &res);
    int ok = res.payload_rc == 0;
    kt_authvar_result_free(&res);
    if (!ok)
        return 0;
    c->target = named;
    c->append = false;
    c->error = (struct kt_error)KT_ERROR_INIT;
    return 1;
}

static int apply(struct kt_efivars *s, const struct kt_efivars_auth *a, const uint8_t *buf,
                 size_t len, enum kt_efivar_id named, struct kt_efivars_change *c)
{
    memset(c, 0, sizeof(*c));
    c->error = (struct kt_error)KT_ERROR_INIT;
    c->target = KT_EFIVAR__COUNT;
    struct kt_authvar v;
    int rc = kt_authvar_parse(buf, len, &v, &c->error);
    if (rc < 0)
        return c->verdict = rc == -ENODATA ? -EBADMSG : rc;

    c->setup_mode = a->setup_mode;
    /* the signed bytes hold the name, so at most one name verifies: the
     * order names are tried in changes nothing but the time (a signer
     * without authenticated attributes costs a signature check per name) */
    enum kt_efivar_id order[sizeof(targets) / sizeof(targets[0])];
    size_t n = 0;
    for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
        if (targets[i] == a->guess)
            order[n++] = a->guess;
    for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
        if (targets[i] != a->guess)
            order[n++] = targets[i];
    struct kt_error first = KT_ERROR_INIT; /* db's reason, when no name verifies */
    struct kt_authvar_result res;
    struct kt_certset self = {0}; /* setup mode: the PK a PK write carries */
    rc = -EKEYREJECTED;
    for (size_t i = 0; i < n; i++) {
        rc = verify_as(&v, order[i], c->setup_mode, &a->pk, &a->kek, &self, &res, i > 0);
        if (res.attributes) {
            c->target = order[i];
            c->append = res.append;
            const struct kt_x509 *who = res.authority && res.msg && res.msg->n_signers
                                            ? res.authority[0] : NULL;
            if (who)
                kt_fmt(c->authority, sizeof(c->authority), "%s",
                       who->subject_cn ? who->subject_cn : who->subject);
            if (rc < 0)
                c->error = res.error;
            break;
        }
        if (order[i] == KT_EFIVAR_DB)
            first = res.error;
    }
    c->accepted_from = rc < 0 ? res.accepted_from : NULL; /* a static string */
    kt_authvar_result_free(&res);
    kt_certset_free(&self);
    if (c->target == KT_EFIVAR__COUNT && c->setup_mode && setup_named(&v, named, c))
        rc = 0;
    if (c->target == KT_EFIVAR__COUNT) {
        if (first.code && (first.code != -EKEYREJECTED || c->accepted_from))
            c->error = first;
        else
            kt_fail(&c->error, -EKEYREJECTED, v.pkcs7_offset,
                    "the signature covers none of db, dbx, KEK, PK, dbt, dbr");
        return c->verdict = c->error.code;
    }
    if (rc < 0)
        return c->verdict = rc;
    return c->verdict = write_change(s, &v, c);
}

int kt_efivars_apply_auth(struct kt_efivars *s, const struct kt_efivars_auth *a,
                          const uint8_t *buf, size_t len, struct kt_efivars_change *c)
{
    return apply(s, a, buf, len, KT_EFIVAR__COUNT, c);
}

int kt_efivars_apply_file(struct kt_efivars *s, const char *path, struct kt_efivars_change *c)
{
    struct kt_efivars_auth a;
    kt_efivars_auth_of(s, &a);
    a.by_file_name = true;
    int rc = kt_efivars_apply_file_auth(s, &a, path, c);
    kt_efivars_auth_free(&a);
    return rc;
}

int kt_efivars_apply_file_auth(struct kt_efivars *s, const struct kt_efivars_auth *a,
                               const char *path, struct kt_efivars_change *c)
{
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    if (kt_file_open(path, &f, &e) < 0) {
        memset(c, 0, sizeof(*c));
        c->target = KT_EFIVAR__COUNT;
        c->error = e;
        return c->verdict = e.code ? e.code : -EIO;
    }
    int rc = apply(s, a, f.data, f.len, a->by_file_name ? named_by_file(path) : KT_EFIVAR__COUNT, c);
    kt_file_close(&f);
    return rc;
}

/* ---- writing a state out ---------------------------------------------- */

static int write_var(const struct kt_efivar *v, const char *dir, const char *name,
                     const char *guid, struct kt_error *err)
{
    if (v->state != KT_EFIVAR_PRESENT)
        return 0;
    char path[KT_EFIVARS_PATH + 64];
    kt_fmt(path, sizeof(path), "%s/%s-%s", dir, name, guid);
    return kt_file_write_atomic(path, v->raw, v->raw_len, err);
}

int kt_efivars_write(const struct kt_efivars *s, const char *dir, struct kt_error *err)
{
    char g[37], name[16];
    for (int i = 0; i < KT_EFIVAR__COUNT; i++) {
        const struct kt_efivar *v = &s->var[i];
        int rc = write_var(v, dir, kt_efivar_name(i), guid_of(v, i, g), err);
        if (rc < 0)
            return rc;
    }
    for (size_t i = 0; i < s->n_boot; i++) {
        const struct kt_efivar *v = &s->boot[i].var;
        kt_fmt(name, sizeof(name), "Boot%04X", s->boot[i].number & 0xffff);
        int rc = write_var(v, dir, name, guid_of(v, KT_EFIVAR_BOOT_ORDER, g), err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

void kt_efivars_change_free(struct kt_efivars_change *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_gained; i++)
        free(c->gained[i]);
    for (size_t i = 0; i < c->n_lost; i++)
        free(c->lost[i]);
    free(c->gained);
    free(c->lost);
    c->gained = c->lost = NULL;
    c->n_gained = c->n_lost = 0;
}
