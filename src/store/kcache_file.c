/* kcache_file.c - the kernel-key cache on disk, for the commands that have
 * no store to keep it in (chain, audit): DIR/kernel-keys/HEX, one file per
 * kernel image, HEX the SHA-256 of the image's bytes.
 *
 * An entry (little-endian):
 *   "ktrust-kkeys-v1\n"             16 bytes
 *   the image's SHA-256             32
 *   count                           u32, 1..KCACHE_MAX_CERTS
 *   count x { u32 len, len bytes }  the certificates, in the image's order
 *   SHA-256 of "ktrust VERSION\n" and all the bytes above    32
 * The trailing digest catches a truncated or damaged file (written without
 * fsync: a power cut may leave one), and an entry another ktrust release
 * wrote (its decoder may have found other certificates: this one decodes
 * again), not an attacker: trust comes from the
 * directory being this user's alone (checked on every open, on the open
 * descriptors) and the entry being found only under the digest of the bytes
 * in hand.  The certificates are data: the caller adds them through the same
 * parse and keyring restriction a decode would. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crypto/crypto.h"
#include "store/kcache_file.h"
#include "store/store.h"
#include "util/fmt.h"
#include "util/le.h"

#define KCACHE_SUBDIR "kernel-keys"
#define KCACHE_MAGIC "ktrust-kkeys-v1\n"
#define KCACHE_MAGIC_LEN 16
#define KCACHE_MAX_CERTS 256
#define KCACHE_MAX_CERT ((size_t)64 << 10)
#define KCACHE_MAX_FILE ((size_t)4 << 20)
#define KCACHE_KEEP 16        /* entries kept: the least recently used go */
#define KCACHE_STALE_TMP 3600 /* a temporary file this old (s) is a killed writer's */

int kt_cert_list_push(void *list, const uint8_t *der, size_t len, size_t off)
{
    struct kt_cert_list *l = list;
    (void)off;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        uint8_t **d = realloc(l->der, cap * sizeof(*d));
        if (!d)
            return -ENOMEM;
        l->der = d;
        size_t *n = realloc(l->len, cap * sizeof(*n));
        if (!n)
            return -ENOMEM;
        l->len = n;
        l->cap = cap;
    }
    if (!(l->der[l->n] = malloc(len ? len : 1)))
        return -ENOMEM;
    memcpy(l->der[l->n], der, len);
    l->len[l->n++] = len;
    return 0;
}

void kt_cert_list_free(struct kt_cert_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->der[i]);
    free(l->der);
    free(l->len);
    memset(l, 0, sizeof(*l));
}

/* DIR/kernel-keys opened, if it is this user's private directory: the
 * descriptor, or a negative errno (-EPERM: someone else's or open to
 * others; -ELOOP: a symbolic link). */
static int open_dir(const char *dir, bool create)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof(path), "%s/" KCACHE_SUBDIR "/x", dir) >= sizeof(path))
        return -ENAMETOOLONG;
    if (create)
        kt_store_mkdir_parents(path, NULL); /* mode 0700; what fails shows below */
    path[strlen(path) - 2] = 0;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
        close(fd);
        return -EPERM;
    }
    return fd;
}

/* The whole entry at fd, if it is a regular file of this user's that no one
 * else may write, of a plausible size.  0 or -EBADMSG. */
