#include "util/file.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_all(int fd, struct kt_file *f, struct kt_error *err)
{
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return -ENOMEM;
    for (;;) {
        if (len == cap) {
            if (cap >= KT_FILE_MAX_SIZE) {
                free(buf);
                return kt_fail(err, -EFBIG, KT_NO_OFFSET, "input larger than %zu bytes",
                               KT_FILE_MAX_SIZE);
            }
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return -ENOMEM;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0) {
            int e = errno;
            free(buf);
            return kt_fail(err, -e, KT_NO_OFFSET, "read failed: %s", strerror(e));
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    f->data = buf;
    f->len = len;
    f->mapped = 0;
    return 0;
}

int kt_file_open(const char *path, struct kt_file *f, struct kt_error *err)
{
    memset(f, 0, sizeof(*f));
    int fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return kt_fail(err, -e, KT_NO_OFFSET, "cannot open: %s", strerror(e));
    }
    struct stat st;
    int rc;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return kt_fail(err, -e, KT_NO_OFFSET, "cannot stat: %s", strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return kt_fail(err, -EISDIR, KT_NO_OFFSET, "is a directory");
    }
    if (S_ISREG(st.st_mode)) {
        if ((uint64_t)st.st_size > KT_FILE_MAX_SIZE) {
            close(fd);
            return kt_fail(err, -EFBIG, KT_NO_OFFSET, "file larger than %zu bytes",
                           KT_FILE_MAX_SIZE);
        }
        if (st.st_size == 0) {
            close(fd);
            f->data = (const uint8_t *)"";
            f->len = 0;
            f->mapped = 2;
            return 0;
        }
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            close(fd);
            f->data = p;
            f->len = (size_t)st.st_size;
            f->mapped = 1;
            return 0;
        }
    }
    rc = read_all(fd, f, err);
    close(fd);
    return rc;
}

void kt_file_close(struct kt_file *f)
{
    if (!f->data)
        return;
    if (f->mapped == 1)
        munmap((void *)f->data, f->len);
    else if (f->mapped == 0)
        free((void *)f->data);
    memset(f, 0, sizeof(*f));
}

int kt_file_write_atomic(const char *path, const void *data, size_t len, struct kt_error *err)
{
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp)
        return -ENOMEM;
    snprintf(tmp, n, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return kt_fail(err, -e, KT_NO_OFFSET, "cannot create: %s", strerror(e));
    }
    const uint8_t *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            free(tmp);
            return kt_fail(err, -e, KT_NO_OFFSET, "write failed: %s", strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        return kt_fail(err, -e, KT_NO_OFFSET, "write failed: %s", strerror(e));
    }
    free(tmp);
    return 0;
}
