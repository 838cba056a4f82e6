/* ktrust/advanced.h - the advanced tier: what the ktrust program needs
 * beyond the stable API, declared and exported so that the CLI (and any
 * program that wants to do what the CLI does) needs no header from src/.
 *
 * Stability: the stable API is ktrust.h's other headers.  What this header
 * declares may change between releases (a changed signature is listed in
 * the release notes, never changed silently); it is exported (KT_API) and
 * installed like the rest.
 *
 * Sections, one per subject; add a declaration to the section it belongs to.
 */
#ifndef KTRUST_ADVANCED_H
#define KTRUST_ADVANCED_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- files ------------------------------------------------------------- */

#define KT_FILE_MAX_SIZE ((size_t)4 << 30) /* 4 GiB */

/* A whole file, read-only: mapped (regular files) or read (pipes, special
 * files).  Valid until kt_file_close. */
struct kt_file {
    const uint8_t *data;
    size_t len;
    int mapped; /* 1: munmap, 0: free */
};

/* Map or read `path` (`-` is standard input).  Errors: -ENOENT, -EACCES,
 * -EISDIR, -EFBIG (over KT_FILE_MAX_SIZE), -EIO, with a detail. */
KT_API int kt_file_open(const char *path, struct kt_file *f, struct kt_error *err);
KT_API void kt_file_close(struct kt_file *f);

/* Write a whole file atomically (temp file + fsync + rename). */
KT_API int kt_file_write_atomic(const char *path, const void *data, size_t len,
                                struct kt_error *err);

/* ---- errors and formatting --------------------------------------------- */

/* ---- verdicts, scan ---------------------------------------------------- */

/* The one directory walker (scan, audit's modules, check-update): each
 * path in the order given, each directory in name order (strcmp), depth
 * first; symbolic links are followed when named as a path, and inside
 * directories only with follow_symlinks; directory cycles are reported,
 * never followed. */
enum kt_walk_kind {
    KT_WALK_FILE,       /* a regular file */
    KT_WALK_UNREADABLE, /* a directory or file that could not be read or stat'ed */
    KT_WALK_LOOP,       /* a directory cycle (symbolic link loop): not followed */
    KT_WALK_DANGLING,   /* a symbolic link to nothing */
};

struct kt_walk_entry {
    enum kt_walk_kind kind;
    const char *path;  /* the path given, then /name/name... */
    const char *name;  /* its last component */
    int depth;         /* 0: a path given; 1: in it; ... */
    uint64_t size;     /* FILE: its size */
    int error;         /* UNREADABLE: the errno */
    bool is_dir;       /* UNREADABLE: a directory that could not be read */
};

struct kt_walk_opts {
    bool follow_symlinks;
    unsigned max_depth;          /* 0: none; else directories deeper are not read */
    volatile sig_atomic_t *stop; /* NULL, or set non-zero to stop early */
};

/* fn gets every regular file and every problem met (directories, symbolic
 * links not followed and special files are not handed on); a non-zero
 * return stops the walk.  Returns 0 or what fn returned.  opts may be NULL. */
typedef int (*kt_walk_fn)(void *arg, const struct kt_walk_entry *e);
KT_API int kt_walk(const char *const *paths, size_t n_paths, const struct kt_walk_opts *opts,
                   kt_walk_fn fn, void *arg);

/* ---- keys, certificates, signature lists, SBAT ------------------------- */

/* ---- the boot chain, efivars, audit, updates --------------------------- */

#ifdef __cplusplus
}
#endif
#endif
