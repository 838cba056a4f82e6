/* store.c - the SQLite keyring store (see store.h for the protocol). */
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "policy/restrict.h"
#include "store/rows_int.h"
#include "store/store.h"

struct kt_store {
    sqlite3 *db;
    char *path;
    enum kt_store_mode mode;
    bool in_tx;
    bool empty; /* READ mode on a file with no schema yet */
    long fail_after, n_inserts;
    long insert_delay_us; /* testing: $KTRUST_STORE_INSERT_DELAY_US */
    struct kt_store_rows rows; /* what in memory has which row */
};

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS keyrings("
    " name TEXT PRIMARY KEY,"
    " restriction TEXT NOT NULL,"
    " vouchers TEXT NOT NULL DEFAULT '');"
    "CREATE TABLE IF NOT EXISTS keys("
    " id INTEGER PRIMARY KEY,"
    " keyring TEXT NOT NULL,"
    " der BLOB NOT NULL,"
    " sha256 BLOB NOT NULL,"
    " description TEXT,"
    " skid BLOB,"
    " trusted INTEGER NOT NULL,"
    " source TEXT,"
    " added INTEGER NOT NULL,"
    " UNIQUE(keyring, sha256));"
    "CREATE TABLE IF NOT EXISTS blacklist("
    " id INTEGER PRIMARY KEY,"
    " kind TEXT NOT NULL,"
    " hash TEXT NOT NULL,"
    " digest BLOB NOT NULL,"
    " source TEXT,"
    " added INTEGER NOT NULL,"
    " UNIQUE(kind, hash, digest));"
    "PRAGMA user_version = 1;";

/* Map a SQLite result to an errno and a detail. */
static int db_fail(struct kt_store *s, struct kt_error *err, int src, const char *doing)
{
    int code;
    const char *why = s && s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(src);
    switch (src & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT: code = -EBADMSG; why = "not a ktrust store or corrupted database"; break;
    case SQLITE_READONLY: code = -EACCES; why = "store is read-only"; break;
    case SQLITE_PERM:
    case SQLITE_AUTH: code = -EACCES; break;
    case SQLITE_CANTOPEN: code = -EACCES; break;
    case SQLITE_FULL: code = -ENOSPC; why = "disk full"; break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: code = -EBUSY; why = "store is locked by another process (timed out)"; break;
    case SQLITE_NOMEM: code = -ENOMEM; break;
    default: code = -EIO; break;
    }
    return kt_fail(err, code, KT_NO_OFFSET, "store: %s: %s", doing, why);
}

static int exec(struct kt_store *s, const char *sql, const char *doing, struct kt_error *err)
{
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : db_fail(s, err, rc, doing);
}

static int mkdir_parents(const char *path, struct kt_error *err)
{
    char buf[PATH_MAX];
    if (strlen(path) >= sizeof(buf))
        return kt_fail(err, -ENAMETOOLONG, KT_NO_OFFSET, "store: path too long");
    strcpy(buf, path);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf)
        return 0;
    *slash = 0;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0700) < 0 && errno != EEXIST)
            return kt_fail(err, -errno, KT_NO_OFFSET, "store: cannot create %s: %s", buf,
                           strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0700) < 0 && errno != EEXIST)
        return kt_fail(err, -errno, KT_NO_OFFSET, "store: cannot create %s: %s", buf,
                       strerror(errno));
    return 0;
}

static int get_user_version(struct kt_store *s, int *v, struct kt_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_fail(s, err, rc, "reading the schema version");
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return db_fail(s, err, rc, "reading the schema version");
    }
    *v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return 0;
}

static int check_version(struct kt_store *s, int v, struct kt_error *err)
{
    if (v > KT_STORE_SCHEMA_VERSION)
        return kt_fail(err, -EPROTO, KT_NO_OFFSET,
                       "store: schema version %d is newer than this ktrust (%d)", v,
                       KT_STORE_SCHEMA_VERSION);
    if (v < 0)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "store: bad schema version %d", v);
    return 0;
}

/* A WAL database on a read-only medium cannot be opened normally (its
 * shared-memory file cannot be made): when the directory is not writable,
 * nobody can change the file either, so read it as immutable. */
