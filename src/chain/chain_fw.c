/* chain_fw.c - firmware's db and dbx walked once per image (chain_fw.h):
 * the dbx entries that deny it and the db entry that accepts it, each
 * named by variable, index, owner and data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "authvar/authvar.h"
#include "chain/chain_fw.h"
#include "esl/esl.h"
#include "esl/esl_svn.h"
#include "keys/blacklist.h"
#include "ktrust/advanced.h"
#include "util/fmt.h"

/* "db-d719b2cb-3d3a-4596-a3bc-dad00e67656f" (an efivarfs file): "db". */
static char *label_of(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t n = strlen(base);
    if (n > 37 && base[n - 37] == '-' && base[n - 28] == '-' && base[n - 13] == '-')
        return strndup(base, n - 37);
    return strdup(name);
}

static int add_src(struct kt_fw_dbs *d, bool dbx, const uint8_t *buf, size_t len,
                   const char *name, bool copy)
{
    struct kt_fw_src *arr = dbx ? d->dbx : d->db;
    size_t *n = dbx ? &d->n_dbx : &d->n_db;
    if (*n >= KT_FW_MAX_SRC)
        return -E2BIG;
    struct kt_fw_src *s = &arr[*n];
    s->owned = copy ? malloc(len ? len : 1) : NULL;
    s->label = label_of(name ? name : "?");
    if ((copy && !s->owned) || !s->label) {
        free(s->owned);
        free(s->label);
        return -ENOMEM;
    }
    if (copy)
        memcpy(s->owned, buf, len);
    s->buf = copy ? s->owned : buf;
    s->len = len;
    (*n)++;
    return 0;
}

int kt_fw_dbs_add(struct kt_fw_dbs *d, bool dbx, const uint8_t *buf, size_t len,
                  const char *name)
{
    return add_src(d, dbx, buf, len, name, true);
}

int kt_fw_dbs_borrow(struct kt_fw_dbs *d, bool dbx, const uint8_t *buf, size_t len,
                     const char *name)
{
    return add_src(d, dbx, buf, len, name, false);
}

void kt_fw_dbs_free(struct kt_fw_dbs *d)
{
    for (size_t i = 0; i < d->n_db; i++)
        free(d->db[i].owned), free(d->db[i].label);
    for (size_t i = 0; i < d->n_dbx; i++)
        free(d->dbx[i].owned), free(d->dbx[i].label);
    memset(d, 0, sizeof(*d));
}

struct walk {
    const struct kt_pe_result *r;
    const char *label;
    size_t index;                  /* the entry's index in this input */
    struct kt_chain_link *l;
    bool db;                       /* walking db (else dbx) */
    int db_sig;                    /* db: the signature whose acceptor is sought (-1 hash) */
    enum kt_hash got[KT_HASH__COUNT];
    uint8_t dig[KT_HASH__COUNT][KT_HASH_MAX_SIZE];
    bool have[KT_HASH__COUNT];
};

/* The image's digest in alg: from the one pass, or computed now (an
 * algorithm only the dbx walk asks for). */
static const uint8_t *digest(struct walk *w, enum kt_hash alg)
{
    const struct kt_pe_result *r = w->r;
    for (size_t i = 0; i < r->n_hashes; i++)
        if (r->hashes[i] == alg)
            return r->digests[i];
    if (!w->have[alg]) {
        struct kt_error e = KT_ERROR_INIT;
        uint8_t (*out)[KT_HASH_MAX_SIZE] = &w->dig[alg];
        if (!kt_hash_available(alg) || kt_pe_image_digest(r->pe, &alg, 1, out, &e) < 0)
            return NULL;
        w->have[alg] = true;
    }
    return w->dig[alg];
}

static void entry_init(struct kt_chain_entry *x, const struct walk *w,
                       const struct kt_esl_entry *e, enum kt_revoke_by by, int sig)
{
    memset(x, 0, sizeof(*x));
    kt_fmt(x->var, sizeof(x->var), "%s", w->label);
    x->index = w->index;
    if (e->owner)
        memcpy(x->owner, e->owner, 16);
    x->by = by;
    x->sig = sig;
    kt_digest(KT_HASH_SHA256, e->data.p, e->data.len, x->data_sha256);
}

