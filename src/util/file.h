/* file.h - read-only whole-file access: mmap for regular files, read() for
 * pipes and special files.  Size-limited. */
#ifndef KT_UTIL_FILE_H
#define KT_UTIL_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define KT_FILE_MAX_SIZE ((size_t)4 << 30) /* 4 GiB */
/* The most read from a non-regular file (pipe, FIFO, device, standard input
 * that is not a file): 32 MiB, above any module, PE, signature or variable
 * ktrust reads (a stripped module is at most a few MiB, a kernel image about
 * 15 MiB), so a stream like /dev/zero is refused after 32 MiB instead of
 * filling memory.  Larger inputs are given as regular files (mapped). */
#define KT_FILE_STREAM_MAX ((size_t)32 << 20)

/* A whole file, read-only: mapped (regular files) or read (pipes, special
 * files).  Valid until kt_file_close. */
struct kt_file {
    const uint8_t *data;
    size_t len;
    int mapped; /* 1: munmap, 0: free */
};

/* Map or read `path` (`-` is standard input).  Errors: -ENOENT, -EACCES,
 * -EISDIR, -EFBIG (a regular file over KT_FILE_MAX_SIZE, or a pipe/device
 * giving more than KT_FILE_STREAM_MAX bytes), -EIO, with a detail. */
int kt_file_open(const char *path, struct kt_file *f, struct kt_error *err);
void kt_file_close(struct kt_file *f);

/* Write a whole file atomically (temp file + fsync + rename). */
int kt_file_write_atomic(const char *path, const void *data, size_t len,
                                struct kt_error *err);


/* A reusable read buffer: kt_file_open_buf reads a regular file of at most
 * KT_FILEBUF_MAX bytes into it with read() (no mapping, so no page faults and
 * no munmap TLB shootdown per file); larger files and non-regular files go
 * through kt_file_open.  The data is valid until the next call with the same
 * buffer or kt_filebuf_free.  Close the file with kt_file_close as usual. */
#define KT_FILEBUF_MAX ((size_t)2 << 20) /* 2 MiB: few modules are larger */
struct kt_filebuf {
    uint8_t *data;
    size_t cap;
};
int kt_file_open_buf(const char *path, struct kt_filebuf *b, struct kt_file *f,
                     struct kt_error *err);
void kt_filebuf_free(struct kt_filebuf *b);

/* PATH looked up inside the directory ROOT as a process chrooted to ROOT
 * would: each component in turn, a symbolic link followed with an absolute
 * target taken from ROOT's top, ".." at ROOT's top staying there (never a
 * file outside ROOT, whatever the links say); at most 40 links.  Writes
 * ROOT then the resolved path ("/a/b": no link, "." or "..") into out, and
 * the final object's stat into st (may be NULL).  Returns 0, or -ENOENT /
 * -ENOTDIR (out: where it was looked for, the rest as given), -ELOOP,
 * -ENAMETOOLONG (a path over cap or PATH_MAX), or open/stat's error.  ROOT
 * NULL or "": no confinement, out = PATH and stat() (the host's lookup). */
struct stat;
int kt_root_resolve(const char *root, const char *path, char *out, size_t cap,
                    struct stat *st);

#endif