static int reopen_immutable(struct kt_store *s, struct kt_error *err)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", s->path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        strcpy(dir, ".");
    if (access(dir, W_OK) == 0)
        return 0; /* not the read-only-medium case: report the real error */
    size_t cap = 3 * strlen(s->path) + 32;
    char *uri = malloc(cap);
    if (!uri)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    size_t o = (size_t)snprintf(uri, cap, "file:");
    for (const char *p = s->path; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '?' || ch == '#' || ch == '%' || ch < 0x21 || ch > 0x7e)
            o += (size_t)snprintf(uri + o, cap - o, "%%%02X", ch);
        else
            uri[o++] = (char)ch;
    }
    snprintf(uri + o, cap - o, "?immutable=1");
    sqlite3_close(s->db);
    s->db = NULL;
    int rc = sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (rc != SQLITE_OK)
        return db_fail(s, err, rc, "opening");
    sqlite3_extended_result_codes(s->db, 0);
    return 0;
}

/* Switch to WAL (persistent in the file).  Changing the journal mode does
 * not wait on the busy handler, so a process racing another one that is
 * creating the same new store retries here. */
static int set_wal(struct kt_store *s, struct kt_error *err)
{
    int rc = SQLITE_BUSY;
    for (int waited = 0; waited < KT_STORE_BUSY_MS; waited += 10) {
        rc = sqlite3_exec(s->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
        if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
            break;
        usleep(10000);
    }
    return rc == SQLITE_OK ? 0 : db_fail(s, err, rc, "setting WAL mode");
}

int kt_store_open(const char *path, enum kt_store_mode mode, struct kt_store **out,
                  struct kt_error *err)
{
    *out = NULL;
    if (!path || !*path)
        return kt_fail(err, -EINVAL, KT_NO_OFFSET, "store: no path");
    struct kt_store *s = calloc(1, sizeof(*s));
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    }
    s->mode = mode;
    const char *fa = getenv("KTRUST_STORE_FAIL_AFTER");
    if (fa && *fa)
        s->fail_after = strtol(fa, NULL, 10);
    const char *dl = getenv("KTRUST_STORE_INSERT_DELAY_US");
    if (dl && *dl)
        s->insert_delay_us = strtol(dl, NULL, 10);
    int rc, v = 0;
    struct stat sb;

    if (mode == KT_STORE_READ) {
        if (stat(path, &sb) < 0) {
            rc = kt_fail(err, -errno, KT_NO_OFFSET, "store: %s", strerror(errno));
            goto fail;
        }
        rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READONLY, NULL);
    } else {
        if ((rc = mkdir_parents(path, err)) < 0)
            goto fail;
        rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    }
    if (rc != SQLITE_OK) {
        rc = db_fail(s, err, rc, "opening");
        goto fail;
    }
    sqlite3_extended_result_codes(s->db, 0);
    sqlite3_busy_timeout(s->db, KT_STORE_BUSY_MS);
    if (mode == KT_STORE_WRITE && sqlite3_db_readonly(s->db, "main") == 1) {
        rc = kt_fail(err, -EACCES, KT_NO_OFFSET, "store: store is read-only");
        goto fail;
    }
    if (mode == KT_STORE_READ && get_user_version(s, &v, NULL) == -EACCES &&
        (rc = reopen_immutable(s, err)) < 0)
        goto fail;
    /* readers check the version and the tables in one snapshot: a writer
     * may be creating the schema right now */
    if (mode == KT_STORE_READ && (rc = exec(s, "BEGIN", "reading", err)) < 0)
        goto fail;
    if ((rc = get_user_version(s, &v, err)) < 0 || (rc = check_version(s, v, err)) < 0)
        goto fail;

    if (mode == KT_STORE_WRITE) {
        /* WAL mode is persistent in the file; switching needs no transaction */
        if ((rc = set_wal(s, err)) < 0 ||
            (rc = exec(s, "PRAGMA synchronous=FULL", "setting synchronous", err)) < 0 ||
            /* a small page cache: a big transaction spills to the WAL as it
             * goes instead of holding everything in memory until COMMIT */
            (rc = exec(s, "PRAGMA cache_size=-256", "setting the cache size", err)) < 0)
            goto fail;
        if (v == 0) {
            if ((rc = exec(s, "BEGIN IMMEDIATE", "creating the schema", err)) < 0)
                goto fail;
            /* another process may have created it meanwhile: IF NOT EXISTS */
            if ((rc = exec(s, schema_sql, "creating the schema", err)) < 0 ||
                (rc = exec(s, "COMMIT", "creating the schema", err)) < 0) {
                sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
                goto fail;
            }
        }
    } else if (v == 0) {
        s->empty = true; /* a file with no ktrust schema: empty keyrings */
        sqlite3_stmt *st;
        rc = sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
        if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0) {
            sqlite3_finalize(st);
            rc = kt_fail(err, -EBADMSG, KT_NO_OFFSET, "store: not a ktrust store");
            goto fail;
        }
        sqlite3_finalize(st);
    }
    if (mode == KT_STORE_READ)
        sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    *out = s;
    return 0;