static int read_entry(int fd, uint8_t **out, size_t *n)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 022) || st.st_size <= 0 || (size_t)st.st_size > KCACHE_MAX_FILE)
        return -EBADMSG;
    size_t len = (size_t)st.st_size, got = 0;
    uint8_t *buf = malloc(len);
    if (!buf)
        return -ENOMEM;
    while (got < len) {
        ssize_t r = read(fd, buf + got, len - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (got != len) {
        free(buf);
        return -EBADMSG;
    }
    *out = buf;
    *n = len;
    return 0;
}

/* The trailing digest of an entry's n bytes into d: bound to this
 * release, so another release's entries are misses.  0 or -ENOMEM. */
static int entry_digest(const uint8_t *buf, size_t n, uint8_t d[32])
{
    static const char release[] = "ktrust " KT_VERSION_STRING "\n";
    struct kt_hasher *x = NULL;
    int rc = kt_hasher_new(&x, KT_HASH_SHA256);
    if (rc == 0)
        rc = kt_hasher_digest(x, release, sizeof(release) - 1, buf, n, d);
    kt_hasher_free(x);
    return rc;
}

/* The certificates of an entry for the image sha, into l (empty before).
 * 0, or -EBADMSG (l left empty) for anything but a whole, matching entry. */
static int parse_entry(const uint8_t *buf, size_t n, const uint8_t sha[32],
                       struct kt_cert_list *l)
{
    uint8_t d[32];
    if (n < KCACHE_MAGIC_LEN + 32 + 4 + 32 || entry_digest(buf, n - 32, d) < 0 ||
        memcmp(d, buf + n - 32, 32))
        return -EBADMSG;
    kt_le c;
    kt_le_init(&c, buf, n - 32, NULL);
    const uint8_t *p;
    uint32_t count, len;
    if (kt_le_bytes(&c, KCACHE_MAGIC_LEN, &p, NULL) < 0 || memcmp(p, KCACHE_MAGIC, KCACHE_MAGIC_LEN) ||
        kt_le_bytes(&c, 32, &p, NULL) < 0 || memcmp(p, sha, 32) || kt_le_u32(&c, &count, NULL) < 0 ||
        count == 0 || count > KCACHE_MAX_CERTS)
        return -EBADMSG;
    for (uint32_t i = 0; i < count; i++) {
        if (kt_le_u32(&c, &len, NULL) < 0 || len == 0 || len > KCACHE_MAX_CERT ||
            kt_le_bytes(&c, len, &p, NULL) < 0 || kt_cert_list_push(l, p, len, 0) < 0) {
            kt_cert_list_free(l);
            return -EBADMSG;
        }
    }
    if (kt_le_left(&c)) {
        kt_cert_list_free(l);
        return -EBADMSG;
    }
    return 0;
}

int kt_kcache_file_get(const char *dir, const uint8_t sha[32], struct kt_cert_list *l)
{
    if (!dir || !*dir)
        return 0;
    int dfd = open_dir(dir, false);
    if (dfd < 0)
        return 0;
    char name[65];
    kt_hex(sha, 32, name);
    /* O_NONBLOCK: a FIFO in its place must not hang the run (read_entry
     * refuses anything but a regular file) */
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    close(dfd);
    if (fd < 0)
        return 0;
    uint8_t *buf = NULL;
    size_t n = 0;
    int found = read_entry(fd, &buf, &n) == 0 && parse_entry(buf, n, sha, l) == 0;
    if (found)
        futimens(fd, NULL); /* used now: the eviction keeps it */
    close(fd);
    free(buf);
    return found;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

/* The entry's bytes for l (malloc'd), or NULL (too big, no memory). */
static uint8_t *encode(const uint8_t sha[32], const struct kt_cert_list *l, size_t *n)
{
    size_t len = KCACHE_MAGIC_LEN + 32 + 4 + 32;
    if (l->n == 0 || l->n > KCACHE_MAX_CERTS)
        return NULL;
    for (size_t i = 0; i < l->n; i++) {
        if (l->len[i] == 0 || l->len[i] > KCACHE_MAX_CERT)
            return NULL;
        len += 4 + l->len[i];
    }
    uint8_t *buf = malloc(len), *p = buf;
    if (!buf)
        return NULL;
    memcpy(p, KCACHE_MAGIC, KCACHE_MAGIC_LEN);
    memcpy(p += KCACHE_MAGIC_LEN, sha, 32);
    p = put32(p + 32, (uint32_t)l->n);
    for (size_t i = 0; i < l->n; i++) {
        p = put32(p, (uint32_t)l->len[i]);
        memcpy(p, l->der[i], l->len[i]);
        p += l->len[i];
    }
    if (entry_digest(buf, len - 32, p) < 0) {
        free(buf);
        return NULL;
    }
    *n = len;
    return buf;
}

struct entry {
    struct timespec used;
    char name[65];
};

static int newest_first(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? 1 : -1;
    if (x->used.tv_nsec != y->used.tv_nsec)
        return x->used.tv_nsec < y->used.tv_nsec ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Keep the KCACHE_KEEP entries used last; remove a killed writer's
 * temporary files.  Best effort. */
static void evict(int dfd)
{
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct entry *e = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    time_t now = time(NULL);
    while ((de = readdir(d))) {
        struct stat st;
        size_t nl = strlen(de->d_name);
        bool tmp = de->d_name[0] == '.' && nl > 4 && !strcmp(de->d_name + nl - 4, ".tmp");
        if ((!tmp && (nl != 64 || strspn(de->d_name, "0123456789abcdef") != 64)) ||
            fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        if (tmp) {
            if (st.st_mtime < now - KCACHE_STALE_TMP)
                unlinkat(dfd, de->d_name, 0);
            continue;
        }
        if (n == cap) {
            struct entry *g = realloc(e, (cap = cap ? cap * 2 : 32) * sizeof(*e));
            if (!g)
                break;
            e = g;
        }
        e[n].used = st.st_mtim;
        memcpy(e[n++].name, de->d_name, 65);
    }
    closedir(d);
    if (n > KCACHE_KEEP) {
        qsort(e, n, sizeof(*e), newest_first);
        for (size_t i = KCACHE_KEEP; i < n; i++)
            unlinkat(dfd, e[i].name, 0);
    }
    free(e);
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? -errno : -EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int kt_kcache_file_put(const char *dir, const uint8_t sha[32], const struct kt_cert_list *l)
{
    size_t n = 0;
    uint8_t *buf = dir && *dir ? encode(sha, l, &n) : NULL;
    if (!buf)
        return -EINVAL;
    int dfd = open_dir(dir, true), rc = dfd < 0 ? dfd : 0;
    char name[65], tmp[96];
    kt_hex(sha, 32, name);
    snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", name, (long)getpid());
    int fd = -1;
    if (rc == 0) {
        unlinkat(dfd, tmp, 0); /* a killed run's with this pid */
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        rc = fd < 0 ? -errno : write_all(fd, buf, n);
    }
    if (fd >= 0 && close(fd) < 0 && rc == 0)
        rc = -errno;
    if (fd >= 0 && rc == 0 && renameat(dfd, tmp, dfd, name) < 0)
        rc = -errno;
    if (fd >= 0 && rc < 0)
        unlinkat(dfd, tmp, 0);
    if (rc == 0)
        evict(dfd);
    if (dfd >= 0)
        close(dfd);
    free(buf);
    return rc;
}
