/* esp.c - a path on an ESP looked up as firmware does (case-blind, FAT),
 * confined to the ESP: a link that leaves it is refused, not followed. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/esp.h"

/* A lookup in progress: res the resolved part under the ESP ("" its top,
 * else "/a/b", real entries, no link); todo + pos what is left. */
struct walk {
    int rfd;
    char res[PATH_MAX], todo[PATH_MAX];
    size_t pos;
};

/* The entry of the directory res named comp (n bytes), the exact name
 * first, else the first one equal without regard to case, appended to res. */
static int step_into(struct walk *w, const char *comp, size_t n)
{
    size_t rl = strlen(w->res);
    if (n >= NAME_MAX + 1 || rl + 1 + n >= sizeof(w->res))
        return -ENAMETOOLONG;
    w->res[rl] = '/';
    memcpy(w->res + rl + 1, comp, n);
    w->res[rl + 1 + n] = 0;
    struct stat st;
    if (fstatat(w->rfd, w->res + 1, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return 0;
    w->res[rl] = 0;
    int dfd = rl ? openat(w->rfd, w->res + 1, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : dup(w->rfd);
    DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return -ENOENT;
    }
    int rc = -ENOENT;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strlen(de->d_name) == n && !strncasecmp(de->d_name, comp, n)) {
            w->res[rl] = '/';
            memcpy(w->res + rl + 1, de->d_name, n);
            rc = 0;
            break;
        }
    closedir(d);
    return rc;
}

/* res's last entry is a link: replace it by its target, which must stay
 * on the ESP (relative, its ".." resolved against res). */
static int follow(struct walk *w)
{
    char tgt[PATH_MAX], rest[PATH_MAX];
    ssize_t l = readlinkat(w->rfd, w->res + 1, tgt, sizeof(tgt));
    if (l < 0 || (size_t)l >= sizeof(tgt))
        return l < 0 ? -errno : -ENAMETOOLONG;
    tgt[l] = 0;
    if (tgt[0] == '/')
        return -EXDEV;
    *strrchr(w->res, '/') = 0;
    const char *r = w->todo + w->pos + strspn(w->todo + w->pos, "/");
    int n = snprintf(rest, sizeof(rest), "%s%s%s", tgt, *r ? "/" : "", r);
    if (n < 0 || (size_t)n >= sizeof(rest))
        return -ENAMETOOLONG;
    memcpy(w->todo, rest, (size_t)n + 1);
    w->pos = 0;
    return 0;
}

/* The walk: each component of todo in turn; ".." only from a link. */
static int walk(struct walk *w, struct stat *st)
{
    int links = 0;
    for (;;) {
        w->pos += strspn(w->todo + w->pos, "/");
        if (!w->todo[w->pos])
            return w->res[0] ? (fstatat(w->rfd, w->res + 1, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0)
                             : (fstat(w->rfd, st) < 0 ? -errno : 0);
        const char *comp = w->todo + w->pos;
        size_t n = strcspn(comp, "/");
        if (n == 1 && comp[0] == '.') {
            w->pos += n;
            continue;
        }
        if (n == 2 && comp[0] == '.' && comp[1] == '.') {
            char *s = strrchr(w->res, '/');
            if (!s)
                return -EXDEV; /* above the ESP's top */
            *s = 0;
            w->pos += n;
            continue;
        }
        int rc = step_into(w, comp, n);
        if (rc < 0)
            return rc;
        w->pos += n;
        if (fstatat(w->rfd, w->res + 1, st, AT_SYMLINK_NOFOLLOW) < 0)
            return -errno;
        if (S_ISLNK(st->st_mode)) {
            if (++links > 40)
                return -ELOOP;
            if ((rc = follow(w)) < 0)
                return rc;
        } else if (!S_ISDIR(st->st_mode) && w->todo[w->pos + strspn(w->todo + w->pos, "/")]) {
            return -ENOTDIR;
        }
    }
}

/* "." or ".." as a component of the path asked for (not of a link's target). */
static bool climbs(const char *p)
{
    while (*p) {
        p += strspn(p, "/");
        size_t n = strcspn(p, "/");
        if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return true;
        p += n;
    }
    return false;
}

int kt_esp_resolve(const char *esp, const char *path, char *out, size_t cap, struct stat *st)
{
    struct stat tmp;
    struct walk w = {.res = ""};
    int n = snprintf(w.todo, sizeof(w.todo), "%s", path);
    if (n < 0 || (size_t)n >= sizeof(w.todo))
        return -ENAMETOOLONG;
    for (char *c = w.todo; (c = strchr(c, '\\')) != NULL;)
        *c++ = '/';
    int rc = climbs(w.todo) ? -ENOENT : 0;
    if (rc == 0 && (w.rfd = open(esp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        rc = -errno;
    else if (rc == 0) {
        rc = walk(&w, st ? st : &tmp);
        close(w.rfd);
    }
    const char *rest = rc == 0 ? "" : w.todo + w.pos + strspn(w.todo + w.pos, "/");
    n = snprintf(out, cap, "%s%s%s%s", esp, w.res, *rest ? "/" : "", rest);
    if (rc == 0 && (n < 0 || (size_t)n >= cap))
        rc = -ENAMETOOLONG;
    return rc;
}

int kt_esp_file(const char *esp, const char *path, char *out, size_t cap)
{
    struct stat st;
    int rc = kt_esp_resolve(esp, path, out, cap, &st);
    if (rc == 0 && !S_ISREG(st.st_mode))
        rc = S_ISDIR(st.st_mode) ? -EISDIR : -ENODEV;
    return rc;
}