fail:
    kt_store_close(s);
    return rc;
}

void kt_store_close(struct kt_store *s)
{
    if (!s)
        return;
    if (s->in_tx)
        kt_store_rollback(s);
    if (s->db)
        sqlite3_close(s->db);
    free(s->path);
    kt_store_rows_free(&s->rows);
    free(s);
}

const char *kt_store_path(const struct kt_store *s) { return s ? s->path : NULL; }

void kt_store_inject_full(struct kt_store *s, long n) { s->fail_after = n; }

int kt_store_begin_write(struct kt_store *s, struct kt_error *err)
{
    if (s->mode != KT_STORE_WRITE)
        return kt_fail(err, -EACCES, KT_NO_OFFSET, "store: opened read-only");
    int rc = exec(s, "BEGIN IMMEDIATE", "starting a transaction", err);
    if (rc == 0)
        s->in_tx = true;
    return rc;
}

int kt_store_commit(struct kt_store *s, struct kt_error *err)
{
    if (!s->in_tx)
        return 0;
    int rc = exec(s, "COMMIT", "committing", err);
    if (rc < 0) {
        kt_store_rollback(s);
        return rc;
    }
    s->in_tx = false;
    return 0;
}

void kt_store_rollback(struct kt_store *s)
{
    if (s->in_tx && sqlite3_get_autocommit(s->db) == 0)
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    s->in_tx = false;
}

/* ---- load ----------------------------------------------------------------- */

static int load_rings(struct kt_store *s, struct kt_keyrings *k, struct kt_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        s->db, "SELECT name, restriction, vouchers FROM keyrings ORDER BY rowid", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_fail(s, err, rc, "reading keyrings");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *restr = (const char *)sqlite3_column_text(st, 1);
        const char *vouch = (const char *)sqlite3_column_text(st, 2);
        if (!name || !restr)
            continue;
        if (kt_keyrings_get(k, name))
            continue;
        char spec[1024];
        snprintf(spec, sizeof(spec), "%s%s%s", restr, vouch && *vouch ? ":" : "",
                 vouch ? vouch : "");
        enum kt_restrict r;
        char *buf = NULL;
        const char *v[32];
        size_t nv = 0;
        int prc = kt_restriction_parse(spec, &r, &buf, v, 32, &nv);
        if (prc < 0) {
            sqlite3_finalize(st);
            return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "store: keyring '%s': bad restriction '%s'",
                           name, spec);
        }
        prc = kt_keyring_create(k, name, r, v, nv, err);
        free(buf);
        if (prc < 0) {
            sqlite3_finalize(st);
            return prc;
        }
        if (kt_store_rows_add_ring(&s->rows, kt_keyrings_get(k, name)) < 0) {
            sqlite3_finalize(st);
            return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_fail(s, err, rc, "reading keyrings");
}

static int load_keys(struct kt_store *s, struct kt_keyrings *k, struct kt_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT id, keyring, der, trusted, source, added FROM keys "
                                "ORDER BY id",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_fail(s, err, rc, "reading keys");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        const char *ring = (const char *)sqlite3_column_text(st, 1);
        const uint8_t *der = sqlite3_column_blob(st, 2);
        size_t len = (size_t)sqlite3_column_bytes(st, 2);
        bool trusted = sqlite3_column_int(st, 3) != 0;
        const char *src = (const char *)sqlite3_column_text(st, 4);
        int64_t added = sqlite3_column_int64(st, 5);
        struct kt_keyring *r = kt_keyrings_get(k, ring ? ring : "");
        if (!r) {
            sqlite3_finalize(st);
            return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "store: key %lld in unknown keyring '%s'",
                           (long long)id, ring ? ring : "");
        }
        struct kt_error e = {0};
        e.offset = KT_NO_OFFSET;
        const struct kt_key *key = NULL;
        int arc = kt_keyring_restore(k, r, der, len, src, added, trusted, &key, &e);
        if (arc == -EEXIST)
            continue;
        if (arc == 0 && kt_store_rows_add_key(&s->rows, r, key->cert->sha256, id) < 0)
            arc = kt_fail(&e, -ENOMEM, KT_NO_OFFSET, "out of memory");
        if (arc < 0) {
            sqlite3_finalize(st);
            return kt_fail(err, arc == -ENOMEM ? arc : -EBADMSG, KT_NO_OFFSET,
                           "store: key %lld in '%s': %s", (long long)id, ring, e.what);
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_fail(s, err, rc, "reading keys");
}

