/* keyring_blob.c - add every key a blob holds: DER, PEM (bundles),
 * concatenated DER certificate lists, EFI signature lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esl/esl.h"
#include "esl/esl_svn.h"
#include "policy/load.h"
#include "util/err.h"

struct blob_ctx {
    struct kt_keyrings *k;
    struct kt_keyring *r;
    const char *source;
    enum kt_add_how how;
    size_t n_added, n_seen;
    struct kt_error *err;
    kt_skip_cb skip; /* NULL: the first refused certificate fails the blob */
    void *skip_ctx;
    size_t n_skipped, n_certs;
    struct kt_error first_skip;
    struct hash_vec *vecs; /* kt_keyrings_add_blob_indexed: hashes gathered, not added */
    const uint8_t *base;
    size_t len;
};

/* The offsets of one kind of hash in the blob, for kt_blacklist_add_index:
 * "bin" SHA-256, "tbs" SHA-256/384/512. */
struct hash_vec {
    uint32_t *offs;
    size_t n, cap;
};
#define N_VEC 4
static size_t vec_of(const char *kind, enum kt_hash h)
{
    return kind[0] == 'b' ? 0 : h == KT_HASH_SHA256 ? 1 : h == KT_HASH_SHA384 ? 2 : 3;
}
static const struct {
    const char *kind;
    enum kt_hash h;
} vec_kinds[N_VEC] = {{"bin", KT_HASH_SHA256}, {"tbs", KT_HASH_SHA256},
                      {"tbs", KT_HASH_SHA384}, {"tbs", KT_HASH_SHA512}};

/* One hash entry: into the blacklist, or gathered for its index. */
static int add_hash(struct blob_ctx *b, const char *kind, enum kt_hash h, const uint8_t *digest,
                    const char *src)
{
    if (!b->vecs)
        return kt_blacklist_add_hash(b->k, kind, h, digest, src);
    struct hash_vec *v = &b->vecs[vec_of(kind, h)];
    if (!v->offs) { /* room for every digest the blob can hold: only what is used is touched */
        v->cap = b->len / 32 + 1;
        if (!(v->offs = malloc(v->cap * sizeof(*v->offs))))
            return -ENOMEM;
    }
    if (v->n == v->cap)
        return -EOVERFLOW; /* more digests than bytes for them: cannot be */
    v->offs[v->n++] = (uint32_t)(digest - b->base);
    return 0;
}

/* Add one certificate; duplicates are skipped.  Offsets in the detail are
 * made absolute (cert offset + offset inside it). */
static int add_one(struct blob_ctx *b, struct kt_keyring *r, const uint8_t *der, size_t len,
                   size_t file_offset, const char *source)
{
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_keyring_add(b->k, r, der, len, source, b->how, NULL, &e);
    b->n_certs++;
    if (rc == -EEXIST)
        return 0;
    if (rc < 0) {
        size_t off = e.offset == KT_NO_OFFSET ? file_offset : file_offset + e.offset;
        if (b->skip && rc != -ENOMEM) {
            e.offset = off;
            if (b->n_skipped++ == 0)
                b->first_skip = e;
            b->skip(b->skip_ctx, b->n_certs, der, len, &e);
            return 0;
        }
        return kt_fail(b->err, rc, off, "%s", e.what[0] ? e.what : "certificate refused");
    }
    b->n_added++;
    return 0;
}

static int cert_cb(void *ctx, const uint8_t *der, size_t len, size_t file_offset)
{
    struct blob_ctx *b = ctx;
    char src[4096];
    if (b->n_seen++ == 0)
        snprintf(src, sizeof(src), "%s", b->source);
    else
        snprintf(src, sizeof(src), "%s#%zu", b->source, b->n_seen - 1);
    return add_one(b, b->r, der, len, file_offset, src);
}

