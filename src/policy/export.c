/* export.c - a keyring's contents as one PEM, DER or ESL file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "esl/esl.h"
#include "keys/blacklist.h"
#include "policy/export.h"
#include "x509/x509.h"

struct obuf {
    uint8_t *p;
    size_t n, cap;
};

static int put(struct obuf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap : 4096;
        while (nc < b->n + n)
            nc *= 2;
        uint8_t *np = realloc(b->p, nc);
        if (!np)
            return -ENOMEM;
        b->p = np;
        b->cap = nc;
    }
    if (n)
        memcpy(b->p + b->n, d, n);
    b->n += n;
    return 0;
}

/* put what a builder made (rc: its result), then free it */
static int put_owned(struct obuf *b, int rc, uint8_t *p, size_t n)
{
    if (rc == 0)
        rc = put(b, p, n);
    free(p);
    return rc;
}

int kt_export_format_parse(const char *name, enum kt_export_format *out)
{
    static const char *const names[] = {"pem", "der", "esl"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(name, names[i])) {
            *out = (enum kt_export_format)i;
            return 0;
        }
    return -EINVAL;
}

/* The blacklist's hashes as one ESL per hash type. */
static int put_hashes(const struct kt_keyrings *k, struct obuf *b, size_t *n_hashes)
{
    static const struct {
        const char *kind;
        enum kt_hash h;
        enum kt_esl_type t;
    } kinds[] = {{"bin", KT_HASH_SHA256, KT_ESL_SHA256},
                 {"tbs", KT_HASH_SHA256, KT_ESL_X509_SHA256},
                 {"tbs", KT_HASH_SHA384, KT_ESL_X509_SHA384},
                 {"tbs", KT_HASH_SHA512, KT_ESL_X509_SHA512}};
    size_t nh = kt_blacklist_hash_count(k);
    if (!nh)
        return 0;
    const uint8_t **d = calloc(nh, sizeof(*d));
    if (!d)
        return -ENOMEM;
    int rc = 0;
    for (size_t t = 0; t < sizeof(kinds) / sizeof(kinds[0]) && rc == 0; t++) {
        size_t n = 0;
        for (size_t i = 0; i < nh; i++) {
            const struct kt_blacklist_hash *h = kt_blacklist_hash_at(k, i);
            if (!strcmp(h->kind, kinds[t].kind) && h->hash == kinds[t].h)
                d[n++] = h->digest;
        }
        if (!n)
            continue;
        uint8_t *esl = NULL;
        size_t len = 0;
        rc = kt_esl_build_hashes(kinds[t].t, d, n, NULL, &esl, &len);
        rc = put_owned(b, rc, esl, len);
        *n_hashes += rc == 0 ? n : 0;
    }
    free(d);
    return rc;
}

static int put_esl(const struct kt_keyrings *k, const struct kt_keyring *r, struct obuf *b,
                   size_t *n_hashes)
{
    size_t n = kt_keyring_count(r);
    kt_span *spans = calloc(n ? n : 1, sizeof(*spans));
    if (!spans)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        spans[i] = (kt_span){kt_keyring_key(r, i)->der, kt_keyring_key(r, i)->der_len};
    uint8_t *esl = NULL;
    size_t len = 0;
    int rc = kt_esl_build_x509(spans, n, NULL, &esl, &len);
    rc = put_owned(b, rc, esl, len);
    free(spans);
    if (rc == 0 && kt_keyrings_blacklist(k) == r)
        rc = put_hashes(k, b, n_hashes);
    return rc;
}

int kt_keyring_export(const struct kt_keyrings *k, const struct kt_keyring *r,
                      enum kt_export_format f, uint8_t **out, size_t *len, size_t *n_hashes)
{
    struct obuf b = {0};
    size_t hashes = 0;
    int rc = 0;
    if (f == KT_EXPORT_ESL) {
        rc = put_esl(k, r, &b, &hashes);
    } else {
        for (size_t i = 0; i < kt_keyring_count(r) && rc == 0; i++) {
            const struct kt_key *key = kt_keyring_key(r, i);
            if (f == KT_EXPORT_DER) {
                rc = put(&b, key->der, key->der_len);
            } else {
                size_t n = 0;
                char *pem = kt_pem_encode_cert(key->der, key->der_len, &n);
                rc = put_owned(&b, pem ? 0 : -ENOMEM, (uint8_t *)pem, n);
            }
        }
    }
    if (rc < 0) {
        free(b.p);
        b = (struct obuf){0};
        hashes = 0;
    }
    *out = b.p;
    *len = b.n;
    if (n_hashes)
        *n_hashes = hashes;
    return rc;
}
