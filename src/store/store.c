/* store.c - the SQLite keyring store (see store.h for the protocol). */
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store_int.h"

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
int kt_store_db_fail(struct kt_store *s, struct kt_error *err, int src, const char *doing)
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

int kt_store_exec(struct kt_store *s, const char *sql, const char *doing, struct kt_error *err)
{
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : kt_store_db_fail(s, err, rc, doing);
}

static int get_user_version(struct kt_store *s, int *v, struct kt_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return kt_store_db_fail(s, err, rc, "reading the schema version");
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return kt_store_db_fail(s, err, rc, "reading the schema version");
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
        return kt_store_db_fail(s, err, rc, "opening");
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
    return rc == SQLITE_OK ? 0 : kt_store_db_fail(s, err, rc, "setting WAL mode");
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
#ifdef KT_TEST_HOOKS
    /* test builds only: a release library reads no such variable */
    const char *fa = getenv("KTRUST_STORE_FAIL_AFTER");
    if (fa && *fa)
        s->fail_after = strtol(fa, NULL, 10);
    const char *dl = getenv("KTRUST_STORE_INSERT_DELAY_US");
    if (dl && *dl)
        s->insert_delay_us = strtol(dl, NULL, 10);
#endif
    int rc, v = 0;

    bool writable;
    if ((rc = kt_store_check_path(path, mode, &writable, err)) < 0)
        goto fail;
    if (mode == KT_STORE_READ && writable) {
        /* read-write without CREATE, and query_only: a reader never
         * changes the store, and as the last connection it removes the
         * -wal/-shm files a read-only connection would leave behind */
        rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE, NULL);
        if (rc == SQLITE_OK && sqlite3_exec(s->db, "PRAGMA query_only=1", NULL, NULL, NULL))
            rc = SQLITE_CANTOPEN;
    } else if (mode == KT_STORE_READ) {
        rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READONLY, NULL);
    } else {
        rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    }
    if (rc != SQLITE_OK) {
        rc = kt_store_db_fail(s, err, rc, "opening");
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
    if (mode == KT_STORE_READ && (rc = kt_store_exec(s, "BEGIN", "reading", err)) < 0)
        goto fail;
    if ((rc = get_user_version(s, &v, err)) < 0 || (rc = check_version(s, v, err)) < 0)
        goto fail;

    if (mode == KT_STORE_WRITE) {
        /* WAL mode is persistent in the file; switching needs no transaction */
        if ((rc = set_wal(s, err)) < 0 ||
            (rc = kt_store_exec(s, "PRAGMA synchronous=FULL", "setting synchronous", err)) < 0 ||
            /* a small page cache: a big transaction spills to the WAL as it
             * goes instead of holding everything in memory until COMMIT */
            (rc = kt_store_exec(s, "PRAGMA cache_size=-256", "setting the cache size", err)) < 0)
            goto fail;
        if (v == 0) {
            if ((rc = kt_store_exec(s, "BEGIN IMMEDIATE", "creating the schema", err)) < 0)
                goto fail;
            /* another process may have created it meanwhile: IF NOT EXISTS */
            if ((rc = kt_store_exec(s, schema_sql, "creating the schema", err)) < 0 ||
                (rc = kt_store_exec(s, "COMMIT", "creating the schema", err)) < 0) {
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

#ifdef KT_TEST_HOOKS
void kt_store_inject_full(struct kt_store *s, long n) { s->fail_after = n; }
#endif

int kt_store_begin_write(struct kt_store *s, struct kt_error *err)
{
    if (s->mode != KT_STORE_WRITE)
        return kt_fail(err, -EACCES, KT_NO_OFFSET, "store: opened read-only");
    int rc = kt_store_exec(s, "BEGIN IMMEDIATE", "starting a transaction", err);
    if (rc == 0)
        s->in_tx = true;
    return rc;
}

int kt_store_commit(struct kt_store *s, struct kt_error *err)
{
    if (!s->in_tx)
        return 0;
    int rc = kt_store_exec(s, "COMMIT", "committing", err);
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
