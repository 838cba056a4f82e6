/* store_sync.c - load the keyrings from the store, and save what changed
 * (a diff against the store's own rows, rows_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "policy/restrict.h"
#include "store/store_int.h"

/* ---- load ----------------------------------------------------------------- */

static int load_rings(struct kt_store *s, struct kt_keyrings *k, struct kt_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        s->db, "SELECT name, restriction, vouchers FROM keyrings ORDER BY rowid", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return kt_store_db_fail(s, err, rc, "reading keyrings");
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
    return rc == SQLITE_DONE ? 0 : kt_store_db_fail(s, err, rc, "reading keyrings");
}

static int load_keys(struct kt_store *s, struct kt_keyrings *k, struct kt_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT id, keyring, der, trusted, source, added FROM keys "
                                "ORDER BY id",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return kt_store_db_fail(s, err, rc, "reading keys");
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
        struct kt_error e = KT_ERROR_INIT;
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
    return rc == SQLITE_DONE ? 0 : kt_store_db_fail(s, err, rc, "reading keys");
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
        return kt_store_db_fail(s, err, rc, "reading the blacklist");
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
    return rc == SQLITE_DONE ? 0 : kt_store_db_fail(s, err, rc, "reading the blacklist");
}

int kt_store_load(struct kt_store *s, struct kt_keyrings *k, struct kt_error *err)
{
    if (s->empty)
        return 0;
    /* a reader sees one snapshot: all three tables inside one transaction */
    bool own_tx = !s->in_tx;
    int rc;
    if (own_tx && (rc = kt_store_exec(s, "BEGIN", "reading", err)) < 0)
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
    return rc == SQLITE_DONE ? 0 : kt_store_db_fail(s, err, rc, doing);
}

static int save_rings(struct kt_store *s, struct kt_keyrings *k, struct kt_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        s->db, "INSERT INTO keyrings(name, restriction, vouchers) VALUES(?,?,?)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return kt_store_db_fail(s, err, rc, "saving keyrings");
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
        return kt_store_db_fail(s, err, rc, "saving keys");
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
#ifdef KT_TEST_HOOKS
            if (s->fail_after > 0 && ++s->n_inserts >= s->fail_after) {
                rc = kt_store_db_fail(s, err, SQLITE_FULL, "saving keys");
                break;
            }
#endif
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
#ifdef KT_TEST_HOOKS
            if (s->insert_delay_us > 0)
                usleep((useconds_t)s->insert_delay_us);
#endif
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
        return kt_store_db_fail(s, err, rc, "removing keys");
    rc = 0;
    for (size_t i = 0; i < s->rows.keys_sorted && rc == 0; i++) {
        if (s->rows.keys[i].seen)
            continue;
#ifdef KT_TEST_HOOKS
        if (s->fail_after > 0 && ++s->n_inserts >= s->fail_after) {
            rc = kt_store_db_fail(s, err, SQLITE_FULL, "removing keys");
            break;
        }
#endif
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
        return kt_store_db_fail(s, err, rc, "saving the blacklist");
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
        return kt_store_db_fail(s, err, rc, "removing blacklist hashes");
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
