/* kernel_cache.c - a kernel image's builtin keys, kept in the store under
 * the image's SHA-256, so the decode up to the certificate list is paid once
 * per image, not once per run.
 *
 * The cache holds the certificates exactly as kt_kimage_foreach_cert gave
 * them, in order; a hit feeds them through the same kt_keyrings_add_kernel_cert
 * a decode would, so the keyrings come out the same either way.  An entry is
 * found only by the SHA-256 of the bytes in hand, computed on every use.
 * Saving is best effort and never changes the run's verdicts: a store that
 * cannot be written (read-only, locked, no schema yet) is simply not
 * updated. */
#include <stdlib.h>
#include <string.h>

#include "crypto/crypto.h"
#include "kimage/kimage.h"
#include "policy/load.h"
#include "store/store_int.h"

#define KCACHE_IMAGES 16 /* images remembered; the least recently saved go */
#define STR_(x) #x
#define STR(x) STR_(x)

static const char kcache_schema[] =
    "CREATE TABLE IF NOT EXISTS kernel_keys("
    " image_sha256 BLOB NOT NULL,"
    " idx INTEGER NOT NULL,"
    " der BLOB NOT NULL,"
    " seq INTEGER NOT NULL," /* grows with each image saved: the newest have the largest */
    " PRIMARY KEY(image_sha256, idx));";

struct cert_list {
    uint8_t **der;
    size_t *len, n, cap;
};

static void list_free(struct cert_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->der[i]);
    free(l->der);
    free(l->len);
}

static int list_push(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    struct cert_list *l = ctx;
    (void)off;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        uint8_t **d = realloc(l->der, cap * sizeof(*d));
        if (!d)
            return -ENOMEM;
        l->der = d;
        size_t *n = realloc(l->len, cap * sizeof(*n));
        if (!n)
            return -ENOMEM;
        l->len = n;
        l->cap = cap;
    }
    if (!(l->der[l->n] = malloc(len ? len : 1)))
        return -ENOMEM;
    memcpy(l->der[l->n], der, len);
    l->len[l->n++] = len;
    return 0;
}

/* The cached list for this image: 1 found, 0 not cached (or no table). */
static int cache_get(struct kt_store *s, const uint8_t sha[32], struct cert_list *l)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT der FROM kernel_keys WHERE image_sha256 = ? ORDER BY idx",
                           -1, &st, NULL) != SQLITE_OK)
        return 0; /* a store that never cached a kernel has no table */
    sqlite3_bind_blob(st, 1, sha, 32, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const void *der = sqlite3_column_blob(st, 0);
        int len = sqlite3_column_bytes(st, 0);
        if (!der || len <= 0 || list_push(l, der, (size_t)len, 0) < 0) {
            rc = SQLITE_ERROR;
            break;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) { /* a read error is a miss: decode instead */
        list_free(l);
        memset(l, 0, sizeof(*l));
        return 0;
    }
    return l->n > 0;
}

/* Save the list under sha in its own write transaction, on a second
 * connection (the reading one is query-only).  0, or why it was not saved. */
static int cache_put(const struct kt_store *reader, const uint8_t sha[32],
                     const struct cert_list *l)
{
    if (reader->empty || reader->mode != KT_STORE_READ)
        return -EPERM; /* never give a file with no schema one as a side effect */
    struct kt_store *w;
    int rc = kt_store_open(reader->path, KT_STORE_WRITE, &w, NULL);
    if (rc < 0)
        return rc;
    /* a cache: losing the last write to a power cut costs one decode, so no
     * fsync per commit (WAL keeps the file consistent either way) */
    if ((rc = kt_store_exec(w, "PRAGMA synchronous=NORMAL", "caching", NULL)) < 0 ||
        (rc = kt_store_exec(w, "BEGIN IMMEDIATE", "caching", NULL)) < 0) {
        kt_store_close(w);
        return rc;
    }
    sqlite3_stmt *ins = NULL;
    rc = kt_store_exec(w, kcache_schema, "caching", NULL);
    if (rc == 0 && sqlite3_prepare_v2(w->db,
                                      "INSERT OR REPLACE INTO kernel_keys"
                                      "(image_sha256, idx, der, seq) VALUES (?, ?, ?,"
                                      " (SELECT coalesce(max(seq), 0) + 1 FROM kernel_keys))",
                                      -1, &ins, NULL) != SQLITE_OK)
        rc = -EIO;
    for (size_t i = 0; rc == 0 && i < l->n; i++) {
        sqlite3_reset(ins);
        sqlite3_bind_blob(ins, 1, sha, 32, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 2, (sqlite3_int64)i);
        sqlite3_bind_blob(ins, 3, l->der[i], (int)l->len[i], SQLITE_STATIC);
        if (sqlite3_step(ins) != SQLITE_DONE)
            rc = -EIO;
    }
    sqlite3_finalize(ins);
    if (rc == 0)
        rc = kt_store_exec(w,
                           "DELETE FROM kernel_keys WHERE image_sha256 NOT IN"
                           " (SELECT image_sha256 FROM kernel_keys GROUP BY image_sha256"
                           "  ORDER BY max(seq) DESC LIMIT " STR(KCACHE_IMAGES) ")",
                           "caching", NULL);
    if (rc == 0)
        rc = kt_store_exec(w, "COMMIT", "caching", NULL);
    if (rc < 0)
        kt_store_rollback(w);
    kt_store_close(w);
    return rc;
}

struct kt_kcache_save {
    const struct kt_store *reader;
    uint8_t sha[32];
    struct cert_list l;
};

int kt_store_kcache_save(struct kt_kcache_save *sv)
{
    if (!sv)
        return -EINVAL;
    int rc = cache_put(sv->reader, sv->sha, &sv->l);
    list_free(&sv->l);
    free(sv);
    return rc;
}

int kt_store_add_kernel_keys(struct kt_store *s, struct kt_keyrings *k, const uint8_t *img,
                             size_t len, const char *source, bool ephemeral, size_t *n_added,
                             enum kt_kcache *how, struct kt_kcache_save **later,
                             struct kt_error *err)
{
    enum kt_kcache h = KT_KCACHE_NONE;
    uint8_t sha[32];
    struct cert_list l = {0};
    int rc = 0;
    bool save = false;
    if (n_added)
        *n_added = 0;
    if (later)
        *later = NULL;
    bool hashed = s && kt_digest(KT_HASH_SHA256, img, len, sha) == 0;
    if (hashed && cache_get(s, sha, &l)) {
        h = KT_KCACHE_HIT;
    } else {
        rc = kt_kimage_foreach_cert(img, len, list_push, &l, err);
        if (rc == -ENOMEM)
            rc = kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
        save = rc == 0 && hashed;
    }
    for (size_t i = 0; rc == 0 && i < l.n; i++)
        if (kt_keyrings_add_kernel_cert(k, l.der[i], l.len[i], source, i, ephemeral) && n_added)
            (*n_added)++;
    struct kt_kcache_save *sv = save && later ? malloc(sizeof(*sv)) : NULL;
    if (sv) { /* the caller saves it when the keys are in use already */
        sv->reader = s;
        memcpy(sv->sha, sha, sizeof(sha));
        sv->l = l;
        *later = sv;
        h = KT_KCACHE_SAVED;
    } else {
        if (save)
            h = cache_put(s, sha, &l) == 0 ? KT_KCACHE_SAVED : KT_KCACHE_NOT_SAVED;
        list_free(&l);
    }
    if (how)
        *how = h;
    return rc < 0 ? rc : 0;
}