static enum kt_hash hash_by_name(const char *n)
{
    for (int h = KT_HASH_MD5; h < KT_HASH__COUNT; h++)
        if (n && !strcmp(kt_hash_name((enum kt_hash)h), n))
            return (enum kt_hash)h;
    return KT_HASH_NONE;
}

static int load_blacklist(struct kt_store *s, struct kt_keyrings *k, struct kt_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT id, kind, hash, digest, source FROM blacklist ORDER BY id",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_fail(s, err, rc, "reading the blacklist");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        const char *kind = (const char *)sqlite3_column_text(st, 1);
        enum kt_hash h = hash_by_name((const char *)sqlite3_column_text(st, 2));
        const uint8_t *d = sqlite3_column_blob(st, 3);
        size_t len = (size_t)sqlite3_column_bytes(st, 3);
        const char *src = (const char *)sqlite3_column_text(st, 4);
        struct kt_blacklist_hash row = {.hash = h, .len = len};
        if (kind && strlen(kind) < sizeof(row.kind))
            strcpy(row.kind, kind);
        if (h && len == kt_hash_size(h))
            memcpy(row.digest, d, len);
        if (!h || len != kt_hash_size(h) || kt_blacklist_restore_hash(k, kind, h, d, src) < 0 ||
            kt_store_rows_add_hash(&s->rows, &row, id) < 0) {
            sqlite3_finalize(st);
            return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "store: bad blacklist entry %lld",
                           (long long)id);
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_fail(s, err, rc, "reading the blacklist");
}

int kt_store_load(struct kt_store *s, struct kt_keyrings *k, struct kt_error *err)
{
    if (s->empty)
        return 0;
    /* a reader sees one snapshot: all three tables inside one transaction */
    bool own_tx = !s->in_tx;
    int rc;
    if (own_tx && (rc = exec(s, "BEGIN", "reading", err)) < 0)
        return rc;
    rc = load_rings(s, k, err);
    if (rc == 0)
        rc = load_keys(s, k, err);
    if (rc == 0)
        rc = load_blacklist(s, k, err);
    if (own_tx)
        sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    return rc;
}

/* ---- save ----------------------------------------------------------------- */

static int step_done(struct kt_store *s, sqlite3_stmt *st, const char *doing,
                     struct kt_error *err)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : db_fail(s, err, rc, doing);
}

static int save_rings(struct kt_store *s, struct kt_keyrings *k, struct kt_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        s->db, "INSERT INTO keyrings(name, restriction, vouchers) VALUES(?,?,?)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_fail(s, err, rc, "saving keyrings");
    for (size_t i = 0; i < kt_keyrings_count(k); i++) {
        struct kt_keyring *r = kt_keyrings_at(k, i);
        if (kt_keyring_is_default(r) || kt_store_rows_has_ring(&s->rows, r))
            continue;
        char spec[1024];
        kt_keyring_restriction_str(r, spec, sizeof(spec));
        char *colon = strchr(spec, ':');
        const char *vouch = "";
        if (colon) {
            *colon = 0;
            vouch = colon + 1;
        }
        sqlite3_bind_text(st, 1, kt_keyring_name(r), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, spec, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, vouch, -1, SQLITE_TRANSIENT);
        if ((rc = step_done(s, st, "saving keyrings", err)) < 0)
            break;
        if ((rc = kt_store_rows_add_ring(&s->rows, r)) < 0) {
            rc = kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
            break;
        }
    }
    sqlite3_finalize(st);
    return rc < 0 ? rc : 0;
}