static struct kt_chain_entry *dbx_push(struct walk *w)
{
    struct kt_chain_link *l = w->l;
    for (size_t i = 0; i < l->n_dbx && i < KT_CHAIN_MAX_DBX; i++)
        if (l->dbx[i].index == w->index && !strcmp(l->dbx[i].var, w->label))
            return NULL; /* one reason per entry */
    l->n_dbx++;
    return l->n_dbx <= KT_CHAIN_MAX_DBX ? &l->dbx[l->n_dbx - 1] : NULL;
}

static const char *desc(const struct kt_x509 *c)
{
    return c->description ? c->description : c->subject ? c->subject : "?";
}

bool kt_fw_entry_hash(const struct kt_esl_entry *e, enum kt_hash *alg, bool *tbs)
{
    static const enum kt_hash other[] = {KT_HASH_SHA1, KT_HASH_SHA224, KT_HASH_SHA384,
                                         KT_HASH_SHA512};
    *tbs = e->type == KT_ESL_X509_SHA256 || e->type == KT_ESL_X509_SHA384 ||
           e->type == KT_ESL_X509_SHA512;
    switch (e->type) {
    case KT_ESL_SHA256: *alg = KT_HASH_SHA256; return true;
    case KT_ESL_X509_SHA256: *alg = KT_HASH_SHA256; return true;
    case KT_ESL_X509_SHA384: *alg = KT_HASH_SHA384; return true;
    case KT_ESL_X509_SHA512: *alg = KT_HASH_SHA512; return true;
    default: break;
    }
    int t = kt_authvar_other_type(e, NULL);
    if (t < 0 || t >= 4)
        return false;
    *alg = other[t];
    return true;
}

static void image_hash_hit(struct walk *w, const struct kt_esl_entry *e, enum kt_hash alg,
                           struct kt_chain_entry *x)
{
    char hex[2 * KT_HASH_MAX_SIZE + 1];
    entry_init(x, w, e, KT_REVOKE_IMAGE_HASH, -1);
    kt_fmt(x->alg, sizeof(x->alg), "%s", kt_hash_name(alg));
    memcpy(x->value, e->data.p, e->data.len);
    x->value_len = e->data.len;
    kt_fmt(x->detail, sizeof(x->detail), "%s image hash %s", kt_hash_name(alg),
           kt_hex(e->data.p, e->data.len, hex));
}

/* The chain of top-level signature i from its signer (none: 0). */
static size_t chain_of(const struct kt_pe_result *r, size_t i, const struct kt_x509 *const **out)
{
    const struct kt_pe_signature *s = &r->sigs[i];
    if (!s->msg || !s->msg->n_signers)
        return 0;
    *out = (const struct kt_x509 *const *)s->msg->signers[0].chain;
    return s->msg->signers[0].chain_len;
}

/* An X509 entry against the chain certificates of each signature: the
 * certificate itself (pass 0) or one it issued (pass 1, kt_cert_denied_by). */
static bool dbx_cert_pass(struct walk *w, const struct kt_esl_entry *e, const struct kt_x509 *x,
                          int pass)
{
    for (size_t i = 0; i < w->r->n_sigs; i++) {
        const struct kt_x509 *const *ch;
        size_t n = chain_of(w->r, i, &ch);
        for (size_t k = 0; k < n; k++) {
            const struct kt_x509 *c = ch[k];
            bool same = c->der.len == e->data.len && !memcmp(c->der.p, e->data.p, e->data.len);
            if (pass == 0 ? !same : !kt_cert_denied_by(c, x))
                continue;
            struct kt_chain_entry *h = dbx_push(w);
            if (!h)
                return true;
            entry_init(h, w, e, KT_REVOKE_CERT, (int)i);
            kt_digest(KT_HASH_SHA1, e->data.p, e->data.len, h->value);
            h->value_len = 20;
            kt_fmt(h->subject, sizeof(h->subject), "%s", x->subject ? x->subject : "?");
            kt_fmt(h->description, sizeof(h->description), "%s", desc(x));
            if (same)
                kt_fmt(h->detail, sizeof(h->detail), "certificate %s", desc(c));
            else
                kt_fmt(h->detail, sizeof(h->detail), "certificate %s, the issuer of %s", desc(x),
                       desc(c));
            return true;
        }
    }
    return false;
}

