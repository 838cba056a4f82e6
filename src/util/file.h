/* file.h - read-only whole-file access: mmap for regular files, read() for
 * pipes and special files.  Size-limited. */
#ifndef KT_UTIL_FILE_H
#define KT_UTIL_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "ktrust/advanced.h"
#include "util/err.h"

/* struct kt_file, kt_file_open, kt_file_close, kt_file_write_atomic:
 * ktrust/advanced.h */

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