static int esl_cb(void *ctx, const struct kt_esl_entry *en)
{
    struct blob_ctx *b = ctx;
    char src[4096];
    snprintf(src, sizeof(src), "%s#%zu.%zu", b->source, en->list_index, en->entry_index);
    int rc = 0;
    if (en->type == KT_ESL_X509)
        return add_one(b, b->r, en->data.p, en->data.len, en->offset, src);
    /* Hashes are blacklist entries only in a dbx/MokListX loaded into the
     * blacklist; in db/MokList (allow lists) the kernel ignores them, and so
     * do we: an allowed image hash must never become a blacklisted one. */
    if (kt_keyring_restriction(b->r) != KT_RESTRICT_BLACKLIST)
        return 0;
    if (kt_esl_is_svn(en))
        return 0; /* a dbx SVN record (esl_svn.h), not an image hash */
    switch (en->type) {
    case KT_ESL_SHA256:
        if (en->data.len != 32)
            return kt_fail(b->err, -EBADMSG, en->offset, "ESL SHA256 entry: %zu bytes, want 32",
                           en->data.len);
        rc = add_hash(b, "bin", KT_HASH_SHA256, en->data.p, src);
        break;
    case KT_ESL_X509_SHA256:
    case KT_ESL_X509_SHA384:
    case KT_ESL_X509_SHA512: {
        enum kt_hash h = en->type == KT_ESL_X509_SHA256   ? KT_HASH_SHA256
                         : en->type == KT_ESL_X509_SHA384 ? KT_HASH_SHA384
                                                          : KT_HASH_SHA512;
        if (en->data.len != kt_hash_size(h))
            return kt_fail(b->err, -EBADMSG, en->offset, "ESL %s entry: %zu bytes, want %zu",
                           kt_esl_type_name(en->type), en->data.len, kt_hash_size(h));
        rc = add_hash(b, "tbs", h, en->data.p, src);
        break;
    }
    default: return 0; /* other signature types carry no key */
    }
    if (rc == -EEXIST)
        return 0;
    if (rc < 0)
        return kt_fail(b->err, rc, en->offset, "blacklist: cannot add hash");
    b->n_added++;
    return 0;
}

int kt_keyrings_add_blob(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *buf,
                         size_t len, const char *source, enum kt_add_how how, size_t *n_added,
                         struct kt_error *err)
{
    return kt_keyrings_add_blob_skip(k, r, buf, len, source, how, n_added, NULL, NULL, err);
}

int kt_keyrings_add_blob_skip(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *buf,
                              size_t len, const char *source, enum kt_add_how how,
                              size_t *n_added, kt_skip_cb skip, void *skip_ctx,
                              struct kt_error *err)
{
    struct blob_ctx b = {k, r, source ? source : "", how, 0, 0, err, skip, skip_ctx, 0, 0, {0},
                         NULL, buf, len};
    int rc;
    if (n_added)
        *n_added = 0;
    if (!k || !r)
        return kt_fail(err, -EINVAL, KT_NO_OFFSET, "no such keyring");
    if (!buf || len == 0)
        return kt_fail(err, -ENODATA, 0, "empty input: no certificate found");
    if (kt_esl_looks_like(buf, len)) {
        rc = kt_esl_foreach(buf, len, esl_cb, &b, err);
    } else if (buf[0] == 0x30) {
        rc = kt_certlist_foreach(buf, len, cert_cb, &b, err);
        if (rc == 0 && b.n_seen == 0)
            rc = kt_fail(err, -ENODATA, 0, "no certificate found");
    } else {
        rc = kt_certs_foreach(buf, len, cert_cb, &b, err);
    }
    if (rc == 0 && b.n_skipped && b.n_skipped == b.n_certs)
        rc = kt_fail(err, b.first_skip.code, b.first_skip.offset, "%s", b.first_skip.what);
    if (n_added)
        *n_added = b.n_added;
    return rc;
}

int kt_keyrings_add_blob_indexed(struct kt_keyrings *k, struct kt_keyring *r, const uint8_t *buf,
                                 size_t len, const char *source, struct kt_error *err)
{
    struct hash_vec vecs[N_VEC] = {{0}};
    struct blob_ctx b = {k, r, source ? source : "", KT_ADD_EXPLICIT, 0, 0, err, NULL, NULL, 0, 0,
                         {0}, vecs, buf, len};
    int rc;
    if (!k || !r)
        rc = kt_fail(err, -EINVAL, KT_NO_OFFSET, "no such keyring");
    else if (!buf || len == 0 || len > UINT32_MAX || !kt_esl_looks_like(buf, len))
        rc = kt_keyrings_add_blob(k, r, buf, len, source, KT_ADD_EXPLICIT, NULL, err);
    else
        rc = kt_esl_foreach(buf, len, esl_cb, &b, err);
    for (size_t i = 0; i < N_VEC; i++) {
        int irc = rc < 0 ? (free(vecs[i].offs), 0)
                         : kt_blacklist_add_index(k, vec_kinds[i].kind, vec_kinds[i].h, buf,
                                                  vecs[i].offs, vecs[i].n, source);
        if (irc < 0 && rc == 0)
            rc = kt_fail(err, irc, KT_NO_OFFSET, "blacklist: cannot index the hashes");
    }
    return rc;
}
