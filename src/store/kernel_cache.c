/* kernel_cache.c - a kernel image's builtin keys, kept under the image's
 * SHA-256 in the store (`--kernel` with a store) or in a cache directory
 * (chain and audit: kcache_file.c), so the decode up to the certificate list
 * is paid once per image, not once per run.
 *
 * The cache holds the certificates exactly as kt_kimage_foreach_cert gave
 * them, in order; a hit feeds them through the same kt_keyrings_add_kernel_cert
 * a decode would, so the keyrings come out the same either way.  An entry is
 * found only by the SHA-256 of the bytes in hand, computed on every use.
 * Saving is best effort and never changes the run's verdicts: a store that
 * cannot be written (read-only, locked, no schema yet), or a cache directory
 * that cannot be (read-only, someone else's), is simply not updated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/crypto.h"
#include "kimage/kimage.h"
#include "policy/load.h"
#include "store/kcache_file.h"
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

/* The cached list for this image: 1 found, 0 not cached (or no table). */
static int cache_get(struct kt_store *s, const uint8_t sha[32], struct kt_cert_list *l)
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
        if (!der || len <= 0 || kt_cert_list_push(l, der, (size_t)len, 0) < 0) {
            rc = SQLITE_ERROR;
            break;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) { /* a read error is a miss: decode instead */
        kt_cert_list_free(l);
        return 0;
    }
    return l->n > 0;
}

/* Save the list under sha in its own write transaction, on a second
 * connection (the reading one is query-only).  0, or why it was not saved. */
static int cache_put(const struct kt_store *reader, const uint8_t sha[32],
                     const struct kt_cert_list *l)
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
    struct kt_cert_list l;
};

int kt_store_kcache_save(struct kt_kcache_save *sv)
{
    if (!sv)
        return -EINVAL;
    int rc = cache_put(sv->reader, sv->sha, &sv->l);
    kt_cert_list_free(&sv->l);
    free(sv);
    return rc;
}

/* Where a kernel image's list is kept: the store's table, or a cache
 * directory (kcache_file.c), or neither (both NULL: decode every time). */
struct kcache_where {
    struct kt_store *s;
    const char *dir;
};

static int where_get(const struct kcache_where *w, const uint8_t sha[32], struct kt_cert_list *l)
{
    return w->s ? cache_get(w->s, sha, l) : kt_kcache_file_get(w->dir, sha, l);
}

static int where_put(const struct kcache_where *w, const uint8_t sha[32],
                     const struct kt_cert_list *l)
{
    return w->s ? cache_put(w->s, sha, l) : kt_kcache_file_put(w->dir, sha, l);
}

#ifdef KT_TEST_HOOKS
/* test builds only: $KTRUST_TEST_KCACHE_TRACE names a file that gets one
 * line per image, "hit" or "decoded" (kernel_key_cache.sh counts decodes) */
static void trace(enum kt_kcache h)
{
    const char *path = getenv("KTRUST_TEST_KCACHE_TRACE");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (f) {
        fputs(h == KT_KCACHE_HIT ? "hit\n" : "decoded\n", f);
        fclose(f);
    }
}
#else
#define trace(h) ((void)0)
#endif

static int add_keys(const struct kcache_where *w, struct kt_keyrings *k, const uint8_t *img,
                    size_t len, const char *source, bool ephemeral, size_t *n_added,
                    enum kt_kcache *how, struct kt_kcache_save **later, struct kt_error *err)
{
    enum kt_kcache h = KT_KCACHE_NONE;
    uint8_t sha[32];
    struct kt_cert_list l = {0};
    int rc = 0;
    bool save = false;
    if (n_added)
        *n_added = 0;
    if (later)
        *later = NULL;
    bool hashed = (w->s || w->dir) && kt_digest(KT_HASH_SHA256, img, len, sha) == 0;
    if (hashed && where_get(w, sha, &l)) {
        h = KT_KCACHE_HIT;
    } else {
        rc = kt_kimage_foreach_cert(img, len, kt_cert_list_push, &l, err);
        if (rc == -ENOMEM)
            rc = kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
        save = rc == 0 && hashed;
    }
    trace(h);
    for (size_t i = 0; rc == 0 && i < l.n; i++)
        if (kt_keyrings_add_kernel_cert(k, l.der[i], l.len[i], source, i, ephemeral) && n_added)
            (*n_added)++;
    struct kt_kcache_save *sv = save && later && w->s ? malloc(sizeof(*sv)) : NULL;
    if (sv) { /* the caller saves it when the keys are in use already */
        sv->reader = w->s;
        memcpy(sv->sha, sha, sizeof(sha));
        sv->l = l;
        *later = sv;
        h = KT_KCACHE_SAVED;
    } else {
        if (save)
            h = where_put(w, sha, &l) == 0 ? KT_KCACHE_SAVED : KT_KCACHE_NOT_SAVED;
        kt_cert_list_free(&l);
    }
    if (how)
        *how = h;
    return rc < 0 ? rc : 0;
}

int kt_store_add_kernel_keys(struct kt_store *s, struct kt_keyrings *k, const uint8_t *img,
                             size_t len, const char *source, bool ephemeral, size_t *n_added,
                             enum kt_kcache *how, struct kt_kcache_save **later,
                             struct kt_error *err)
{
    const struct kcache_where w = {s, NULL};
    return add_keys(&w, k, img, len, source, ephemeral, n_added, how, later, err);
}

int kt_kcache_add_kernel_keys(const char *dir, struct kt_keyrings *k, const uint8_t *img,
                              size_t len, const char *source, bool ephemeral, size_t *n_added,
                              enum kt_kcache *how, struct kt_error *err)
{
    const struct kcache_where w = {NULL, dir};
    return add_keys(&w, k, img, len, source, ephemeral, n_added, how, NULL, err);
}
