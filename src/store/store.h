/* store.h - the persistent keyring store: one SQLite file.
 *
 * Schema (PRAGMA user_version = 1):
 *   keyrings(name, restriction, vouchers)       user keyrings only
 *   keys(id, keyring, der, sha256, description, skid, trusted, source, added)
 *   blacklist(id, kind, hash, digest, source, added)   bin:/tbs: hashes
 * Journal mode WAL, synchronous FULL, a busy timeout (KT_STORE_BUSY_MS), so
 * several processes can add at once: writers queue on the lock.
 *
 * One command = one transaction:
 *     kt_store_open(path, KT_STORE_WRITE, &s, err);
 *     kt_store_begin_write(s, err);      BEGIN IMMEDIATE: the write lock
 *     kt_store_load(s, rings, err);      read everything under that lock
 *     ... kt_keyring_add / kt_keyring_remove / kt_keyring_create ...
 *     kt_store_save(s, rings, err);      write what changed
 *     kt_store_commit(s, err);           or kt_store_rollback(s)
 *     kt_store_close(s);
 * A crash (or kill -9, or a full disk) before COMMIT leaves the file as it
 * was: either all of a command's changes are there or none.
 *
 * Readers (verifying commands) open with KT_STORE_READ and call kt_store_load
 * (it reads in one snapshot).  Errors: -ENOENT (no such store, or when
 * writing no such directory), -EISDIR (a directory),
 * -EACCES (read-only file or directory when writing), -EBADMSG (not a ktrust
 * store / corrupted database), -ENOSPC (disk full), -EBUSY (lock timeout),
 * -EPROTO (schema newer than this ktrust), -EIO.  Each with a one-line
 * detail naming the cause.
 */
#ifndef KT_STORE_STORE_H
#define KT_STORE_STORE_H

#include <stdbool.h>

#include "keys/blacklist.h"
#include "keys/keyring.h"
#include "util/err.h"

#define KT_STORE_SCHEMA_VERSION 1
#define KT_STORE_BUSY_MS 60000

enum kt_store_mode {
    KT_STORE_READ = 0, /* never writes; a missing file is -ENOENT ("no store at this
                        * path"); the -wal/-shm files are gone after close */
    KT_STORE_WRITE,    /* creates the file, never its directory (-ENOENT) */
};

struct kt_store;

/* Open the store at path.  *out is freed by kt_store_close. */
int kt_store_open(const char *path, enum kt_store_mode mode, struct kt_store **out,
                  struct kt_error *err);
void kt_store_close(struct kt_store *s);
/* Create the missing directories above path (for the default XDG store
 * only: a typo in an explicit path must not grow a directory tree). */
int kt_store_mkdir_parents(const char *path, struct kt_error *err);
const char *kt_store_path(const struct kt_store *s);

/* Start the command's write transaction (BEGIN IMMEDIATE). */
int kt_store_begin_write(struct kt_store *s, struct kt_error *err);
/* Load user keyrings, keys and blacklist hashes into rings (made by
 * kt_keyrings_new; keys already there stay). */
int kt_store_load(struct kt_store *s, struct kt_keyrings *rings, struct kt_error *err);
/* Write new keyrings, keys not yet stored (unless ephemeral), removed keys,
 * new blacklist hashes.  Inside the write transaction. */
int kt_store_save(struct kt_store *s, struct kt_keyrings *rings, struct kt_error *err);
int kt_store_commit(struct kt_store *s, struct kt_error *err);
void kt_store_rollback(struct kt_store *s);

/* A kernel image's builtin keys into builtin, as kt_keyrings_add_kernel_keys
 * adds them, through the store's cache (s may be NULL: no cache): the
 * certificates found before are used when the image's SHA-256 matches, and
 * the xz/gzip/zstd decode up to the list is skipped; otherwise the image is
 * decoded and its list saved in its own write transaction (best effort: a
 * read-only or locked store, or a file with no ktrust schema, is left as it
 * is).  The store keeps the lists of the 16 images cached last.  *how says
 * which happened.  Errors: the image's, as kt_kimage_foreach_cert. */
enum kt_kcache {
    KT_KCACHE_NONE,      /* no store: decoded */
    KT_KCACHE_HIT,       /* taken from the store */
    KT_KCACHE_SAVED,     /* decoded, then saved */
    KT_KCACHE_NOT_SAVED, /* decoded; the store could not be written */
};
int kt_store_add_kernel_keys(struct kt_store *s, struct kt_keyrings *k, const uint8_t *img,
                             size_t len, const char *source, bool ephemeral, size_t *n_added,
                             enum kt_kcache *how, struct kt_error *err);

/* Testing hooks: make the n-th key insert of kt_store_save fail as if the
 * disk were full (0: off; also read from $KTRUST_STORE_FAIL_AFTER), and
 * $KTRUST_STORE_INSERT_DELAY_US sleeps after each key insert (so a test can
 * kill a process in the middle of writing its transaction). */
void kt_store_inject_full(struct kt_store *s, long after_n_inserts);

#endif
