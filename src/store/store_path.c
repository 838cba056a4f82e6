/* store_path.c - what a store path may be before SQLite opens it: not a
 * directory; for reading, an existing file; for writing, a file in a
 * directory that exists (only the default store's directories are made). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_int.h"

int kt_store_mkdir_parents(const char *path, struct kt_error *err)
{
    char buf[PATH_MAX];
    if (strlen(path) >= sizeof(buf))
        return kt_fail(err, -ENAMETOOLONG, KT_NO_OFFSET, "store: path too long");
    strcpy(buf, path);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf)
        return 0;
    *slash = 0;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0700) < 0 && errno != EEXIST)
            return kt_fail(err, -errno, KT_NO_OFFSET, "store: cannot create %s: %s", buf,
                           strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0700) < 0 && errno != EEXIST)
        return kt_fail(err, -errno, KT_NO_OFFSET, "store: cannot create %s: %s", buf,
                       strerror(errno));
    return 0;
}

/* Before opening: a directory is not a store; reading needs the file;
 * writing creates only the file, in a directory that exists. */
int kt_store_check_path(const char *path, enum kt_store_mode mode, bool *writable,
                      struct kt_error *err)
{
    struct stat sb;
    *writable = false;
    if (stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            return kt_fail(err, -EISDIR, KT_NO_OFFSET,
                           "is a directory, not a store file (e.g. %s/keyrings.db)", path);
        *writable = access(path, W_OK) == 0;
        return 0;
    }
    if (errno != ENOENT)
        return kt_fail(err, -errno, KT_NO_OFFSET, "store: %s", strerror(errno));
    if (mode == KT_STORE_READ)
        return kt_fail(err, -ENOENT, KT_NO_OFFSET, "no store at this path");
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return 0; /* the current directory */
    if (slash == dir)
        slash[1] = 0;
    else
        *slash = 0;
    if (stat(dir, &sb) < 0)
        return kt_fail(err, -ENOENT, KT_NO_OFFSET,
                       "no store here, and its directory %s does not exist (not created)", dir);
    if (!S_ISDIR(sb.st_mode))
        return kt_fail(err, -ENOTDIR, KT_NO_OFFSET, "%s is not a directory", dir);
    return 0;
}


/* The nearest existing directory at or above dir (dir is cut in place). */
static int existing_ancestor(char *dir, struct stat *sb)
{
    for (;;) {
        if (stat(dir, sb) == 0)
            return 0;
        if (errno != ENOENT)
            return -errno;
        char *slash = strrchr(dir, '/');
        if (!slash)
            return -ENOENT;
        if (slash == dir)
            slash[1] = 0;
        else
            *slash = 0;
    }
}

int kt_store_check_creatable(const char *path, bool make_dirs, struct kt_error *err)
{
    bool w;
    int rc;
    if (!make_dirs && (rc = kt_store_check_path(path, KT_STORE_WRITE, &w, err)) < 0)
        return rc; /* "its directory ... does not exist (not created)" */
    char dir[PATH_MAX];
    if (strlen(path) >= sizeof(dir))
        return kt_fail(err, -ENAMETOOLONG, KT_NO_OFFSET, "store: path too long");
    strcpy(dir, path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == dir)
        slash[1] = 0;
    else
        *slash = 0;
    struct stat sb;
    if ((rc = existing_ancestor(dir, &sb)) < 0)
        return kt_fail(err, rc, KT_NO_OFFSET, "store: cannot create it: %s", strerror(-rc));
    if (!S_ISDIR(sb.st_mode))
        return kt_fail(err, -ENOTDIR, KT_NO_OFFSET, "%s is not a directory", dir);
    if (access(dir, W_OK | X_OK) < 0) {
        int e = errno;
        return kt_fail(err, -e, KT_NO_OFFSET, "no store here, and it cannot be created in %s: %s",
                       dir, strerror(e));
    }
    return 0;
}
