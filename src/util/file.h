/* file.h - read-only whole-file access: mmap for regular files, read() for
 * pipes and special files.  Size-limited. */
#ifndef KT_UTIL_FILE_H
#define KT_UTIL_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define KT_FILE_MAX_SIZE ((size_t)4 << 30) /* 4 GiB */

struct kt_file {
    const uint8_t *data;
    size_t len;
    int mapped; /* 1: munmap, 0: free */
};

/* Map or read `path` (`-` is standard input).  Errors: -ENOENT, -EACCES,
 * -EISDIR, -EFBIG (over KT_FILE_MAX_SIZE), -EIO, with a detail. */
int kt_file_open(const char *path, struct kt_file *f, struct kt_error *err);
void kt_file_close(struct kt_file *f);

/* Write a whole file atomically (temp file + fsync + rename). */
int kt_file_write_atomic(const char *path, const void *data, size_t len, struct kt_error *err);

#endif