/* An X509_SHA* entry: the hash of a chain certificate's TBSCertificate. */
static void dbx_tbs(struct walk *w, const struct kt_esl_entry *e, enum kt_hash alg)
{
    for (size_t i = 0; i < w->r->n_sigs; i++) {
        const struct kt_x509 *const *ch;
        size_t n = chain_of(w->r, i, &ch);
        for (size_t k = 0; k < n; k++) {
            const struct kt_x509 *c = ch[k];
            uint8_t t[KT_HASH_MAX_SIZE];
            if (alg == KT_HASH_SHA256)
                memcpy(t, c->tbs_sha256, 32);
            else if (kt_digest(alg, c->tbs.p, c->tbs.len, t) < 0)
                continue;
            if (memcmp(t, e->data.p, e->data.len))
                continue;
            struct kt_chain_entry *h = dbx_push(w);
            if (!h)
                return;
            char hex[2 * KT_HASH_MAX_SIZE + 1];
            entry_init(h, w, e, KT_REVOKE_CERT_TBS, (int)i);
            kt_fmt(h->alg, sizeof(h->alg), "%s", kt_hash_name(alg));
            memcpy(h->value, e->data.p, e->data.len);
            h->value_len = e->data.len;
            kt_fmt(h->subject, sizeof(h->subject), "%s", c->subject ? c->subject : "?");
            kt_fmt(h->detail, sizeof(h->detail), "certificate %s (%s of its TBS %s)", desc(c),
                   kt_hash_name(alg), kt_hex(t, e->data.len, hex));
            return;
        }
    }
}

static int on_dbx(struct walk *w, const struct kt_esl_entry *e)
{
    enum kt_hash alg;
    bool tbs;
    if (kt_esl_is_svn(e))
        return 0;
    if (e->type == KT_ESL_X509) {
        struct kt_x509 *x = NULL;
        if (kt_x509_parse(e->data.p, e->data.len, &x, NULL) == -ENOMEM)
            return -ENOMEM;
        if (x && !dbx_cert_pass(w, e, x, 0))
            dbx_cert_pass(w, e, x, 1);
        kt_x509_free(x);
        return 0;
    }
    if (!kt_fw_entry_hash(e, &alg, &tbs) || e->data.len != kt_hash_size(alg))
        return 0;
    if (tbs) {
        dbx_tbs(w, e, alg);
        return 0;
    }
    const uint8_t *d = digest(w, alg);
    struct kt_chain_entry *h;
    if (d && !memcmp(d, e->data.p, e->data.len) && (h = dbx_push(w)))
        image_hash_hit(w, e, alg, h);
    return 0;
}

/* db: the entry that accepts signature w->db_sig (the first in db's order:
 * IsAllowedByDb), or with db_sig -1 an image SHA-256 hash entry. */
static int on_db(struct walk *w, const struct kt_esl_entry *e)
{
    struct kt_chain_entry *x = &w->l->db;
    if (x->var[0])
        return 1;
    if (w->db_sig < 0) {
        const uint8_t *d = e->type == KT_ESL_SHA256 ? digest(w, KT_HASH_SHA256) : NULL;
        if (d && e->data.len == 32 && !memcmp(d, e->data.p, 32) && !kt_esl_is_svn(e)) {
            image_hash_hit(w, e, KT_HASH_SHA256, x);
            return 1;
        }
        return 0;
    }
    if (e->type != KT_ESL_X509)
        return 0;
    struct kt_x509 *c = NULL;
    if (kt_x509_parse(e->data.p, e->data.len, &c, NULL) == -ENOMEM)
        return -ENOMEM;
    const struct kt_x509 *const *ch;
    size_t n = c ? chain_of(w->r, (size_t)w->db_sig, &ch) : 0;
    for (size_t k = 0; k < n && !x->var[0]; k++) {
        if (!kt_cert_denied_by(ch[k], c))
            continue;
        entry_init(x, w, e, KT_REVOKE_CERT, w->db_sig);
        kt_digest(KT_HASH_SHA1, e->data.p, e->data.len, x->value);
        x->value_len = 20;
        kt_fmt(x->subject, sizeof(x->subject), "%s", c->subject ? c->subject : "?");
        kt_fmt(x->description, sizeof(x->description), "%s", desc(c));
        kt_fmt(x->detail, sizeof(x->detail), "certificate %s", desc(c));
    }
    kt_x509_free(c);
    return x->var[0] ? 1 : 0;
}

static int on_entry(void *ctx, const struct kt_esl_entry *e)
{
    struct walk *w = ctx;
    int rc = w->db ? on_db(w, e) : on_dbx(w, e);
    w->index++;
    return rc;
}