static int save_keys(struct kt_store *s, struct kt_keyrings *k, struct kt_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "INSERT INTO keys(keyring, der, sha256, description, skid, "
                                "trusted, source, added) VALUES(?,?,?,?,?,?,?,?)",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_fail(s, err, rc, "saving keys");
    rc = 0;
    for (size_t i = 0; i < kt_keyrings_count(k) && rc == 0; i++) {
        struct kt_keyring *r = kt_keyrings_at(k, i);
        for (size_t j = 0; j < kt_keyring_count(r) && rc == 0; j++) {
            const struct kt_key *key = kt_keyring_key(r, j);
            struct kt_store_key_row *row = kt_store_rows_find_key(&s->rows, key);
            if (row) {
                row->seen = true;
                continue;
            }
            if (kt_key_is_ephemeral(key))
                continue;
            if (s->fail_after > 0 && ++s->n_inserts >= s->fail_after) {
                rc = db_fail(s, err, SQLITE_FULL, "saving keys");
                break;
            }
            const struct kt_x509 *c = key->cert;
            sqlite3_bind_text(st, 1, kt_keyring_name(r), -1, SQLITE_STATIC);
            sqlite3_bind_blob(st, 2, key->der, (int)key->der_len, SQLITE_STATIC);
            sqlite3_bind_blob(st, 3, c->sha256, 32, SQLITE_STATIC);
            sqlite3_bind_text(st, 4, c->description, -1, SQLITE_STATIC);
            if (c->skid.len)
                sqlite3_bind_blob(st, 5, c->skid.p, (int)c->skid.len, SQLITE_STATIC);
            sqlite3_bind_int(st, 6, key->trusted ? 1 : 0);
            sqlite3_bind_text(st, 7, key->source, -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 8, key->added);
            if ((rc = step_done(s, st, "saving keys", err)) < 0)
                break;
            if (kt_store_rows_add_key(&s->rows, r, c->sha256, sqlite3_last_insert_rowid(s->db)) <
                0) {
                rc = kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
                break;
            }
            if (s->insert_delay_us > 0)
                usleep((useconds_t)s->insert_delay_us);
        }
    }
    sqlite3_finalize(st);
    if (rc < 0)
        return rc;

    /* rows of keys no longer in memory: removed */
    size_t n = 0;
    for (size_t i = 0; i < s->rows.keys_sorted; i++)
        n += !s->rows.keys[i].seen;
    if (!n)
        return 0;
    rc = sqlite3_prepare_v2(s->db, "DELETE FROM keys WHERE id = ?", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_fail(s, err, rc, "removing keys");
    rc = 0;
    for (size_t i = 0; i < s->rows.keys_sorted && rc == 0; i++) {
        if (s->rows.keys[i].seen)
            continue;
        sqlite3_bind_int64(st, 1, s->rows.keys[i].id);
        rc = step_done(s, st, "removing keys", err);
    }
    sqlite3_finalize(st);
    return rc;
}

static int save_blacklist(struct kt_store *s, struct kt_keyrings *k, struct kt_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "INSERT OR IGNORE INTO blacklist(kind, hash, digest, source, added) "
                                "VALUES(?,?,?,?,?)",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_fail(s, err, rc, "saving the blacklist");
    rc = 0;
    int64_t now = (int64_t)time(NULL);
    for (size_t i = 0; i < kt_blacklist_hash_count(k) && rc == 0; i++) {
        const struct kt_blacklist_hash *b = kt_blacklist_hash_at(k, i);
        struct kt_store_hash_row *row = kt_store_rows_find_hash(&s->rows, b);
        if (row) {
            row->seen = true;
            continue;
        }
        sqlite3_bind_text(st, 1, b->kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, kt_hash_name(b->hash), -1, SQLITE_STATIC);
        sqlite3_bind_blob(st, 3, b->digest, (int)b->len, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, b->source, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, now);
        if ((rc = step_done(s, st, "saving the blacklist", err)) == 0 &&
            kt_store_rows_add_hash(&s->rows, b,
                                   sqlite3_changes(s->db) ? sqlite3_last_insert_rowid(s->db)
                                                          : 0) < 0)
            rc = kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    }
    sqlite3_finalize(st);
    if (rc < 0)
        return rc;
    /* rows of hashes no longer in memory: removed */
    size_t n = 0;
    for (size_t i = 0; i < s->rows.hashes_sorted; i++)
        n += !s->rows.hashes[i].seen && s->rows.hashes[i].id;
    if (!n)
        return 0;
    rc = sqlite3_prepare_v2(s->db, "DELETE FROM blacklist WHERE id = ?", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_fail(s, err, rc, "removing blacklist hashes");
    rc = 0;
    for (size_t i = 0; i < s->rows.hashes_sorted && rc == 0; i++) {
        if (s->rows.hashes[i].seen || !s->rows.hashes[i].id)
            continue;
        sqlite3_bind_int64(st, 1, s->rows.hashes[i].id);
        rc = step_done(s, st, "removing blacklist hashes", err);
    }
    sqlite3_finalize(st);
    return rc;
}

int kt_store_save(struct kt_store *s, struct kt_keyrings *k, struct kt_error *err)
{
    if (!s->in_tx)
        return kt_fail(err, -EINVAL, KT_NO_OFFSET, "store: save outside a write transaction");
    kt_store_rows_begin(&s->rows);
    int rc = save_rings(s, k, err);
    if (rc == 0)
        rc = save_keys(s, k, err);
    if (rc == 0)
        rc = save_blacklist(s, k, err);
    if (rc == 0)
        kt_store_rows_drop_unseen(&s->rows);
    return rc;
}
