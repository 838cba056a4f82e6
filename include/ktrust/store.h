/* ktrust/store.h - the persistent keyring store: one SQLite file.
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
 */
#ifndef KTRUST_STORE_H
#define KTRUST_STORE_H

#include "ktrust/api.h"
#include "ktrust/error.h"
#include "ktrust/keyring.h"

#ifdef __cplusplus
extern "C" {
#endif

enum kt_store_mode {
    KT_STORE_READ = 0, /* never writes; a missing file is -ENOENT */
    KT_STORE_WRITE,    /* creates the file, never its directory (-ENOENT) */
};

struct kt_store; /* opaque */

/* Open the store at path.  *out is freed by kt_store_close. */
KT_API int kt_store_open(const char *path, enum kt_store_mode mode, struct kt_store **out,
                         struct kt_error *err);
KT_API void kt_store_close(struct kt_store *s);
/* Start the write transaction (KT_STORE_WRITE only). */
KT_API int kt_store_begin_write(struct kt_store *s, struct kt_error *err);
/* Load the stored user keyrings, keys and blacklisted hashes into rings
 * (made by kt_keyrings_new). */
KT_API int kt_store_load(struct kt_store *s, struct kt_keyrings *rings, struct kt_error *err);
/* Write what changed in rings (new keyrings and keys, removed keys, new
 * hashes; never keys added for a run only).  Inside the write transaction. */
KT_API int kt_store_save(struct kt_store *s, struct kt_keyrings *rings, struct kt_error *err);
KT_API int kt_store_commit(struct kt_store *s, struct kt_error *err);
KT_API void kt_store_rollback(struct kt_store *s);

#ifdef __cplusplus
}
#endif
#endif