/* A certificate of a DER or PEM input: an X509 entry, owner zero. */
static int on_cert(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    static const uint8_t zero[16];
    (void)off;
    struct kt_esl_entry e = {.type = KT_ESL_X509, .owner = zero, .data = {der, len}};
    return on_entry(ctx, &e);
}

/* Walk the inputs of db or dbx; certificates (DER, PEM) are X509 entries. */
static int walk_all(struct walk *w, const struct kt_fw_src *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        w->label = src[i].label;
        w->index = 0;
        int rc = kt_esl_foreach(src[i].buf, src[i].len, on_entry, w, NULL);
        if (rc == -EBADMSG && !kt_esl_looks_like(src[i].buf, src[i].len)) {
            w->index = 0;
            rc = kt_certs_foreach(src[i].buf, src[i].len, on_cert, w, NULL);
        }
        if (rc == -ENOMEM)
            return rc;
        if (w->db && w->l->db.var[0])
            return 1; /* db: found */
    }
    return 0;
}

/* A signature firmware can verify: its PKCS#7 parsed, the signed digest
 * is the image's and the signer's signature checks out. */
static bool checks_out(const struct kt_pe_signature *s)
{
    return s->msg && s->msg->n_signers && s->digest_match && s->msg->signers[0].verify_rc == 0;
}

int kt_fw_walk(const struct kt_fw_dbs *d, const struct kt_pe_result *r, struct kt_chain_link *l)
{
    struct walk w = {.r = r, .l = l, .db_sig = -1};
    memset(&l->db, 0, sizeof(l->db));
    l->n_dbx = 0;
    int rc = walk_all(&w, d->dbx, d->n_dbx);
    w.db = true;
    for (size_t i = 0; rc >= 0 && i < r->n_sigs && !l->db.var[0]; i++)
        if (checks_out(&r->sigs[i])) {
            w.db_sig = (int)i;
            rc = walk_all(&w, d->db, d->n_db);
        }
    if (rc >= 0 && !l->db.var[0]) {
        w.db_sig = -1;
        rc = walk_all(&w, d->db, d->n_db);
    }
    return rc < 0 ? rc : 0;
}

int kt_fw_db_entry(const struct kt_fw_dbs *d, const struct kt_pe_result *r, size_t sig,
                   struct kt_chain_entry *out)
{
    struct kt_chain_link *l = calloc(1, sizeof(*l));
    if (!l)
        return -ENOMEM;
    struct walk w = {.r = r, .l = l, .db = true, .db_sig = (int)sig};
    int rc = sig < r->n_sigs && checks_out(&r->sigs[sig]) ? walk_all(&w, d->db, d->n_db) : 0;
    *out = l->db;
    free(l);
    return rc < 0 ? rc : 0;
}

void kt_fw_verdict(struct kt_chain_link *l)
{
    if (l->n_dbx && l->verdict != -EKEYREJECTED) {
        l->verdict = -EKEYREJECTED;
        kt_fmt(l->reason, sizeof(l->reason), "%s entry %zu denies it: %s", l->dbx[0].var,
               l->dbx[0].index, l->dbx[0].detail);
        return;
    }
    if (l->n_dbx)
        return;
    if ((l->verdict == -ENODATA || l->verdict == -ENOKEY) && l->db.var[0] &&
        l->db.by == KT_REVOKE_IMAGE_HASH) {
        /* firmware admits an image whose hash db lists, signed or not */
        l->verdict = 0;
        kt_fmt(l->reason, sizeof(l->reason), "its SHA-256 image hash is in %s (entry %zu)",
               l->db.var, l->db.index);
        kt_fmt(l->trusted_by, sizeof(l->trusted_by), "%s: SHA-256 image hash", l->db.var);
        return;
    }
    if (l->verdict == 0 && l->db.by == KT_REVOKE_CERT && l->db.var[0] &&
        strcmp(l->trusted_by, l->db.description)) {
        /* firmware takes the first db entry that verifies the signature,
         * in db's order, not the one nearest the signer */
        kt_fmt(l->trusted_by, sizeof(l->trusted_by), "%s", l->db.description);
        kt_fmt(l->reason, sizeof(l->reason), "signature %d trusted: %s vouches", l->db.sig,
               l->trusted_by);
    }
}
