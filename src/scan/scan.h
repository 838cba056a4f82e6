/* scan.h - walk paths and hand every file to worker threads (the pool
 * under kt_scan_verify, ktrust/scan.h).
 *
 * kt_pool_run() walks the given paths recursively (fts(3); symbolic links are
 * followed only on the command line unless follow_symlinks, and directory
 * cycles are reported, never followed), queues regular files on a bounded
 * queue, and `jobs` worker threads read each file (kt_file_open_buf: into a
 * per-worker buffer reused from file to file, or mapped when over
 * KT_FILEBUF_MAX) and call fn with it.  Memory stays
 * bounded however large the tree: at most KT_SCAN_QUEUE paths wait, and each
 * worker holds one file at a time.
 *
 * fn runs in worker threads, concurrently: it must be thread-safe.  It is
 * called for every regular file (empty ones included) and for every
 * problem met on the way (unreadable file or directory, symlink loop), with
 * rc < 0 and err describing it.  Directories are read in name order (strcmp)
 * and every item carries its place in that walk (seq: 0, 1, 2 ... with no
 * gaps unless stopped), so a caller can print results in a stable order.
 * When *stop becomes non-zero (a signal handler may set it), the walk stops
 * and queued files are dropped without calling fn; files being processed
 * finish.
 */
#ifndef KT_SCAN_SCAN_H
#define KT_SCAN_SCAN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/scan.h"
#include "util/err.h"

#define KT_SCAN_QUEUE 256

struct kt_pool_opts {
    unsigned jobs;         /* worker threads; 0: the number of online CPUs */
    bool follow_symlinks;  /* follow symbolic links met inside directories */
    volatile sig_atomic_t *stop; /* NULL, or set non-zero to stop early */
};

struct kt_pool_item {
    const char *path;
    int rc;                       /* 0, or the error opening / walking it */
    const struct kt_error *err;   /* detail when rc < 0 */
    const uint8_t *buf;           /* the file's bytes (valid during the call) */
    size_t len;
    unsigned worker;              /* 0..jobs-1 */
    uint64_t seq;                 /* its place in the walk */
};

typedef void (*kt_pool_fn)(void *ctx, const struct kt_pool_item *it);

/* Walk and process; returns 0 or -errno for a failure to start (threads). */
int kt_pool_run(const char *const *paths, size_t n_paths, const struct kt_pool_opts *opts,
                kt_pool_fn fn, void *ctx, struct kt_error *err);

/* Count regular files and their bytes under the paths (for a progress ETA);
 * same walking rules as kt_pool_run. */
void kt_scan_count(const char *const *paths, size_t n_paths, bool follow_symlinks,
                   uint64_t *files, uint64_t *bytes);

/* The number of online CPUs (at least 1). */
unsigned kt_scan_default_jobs(void);

#endif
