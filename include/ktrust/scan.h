/* ktrust/scan.h - verify every file under some paths, on worker threads,
 * with the results in walk order.
 *
 *     static void render(void *arg, const struct kt_scan_file *f, FILE *out)
 *     {   a worker thread: describe f (its kt_result) into out   }
 *     static void deliver(void *arg, const struct kt_scan_done *d)
 *     {   one at a time, in walk order: fwrite(d->text, 1, d->len, stdout)   }
 *
 *     struct kt_scan_opts o = {.keys = &ctx_opts, .render = render,
 *                              .deliver = deliver};
 *     struct kt_scan_stats st;
 *     kt_scan_verify(paths, n, &o, &st, &err_file, &err);
 *
 * Each regular file is read once, its type detected once, and verified as
 * kt_verify_buf verifies it (ktrust/verify.h), for its type's purpose.
 */
#ifndef KTRUST_SCAN_H
#define KTRUST_SCAN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ktrust/api.h"
#include "ktrust/error.h"
#include "ktrust/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KT_SCAN_MAX_JOBS 256
#define KT_SCAN_N_TYPES 6 /* the types counted in kt_scan_stats.types */

/* One item, in the worker thread that verified it (concurrently with the
 * others): a regular file, or a problem met on the way (unreadable file or
 * directory, symbolic link loop, dangling link). */
struct kt_scan_file {
    const char *path;
    int rc;                         /* the verdict (0 / -errno), or the error
                                     * reading or walking when result is NULL */
    const struct kt_error *err;     /* the reason / the error */
    const struct kt_result *result; /* NULL: unreadable, or out of memory */
    bool unreadable;                /* not read (rc, err say why) */
};

/* The counts of a scan, item by item in walk order. */
struct kt_scan_stats {
    uint64_t files;      /* every item: verified, skipped and unreadable */
    uint64_t skipped;    /* nothing ktrust verifies (kt_result_skipped) */
    uint64_t unreadable; /* not read: a problem met on the way */
    uint64_t bytes;      /* of the files verified */
    uint64_t all_bytes;  /* of every file read */
    uint64_t verdicts[KT_REFUSED + 2]; /* the verified files by enum kt_verdict,
                                        * the last slot for KT_INTERNAL */
    uint64_t types[KT_SCAN_N_TYPES];   /* by type, as kt_scan_type_name names them */
    double seconds;      /* from the start of the walk to the last result */
    bool walked;         /* false: the context or the keys failed, nothing ran */
};

/* One item again, in walk order, one at a time. */
struct kt_scan_done {
    int rc;                            /* as in kt_scan_file */
    bool unreadable, skipped;
    const char *text;                  /* what render wrote (valid during the call) */
    size_t len;
    const struct kt_scan_stats *stats; /* the counts with this item */
};

struct kt_scan_opts {
    const struct kt_ctx_opts *keys;  /* the context every file is verified with;
                                      * with jobs >= 2 a kernel image's keys
                                      * are decoded while the files are read */
    const struct kt_policy *policy;  /* NULL: the defaults (detect the type, its
                                      * purpose, now) */
    unsigned jobs;                   /* worker threads (up to KT_SCAN_MAX_JOBS);
                                      * 0: the number of online CPUs */
    bool follow_symlinks;            /* follow symbolic links inside directories
                                      * (those named in paths always are) */
    volatile sig_atomic_t *stop;     /* NULL, or set non-zero (a signal handler
                                      * may) to stop: files in hand finish */
    /* count the files first (for a progress display): on_count gets the
     * number of regular files and their bytes, once, before the walk */
    void (*on_count)(void *arg, uint64_t files, uint64_t bytes);
    void (*render)(void *arg, const struct kt_scan_file *f, FILE *out); /* may be NULL */
    void (*deliver)(void *arg, const struct kt_scan_done *d);           /* may be NULL */
    void *arg;
};

/* Walk the paths (each directory in name order, the paths in the order
 * given), verify every regular file, and hand each item to render (any
 * thread, concurrently) and then deliver (walk order, one at a time; after
 * an interruption the items done, in order).  *stats gets the counts.
 * Returns 0, or -errno with *err saying why: when the context could not be
 * opened or the kernel image's keys not read, stats->walked is false and
 * nothing was rendered or delivered (*err_file, when not NULL, names the
 * store if it is at fault, as kt_ctx_open's); when worker threads could not
 * start (-EAGAIN), stats->walked is true and what the walk did was
 * delivered. */
KT_API int kt_scan_verify(const char *const *paths, size_t n_paths, const struct kt_scan_opts *o,
                          struct kt_scan_stats *stats, const char **err_file,
                          struct kt_error *err);

/* The types of kt_scan_stats.types: "pe", "module", "pkcs7", "x509", "esl",
 * "kernel"; NULL for i >= KT_SCAN_N_TYPES. */
KT_API const char *kt_scan_type_name(unsigned i);

#ifdef __cplusplus
}
#endif

#endif
