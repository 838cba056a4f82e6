/* store.h - the persistent keyring store: one SQLite file.  The public
 * part (the transaction, the errors): ktrust/store.h.
 *
 * Schema (PRAGMA user_version = 1):
 *   keyrings(name, restriction, vouchers)       user keyrings only
 *   keys(id, keyring, der, sha256, description, skid, trusted, source, added)
 *   blacklist(id, kind, hash, digest, source, added)   bin:/tbs: hashes
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
#include "ktrust/store.h"
#include "util/err.h"

#define KT_STORE_SCHEMA_VERSION 1
#define KT_STORE_BUSY_MS 60000

/* Create the missing directories above path (for the default XDG store
 * only: a typo in an explicit path must not grow a directory tree). */
int kt_store_mkdir_parents(const char *path, struct kt_error *err);
const char *kt_store_path(const struct kt_store *s);

#ifdef KT_TEST_HOOKS
/* Test builds only (doc/HACKING.md, "Test hooks"): make the n-th key insert
 * of kt_store_save fail as if the disk were full (0: off; kt_store_open also
 * reads $KTRUST_STORE_FAIL_AFTER), and $KTRUST_STORE_INSERT_DELAY_US sleeps
 * after each key insert (so a test can kill a process in the middle of
 * writing its transaction). */
void kt_store_inject_full(struct kt_store *s, long after_n_inserts);
#endif

#endif
