/* check.c - one image against dbx entries and an SbatLevel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/blacklist.h"
#include "pe/pe.h"
#include "pkcs7/pkcs7.h"
#include "revoke/revoke.h"
#include "util/fmt.h"

const char *kt_revoke_by_name(enum kt_revoke_by by)
{
    switch (by) {
    case KT_REVOKE_IMAGE_HASH: return "image_hash";
    case KT_REVOKE_CERT: return "certificate";
    case KT_REVOKE_CERT_TBS: return "certificate_tbs";
    case KT_REVOKE_SBAT: return "sbat";
    }
    return "?";
}

static int push(struct kt_revoke_result *r, const struct kt_revoke_reason *why)
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->reasons[i].by != why->by)
            continue;
        if (!strcmp(r->reasons[i].detail, why->detail))
            return 0; /* the same certificate in two signatures: once */
        if (why->by == KT_REVOKE_CERT && !memcmp(r->reasons[i].hash, why->hash, 20))
            return 0; /* one X509 entry, met as a certificate and as an issuer: once */
    }
    struct kt_revoke_reason *v = realloc(r->reasons, (r->n + 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    r->reasons = v;
    r->reasons[r->n++] = *why;
    return 0;
}

static int check_hashes(const struct kt_pe *pe, const struct kt_dbx *dbx,
                        struct kt_revoke_result *res, struct kt_error *err)
{
    enum kt_hash algs[KT_HASH__COUNT];
    size_t n = 0;
    for (int a = 0; a < KT_HASH__COUNT; a++)
        if (dbx->alg_used[a])
            algs[n++] = (enum kt_hash)a;
    if (!n)
        return 0;
    uint8_t (*out)[KT_HASH_MAX_SIZE] = calloc(n, KT_HASH_MAX_SIZE);
    if (!out)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    int rc = kt_pe_image_digest(pe, algs, n, out, err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        size_t hl = kt_hash_size(algs[i]);
        for (size_t k = 0; rc == 0 && k < dbx->n_hashes; k++) {
            const struct kt_dbx_hash *h = &dbx->hashes[k];
            if (h->tbs || h->alg != algs[i] || memcmp(h->v, out[i], hl))
                continue;
            struct kt_revoke_reason why = {.by = KT_REVOKE_IMAGE_HASH, .alg = algs[i],
                                           .hash_len = hl};
            memcpy(why.hash, out[i], hl);
            char hex[2 * KT_HASH_MAX_SIZE + 1];
            snprintf(why.detail, sizeof(why.detail), "%s image hash %s", kt_hash_name(algs[i]),
                     kt_hex(out[i], hl, hex));
            rc = push(res, &why);
        }
    }
    free(out);
    return rc;
}

static int check_cert(const struct kt_x509 *c, const struct kt_dbx *dbx,
                      struct kt_revoke_result *res)
{
    for (size_t k = 0; k < dbx->n_certs; k++) {
        const struct kt_dbx_cert *d = &dbx->certs[k];
        if (d->len != c->der.len || memcmp(d->der, c->der.p, d->len))
            continue;
        struct kt_revoke_reason why = {.by = KT_REVOKE_CERT, .alg = KT_HASH_SHA1, .hash_len = 20};
        memcpy(why.hash, d->sha1, 20);
        snprintf(why.subject, sizeof(why.subject), "%s", c->subject ? c->subject : "?");
        snprintf(why.detail, sizeof(why.detail), "certificate %s",
                 c->description ? c->description : why.subject);
        KT_TRY(push(res, &why));
    }
    uint8_t tbs[KT_HASH_MAX_SIZE];
    enum kt_hash done = KT_HASH_NONE;
    for (size_t k = 0; k < dbx->n_hashes; k++) {
        const struct kt_dbx_hash *h = &dbx->hashes[k];
        if (!h->tbs)
            continue;
        if (h->alg != done) {
            if (h->alg == KT_HASH_SHA256)
                memcpy(tbs, c->tbs_sha256, 32);
            else
                KT_TRY(kt_digest(h->alg, c->tbs.p, c->tbs.len, tbs));
            done = h->alg;
        }
        size_t hl = kt_hash_size(h->alg);
        if (memcmp(tbs, h->v, hl))
            continue;
        struct kt_revoke_reason why = {.by = KT_REVOKE_CERT_TBS, .alg = h->alg, .hash_len = hl};
        memcpy(why.hash, tbs, hl);
        snprintf(why.subject, sizeof(why.subject), "%s", c->subject ? c->subject : "?");
        char hex[2 * KT_HASH_MAX_SIZE + 1];
        snprintf(why.detail, sizeof(why.detail), "certificate %s (%s of its TBS %s)",
                 c->description ? c->description : why.subject, kt_hash_name(h->alg),
                 kt_hex(tbs, hl, hex));
        KT_TRY(push(res, &why));
    }
    return 0;
}

/* The issuer rule: an X509 entry that issued c (kt_cert_denied_by: its
 * signature on c verifies) revokes, whether or not the signature carries
 * the entry's certificate (EDK2 IsForbiddenByDbx, shim check_denylist). */
static int check_issuer(const struct kt_x509 *c, const struct kt_dbx *dbx,
                        struct kt_revoke_result *res)
{
    for (size_t k = 0; k < dbx->n_certs; k++) {
        const struct kt_dbx_cert *d = &dbx->certs[k];
        if (!d->x || (d->len == c->der.len && !memcmp(d->der, c->der.p, d->len)) ||
            !kt_cert_denied_by(c, d->x))
            continue;
        struct kt_revoke_reason why = {.by = KT_REVOKE_CERT, .alg = KT_HASH_SHA1, .hash_len = 20};
        memcpy(why.hash, d->sha1, 20);
        snprintf(why.subject, sizeof(why.subject), "%s", d->x->subject ? d->x->subject : "?");
        snprintf(why.detail, sizeof(why.detail), "certificate %s, the issuer of %s",
                 d->x->description ? d->x->description : why.subject,
                 c->description ? c->description : (c->subject ? c->subject : "?"));
        KT_TRY(push(res, &why));
    }
    return 0;
}

static int check_certs(const struct kt_pe *pe, const struct kt_dbx *dbx,
                       struct kt_revoke_result *res, struct kt_error *err)
{
    if (!dbx->n_certs) {
        bool tbs = false;
        for (size_t k = 0; k < dbx->n_hashes && !tbs; k++)
            tbs = dbx->hashes[k].tbs;
        if (!tbs)
            return 0;
    }
    struct kt_pe_cert ents[KT_PE_MAX_CERTS];
    size_t n = 0;
    KT_TRY(kt_pe_cert_table(pe, ents, KT_PE_MAX_CERTS, &n, err));
    for (size_t i = 0; i < n; i++) {
        struct kt_pkcs7 *msg = NULL;
        struct kt_error e = KT_ERROR_INIT;
        int rc = kt_pkcs7_parse(ents[i].pkcs7.p, ents[i].pkcs7.len, &msg, &e);
        if (rc < 0)
            return kt_fail(err, rc, e.offset == KT_NO_OFFSET ? ents[i].offset
                                                             : ents[i].offset + 8 + e.offset,
                           "signature %zu: %s", i, e.what);
        for (size_t k = 0; rc == 0 && k < msg->n_certs; k++)
            rc = check_cert(msg->certs[k], dbx, res);
        for (size_t k = 0; rc == 0 && k < msg->n_certs; k++)
            rc = check_issuer(msg->certs[k], dbx, res);
        kt_pkcs7_free(msg);
        if (rc < 0)
            return kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    }
    return 0;
}

int kt_revoke_check(const uint8_t *buf, size_t len, const struct kt_dbx *dbx,
                    const struct kt_sbat_level *level, struct kt_revoke_result *res,
                    struct kt_error *err)
{
    memset(res, 0, sizeof(*res));
    struct kt_pe *pe = NULL;
    KT_TRY(kt_pe_parse(buf, len, &pe, err));
    res->pe32plus = pe->pe32plus;
    res->machine = pe->machine;
    int rc = 0;
    if (dbx) {
        rc = check_hashes(pe, dbx, res, err);
        if (rc == 0) {
            struct kt_error ce = KT_ERROR_INIT;
            rc = check_certs(pe, dbx, res, &ce);
            if (rc < 0 && rc != -ENOMEM && res->n)
                rc = 0; /* revoked by its hash already: a bad signature changes nothing */
            else if (rc < 0)
                kt_fail(err, rc, ce.offset, "%s", ce.what);
        }
    }
    if (rc == 0 && level) {
        struct kt_sbat s = {0};
        const struct kt_sbat_entry *ie, *le;
        struct kt_error se = KT_ERROR_INIT;
        rc = kt_sbat_from_pe(pe, &s, err);
        if (rc == 0 && !s.present)
            res->sbat_missing = true;
        if (rc == 0 && kt_sbat_check(&s, level, &ie, &le, &se) == -EKEYREJECTED) {
            struct kt_revoke_reason why = {.by = KT_REVOKE_SBAT};
            const char *what = se.what + strlen("revoked by SBAT: ");
            snprintf(why.detail, sizeof(why.detail), "%s",
                     strncmp(se.what, "revoked by SBAT: ", 17) ? se.what : what);
            rc = push(res, &why);
        }
        kt_sbat_free(&s);
    }
    kt_pe_free(pe);
    if (rc < 0) {
        kt_revoke_result_free(res);
        return rc == -ENOMEM ? kt_fail(err, rc, KT_NO_OFFSET, "out of memory") : rc;
    }
    return 0;
}

void kt_revoke_result_free(struct kt_revoke_result *res)
{
    if (!res)
        return;
    free(res->reasons);
    res->reasons = NULL;
    res->n = 0;
}
