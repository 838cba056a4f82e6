#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a non-regular file is, for the message that refuses it. */
static const char *kind_of(mode_t m)
{
    if (S_ISFIFO(m))
        return "a pipe or FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "a file";
}

/* Read a stream to its end, at most KT_FILE_STREAM_MAX bytes (a regular file
 * that could not be mapped: KT_FILE_MAX_SIZE): one more is refused, so
 * /dev/zero or an endless writer costs 32 MiB, not 4 GiB. */
static int read_all(int fd, mode_t mode, struct kt_file *f, struct kt_error *err)
{
    size_t cap = 1 << 16, len = 0;
    size_t max = S_ISREG(mode) ? KT_FILE_MAX_SIZE : KT_FILE_STREAM_MAX;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return -ENOMEM;
    for (;;) {
        if (len == cap) {
            if (cap >= max) {
                char one;
                ssize_t more;
                while ((more = read(fd, &one, 1)) < 0 && errno == EINTR)
                    ;
                if (more == 0)
                    break; /* exactly the limit */
                free(buf);
                return kt_fail(err, -EFBIG, len,
                               "%s giving more than %zu MiB, the most ktrust reads from "
                               "a stream; give a regular file",
                               kind_of(mode), max >> 20);
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
        if (n < 0 && errno == EINTR)
            continue;
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

/* Map or read an open descriptor (closed here) whose stat is st. */
static int open_fd(int fd, const struct stat *st, struct kt_file *f, struct kt_error *err)
{
    if (S_ISDIR(st->st_mode)) {
        close(fd);
        return kt_fail(err, -EISDIR, KT_NO_OFFSET, "is a directory");
    }
    if (S_ISREG(st->st_mode)) {
        if ((uint64_t)st->st_size > KT_FILE_MAX_SIZE) {
            close(fd);
            return kt_fail(err, -EFBIG, KT_NO_OFFSET, "file larger than %zu bytes",
                           KT_FILE_MAX_SIZE);
        }
        /* a size of 0 is read to its end: procfs, sysfs and securityfs files
         * (the TCG and IMA measurement lists) say 0 and hold bytes */
        void *p = st->st_size ? mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0)
                              : MAP_FAILED;
        if (p != MAP_FAILED) {
            close(fd);
            f->data = p;
            f->len = (size_t)st->st_size;
            f->mapped = 1;
            return 0;
        }
    }
    int rc = read_all(fd, st->st_mode, f, err);
    close(fd);
    return rc;
}

/* open + fstat; on success *fd is open. */
static int open_stat(const char *path, int *fd, struct stat *st, struct kt_error *err)
{
    *fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0) {
        int e = errno;
        return kt_fail(err, -e, KT_NO_OFFSET, "cannot open: %s", strerror(e));
    }
    if (fstat(*fd, st) < 0) {
        int e = errno;
        close(*fd);
        return kt_fail(err, -e, KT_NO_OFFSET, "cannot stat: %s", strerror(e));
    }
    return 0;
}

int kt_file_open(const char *path, struct kt_file *f, struct kt_error *err)
{
    memset(f, 0, sizeof(*f));
    int fd;
    struct stat st;
    int rc = open_stat(path, &fd, &st, err);
    return rc < 0 ? rc : open_fd(fd, &st, f, err);
}

void kt_file_close(struct kt_file *f)
{
    if (!f->data)
        return;
    if (f->mapped == 1)
        munmap((void *)f->data, f->len);
    else if (f->mapped == 0)
        free((void *)f->data);
    memset(f, 0, sizeof(*f)); /* mapped 3 (a kt_filebuf's bytes): nothing to free */
}

/* Read exactly `len` bytes of a regular file into b; a file that grew or
 * shrank while read is an error, not a silently different input. */
static int read_exact(int fd, struct kt_filebuf *b, size_t len, struct kt_error *err)
{
    if (len > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < len)
            cap *= 2;
        uint8_t *nb = realloc(b->data, cap);
        if (!nb)
            return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
        b->data = nb;
        b->cap = cap;
    }
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, b->data + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            return kt_fail(err, -e, KT_NO_OFFSET, "read failed: %s", strerror(e));
        }
        if (n == 0)
            return kt_fail(err, -EIO, got, "file shrank while it was read");
        got += (size_t)n;
    }
    return 0;
}

