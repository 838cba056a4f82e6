/* store.h - the persistent keyring store: one SQLite file.  Outside the
 * library it is reached through a verification context (ktrust/verify.h:
 * kt_ctx_open with a store mode, kt_ctx_commit).
 *
 * One change = one transaction:
 *     kt_store_open(path, KT_STORE_WRITE, &s, &err);
 *     kt_store_begin_write(s, &err);     the write lock (BEGIN IMMEDIATE)
 *     kt_store_load(s, rings, &err);     read everything under that lock
 *     ... kt_keyring_add / kt_keyring_remove / kt_keyring_create ...
 *     kt_store_save(s, rings, &err);     write what changed
 *     kt_store_commit(s, &err);          or kt_store_rollback(s)
 *     kt_store_close(s);
 * A crash before the commit leaves the file as it was.  Readers open with
 * KT_STORE_READ and call kt_store_load only.  Several processes may use one
 * store at once: writers queue on the lock.
 *
 * Errors: -ENOENT (no such store; when writing, no such directory),
 * -EISDIR, -EACCES, -EBADMSG (not a ktrust store, or corrupted), -ENOSPC,
 * -EBUSY (lock timeout), -EPROTO (a newer schema), -EIO; each with a
 * one-line detail.
 *
 * Schema (PRAGMA user_version = 1):
 *   keyrings(name, restriction, vouchers)       user keyrings only
 *   keys(id, keyring, der, sha256, description, skid, trusted, source, added)
 *   blacklist(id, kind, hash, digest, source, added)   bin:/tbs: hashes
 *   kernel_keys(image_sha256, idx, der, seq)    the kernel-key cache (kernel_cache.c)
 * Journal mode WAL, synchronous FULL, a busy timeout (KT_STORE_BUSY_MS), so
 * several processes can add at once: writers queue on the lock.  A crash (or
 * kill -9, or a full disk) before COMMIT leaves the file as it was.  Readers
 * (verifying commands) read in one snapshot; a reader opened on a writable
 * file removes the -wal/-shm files when it closes last.
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
    KT_STORE_READ = 0, /* never writes; a missing file is -ENOENT */
    KT_STORE_WRITE,    /* creates the file, never its directory (-ENOENT) */
};

struct kt_store; /* opaque */

/* Open the store at path.  *out is freed by kt_store_close. */
int kt_store_open(const char *path, enum kt_store_mode mode, struct kt_store **out,
                  struct kt_error *err);
void kt_store_close(struct kt_store *s);
/* Start the write transaction (KT_STORE_WRITE only). */
int kt_store_begin_write(struct kt_store *s, struct kt_error *err);
/* Load the stored user keyrings, keys and blacklisted hashes into rings
 * (made by kt_keyrings_new). */
int kt_store_load(struct kt_store *s, struct kt_keyrings *rings, struct kt_error *err);
/* Write what changed in rings (new keyrings and keys, removed keys, new
 * hashes; never keys added for a run only).  Inside the write transaction. */
int kt_store_save(struct kt_store *s, struct kt_keyrings *rings, struct kt_error *err);
int kt_store_commit(struct kt_store *s, struct kt_error *err);
void kt_store_rollback(struct kt_store *s);

/* Create the missing directories above path (for the default XDG store
 * only: a typo in an explicit path must not grow a directory tree). */
int kt_store_mkdir_parents(const char *path, struct kt_error *err);
/* Could a store that does not exist yet be created at path (its directory
 * exists, or with make_dirs the nearest existing one, and is writable)?
 * Checked before any work whose result would be stored, so nothing is said
 * done and then found unwritable.  0, or the error kt_store_open would give. */
int kt_store_check_creatable(const char *path, bool make_dirs, struct kt_error *err);
const char *kt_store_path(const struct kt_store *s);

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
    KT_KCACHE_HIT,       /* taken from the store (or the cache directory) */
    KT_KCACHE_SAVED,     /* decoded, then saved */
    KT_KCACHE_NOT_SAVED, /* decoded; the store could not be written */
};
struct kt_kcache_save;
int kt_store_add_kernel_keys(struct kt_store *s, struct kt_keyrings *k, const uint8_t *img,
                             size_t len, const char *source, bool ephemeral, size_t *n_added,
                             enum kt_kcache *how, struct kt_kcache_save **later,
                             struct kt_error *err);
/* With later (not NULL), a decoded list is not saved by kt_store_add_kernel_keys:
 * *later holds it (NULL when there is nothing to save; *how then says
 * KT_KCACHE_SAVED for what is due), and kt_store_kcache_save writes it, 0 or
 * why not, and frees it.  s must stay open until then. */
int kt_store_kcache_save(struct kt_kcache_save *sv);
/* The same through a cache directory instead of a store (kcache_file.h: the
 * directory's rules; dir NULL: no cache, decoded): a hit needs the entry
 * saved under the image's SHA-256 in this user's private DIR/kernel-keys; a
 * decoded list is saved there, best effort (*how KT_KCACHE_NOT_SAVED when
 * it could not be). */
int kt_kcache_add_kernel_keys(const char *dir, struct kt_keyrings *k, const uint8_t *img,
                              size_t len, const char *source, bool ephemeral, size_t *n_added,
                              enum kt_kcache *how, struct kt_error *err);

#ifdef KT_TEST_HOOKS
/* Test builds only (doc/HACKING.md, "Test hooks"): make the n-th key insert
 * of kt_store_save fail as if the disk were full (0: off; kt_store_open also
 * reads $KTRUST_STORE_FAIL_AFTER), and $KTRUST_STORE_INSERT_DELAY_US sleeps
 * after each key insert (so a test can kill a process in the middle of
 * writing its transaction). */
void kt_store_inject_full(struct kt_store *s, long after_n_inserts);
#endif

#endif
