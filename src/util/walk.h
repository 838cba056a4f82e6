/* walk.h - the one directory walker (scan, audit's modules, check-update,
 * the CLI). */
#ifndef KT_UTIL_WALK_H
#define KT_UTIL_WALK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
int kt_walk(const char *const *paths, size_t n_paths, const struct kt_walk_opts *opts,
                   kt_walk_fn fn, void *arg);

#endif