int kt_file_open_buf(const char *path, struct kt_filebuf *b, struct kt_file *f,
                     struct kt_error *err)
{
    memset(f, 0, sizeof(*f));
    int fd;
    struct stat st;
    int rc = open_stat(path, &fd, &st, err);
    if (rc < 0)
        return rc;
    if (!S_ISREG(st.st_mode) || st.st_size == 0 || (uint64_t)st.st_size > KT_FILEBUF_MAX)
        return open_fd(fd, &st, f, err);
    rc = read_exact(fd, b, (size_t)st.st_size, err);
    close(fd);
    if (rc < 0)
        return rc;
    f->data = b->data;
    f->len = (size_t)st.st_size;
    f->mapped = 3;
    return 0;
}

void kt_filebuf_free(struct kt_filebuf *b)
{
    free(b->data);
    b->data = NULL;
    b->cap = 0;
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

/* out = a then b (either may be NULL); -ENAMETOOLONG when it does not fit. */
static int join2(char *out, size_t cap, const char *a, const char *b, const char *c)
{
    int n = snprintf(out, cap, "%s%s%s", a ? a : "", b ? b : "", c ? c : "");
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

int kt_root_resolve(const char *root, const char *path, char *out, size_t cap, struct stat *st)
{
    struct stat tmp;
    if (!st)
        st = &tmp;
    if (!root || !*root) {
        if (join2(out, cap, path, NULL, NULL) < 0)
            return -ENAMETOOLONG;
        return stat(path, st) == 0 ? 0 : -errno;
    }
    int rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rfd < 0) {
        int e = errno;
        join2(out, cap, root, *path == '/' ? "" : "/", path);
        return -e;
    }
    /* res: the resolved part ("" the root, else "/a/b", each component a
     * real entry, no link); todo + pos: what is left to look up */
    char res[PATH_MAX] = "", todo[PATH_MAX], tgt[PATH_MAX];
    size_t pos = 0;
    int links = 0, rc = join2(todo, sizeof(todo), path, NULL, NULL);
    while (rc == 0) {
        while (todo[pos] == '/')
            pos++;
        if (!todo[pos])
            break;
        size_t n = strcspn(todo + pos, "/");
        const char *comp = todo + pos;
        pos += n;
        if (n == 1 && comp[0] == '.')
            continue;
        if (n == 2 && comp[0] == '.' && comp[1] == '.') { /* clamped at the root */
            char *s = strrchr(res, '/');
            if (s)
                *s = 0;
            continue;
        }
        size_t rl = strlen(res);
        if (rl + 1 + n >= sizeof(res)) {
            rc = -ENAMETOOLONG;
            break;
        }
        res[rl] = '/';
        memcpy(res + rl + 1, comp, n);
        res[rl + 1 + n] = 0;
        if (fstatat(rfd, res + 1, st, AT_SYMLINK_NOFOLLOW) < 0) {
            rc = -errno;
            break;
        }
        if (S_ISLNK(st->st_mode)) {
            if (++links > 40) {
                rc = -ELOOP;
                break;
            }
            ssize_t l = readlinkat(rfd, res + 1, tgt, sizeof(tgt));
            if (l < 0 || (size_t)l >= sizeof(tgt)) {
                rc = l < 0 ? -errno : -ENAMETOOLONG;
                break;
            }
            tgt[l] = 0;
            res[rl] = 0; /* the link itself is replaced by its target */
            if (tgt[0] == '/')
                res[0] = 0;
            char rest[PATH_MAX];
            if (join2(rest, sizeof(rest), todo + pos, NULL, NULL) < 0 ||
                join2(todo, sizeof(todo), tgt, rest[strspn(rest, "/")] ? "/" : "", rest) < 0) {
                rc = -ENAMETOOLONG;
                break;
            }
            pos = 0;
            continue;
        }
        /* more to look up under something that is not a directory */
        if (!S_ISDIR(st->st_mode) && todo[pos + strspn(todo + pos, "/")]) {
            rc = -ENOTDIR;
            break;
        }
    }
    if (rc == 0) {
        if ((res[0] ? fstatat(rfd, res + 1, st, AT_SYMLINK_NOFOLLOW) : fstat(rfd, st)) < 0)
            rc = -errno;
        if (rc == 0 && join2(out, cap, root, res, NULL) < 0)
            rc = -ENAMETOOLONG;
    } else {
        const char *rest = todo + pos + strspn(todo + pos, "/");
        join2(out, cap, root, res, "");
        size_t ol = strlen(out);
        if (*rest && ol < cap)
            join2(out + ol, cap - ol, "/", rest, NULL);
    }
    close(rfd);
    return rc;
}
