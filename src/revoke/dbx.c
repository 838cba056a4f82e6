/* dbx.c - the revocations of dbx inputs, combined (check-update). */
#include <stdlib.h>
#include <string.h>

#include "authvar/authvar.h"
#include "esl/esl.h"
#include "esl/esl_svn.h"
#include "revoke/revoke.h"

struct add_ctx {
    struct kt_dbx *d;
    const char *source;
};

static int add_hash(struct kt_dbx *d, enum kt_hash alg, bool tbs, kt_span v, const char *src)
{
    if (v.len != kt_hash_size(alg))
        return 0; /* the ESL walker checked sizes; be safe */
    if (d->n_hashes == d->cap_hashes) {
        size_t cap = d->cap_hashes ? d->cap_hashes * 2 : 64;
        struct kt_dbx_hash *h = realloc(d->hashes, cap * sizeof(*h));
        if (!h)
            return -ENOMEM;
        d->hashes = h;
        d->cap_hashes = cap;
    }
    struct kt_dbx_hash *h = &d->hashes[d->n_hashes++];
    memset(h, 0, sizeof(*h));
    h->alg = alg;
    h->tbs = tbs;
    memcpy(h->v, v.p, v.len);
    h->source = src;
    if (!tbs)
        d->alg_used[alg] = true;
    return 0;
}

static int add_cert(struct kt_dbx *d, kt_span der, const char *src)
{
    if (d->n_certs == d->cap_certs) {
        size_t cap = d->cap_certs ? d->cap_certs * 2 : 8;
        struct kt_dbx_cert *c = realloc(d->certs, cap * sizeof(*c));
        if (!c)
            return -ENOMEM;
        d->certs = c;
        d->cap_certs = cap;
    }
    struct kt_dbx_cert *c = &d->certs[d->n_certs];
    c->der = malloc(der.len ? der.len : 1);
    if (!c->der)
        return -ENOMEM;
    memcpy(c->der, der.p, der.len);
    c->len = der.len;
    c->source = src;
    int rc = kt_digest(KT_HASH_SHA1, der.p, der.len, c->sha1);
    if (rc < 0) {
        free(c->der);
        return rc;
    }
    /* parsed for the issuer rule; one that does not parse still revokes
     * the very same certificate (its DER) */
    struct kt_error e = KT_ERROR_INIT;
    c->x = NULL;
    if (kt_x509_parse(c->der, c->len, &c->x, &e) == -ENOMEM) {
        free(c->der);
        return -ENOMEM;
    }
    d->n_certs++;
    return 0;
}

static int add_entry(void *ctx, const struct kt_esl_entry *e)
{
    struct add_ctx *a = ctx;
    if (kt_esl_is_svn(e)) {
        a->d->n_svn++;
        return 0;
    }
    switch (e->type) {
    case KT_ESL_SHA256: return add_hash(a->d, KT_HASH_SHA256, false, e->data, a->source);
    case KT_ESL_X509: return add_cert(a->d, e->data, a->source);
    case KT_ESL_X509_SHA256: return add_hash(a->d, KT_HASH_SHA256, true, e->data, a->source);
    case KT_ESL_X509_SHA384: return add_hash(a->d, KT_HASH_SHA384, true, e->data, a->source);
    case KT_ESL_X509_SHA512: return add_hash(a->d, KT_HASH_SHA512, true, e->data, a->source);
    default: break;
    }
    static const enum kt_hash other[] = {KT_HASH_SHA1, KT_HASH_SHA224, KT_HASH_SHA384,
                                         KT_HASH_SHA512};
    int t = kt_authvar_other_type(e, NULL);
    if (t >= 0 && t < 4)
        return add_hash(a->d, other[t], false, e->data, a->source);
    return 0; /* RSA2048 keys and unknown types revoke nothing firmware checks here */
}

int kt_dbx_add(struct kt_dbx *d, const uint8_t *buf, size_t len, const char *source,
               struct kt_error *err)
{
    struct add_ctx a = {d, source};
    int rc = kt_esl_foreach(buf, len, add_entry, &a, err);
    if (rc == -ENOMEM)
        kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    return rc;
}

void kt_dbx_free(struct kt_dbx *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_certs; i++) {
        kt_x509_free(d->certs[i].x);
        free(d->certs[i].der);
    }
    free(d->certs);
    free(d->hashes);
    memset(d, 0, sizeof(*d));
}
