/* audit_save.c - `audit --save-root DIR`: what an audit read, copied into
 * DIR in the layout --root reads (audit_locate.c), so that the same audit can
 * run elsewhere, later, on a copy.  Written into a temporary sibling of DIR
 * and renamed into place at the end: DIR is whole or absent, never partial. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "ktrust/boot.h"
#include "modsig/modsig.h"
#include "ktrust/nvram.h"
#include "util/file.h"

#define EVENTLOG kt_sys_path(KT_SYS_EVENTLOG)

struct save {
    char tmp[PATH_MAX];         /* the temporary root being filled */
    struct kt_audit_saved *out; /* counts, and what was left out */
    struct kt_error *err;
    char *buf;                  /* the copy buffer, BUF bytes */
    bool full;                  /* modules whole (else as verification needs them) */
};

#define BUF ((size_t)1 << 16)

int kt_audit_save_check(const char *dir, struct kt_error *err)
{
    struct stat st;
    if (stat(dir, &st) < 0) {
        if (errno != ENOENT)
            return kt_fail(err, -errno, KT_NO_OFFSET, "cannot use it: %s", strerror(errno));
        char parent[PATH_MAX];
        kt_fmt(parent, sizeof(parent), "%s", dir);
        char *slash = strrchr(parent, '/');
        if (slash == parent)
            slash[1] = 0;
        else if (slash)
            *slash = 0;
        else
            kt_fmt(parent, sizeof(parent), ".");
        if (stat(parent, &st) < 0 || !S_ISDIR(st.st_mode))
            return kt_fail(err, -ENOENT, KT_NO_OFFSET,
                           "its parent directory %s does not exist (not created)", parent);
        return 0;
    }
    if (!S_ISDIR(st.st_mode))
        return kt_fail(err, -ENOTDIR, KT_NO_OFFSET, "exists and is not a directory");
    DIR *d = opendir(dir);
    if (!d)
        return kt_fail(err, -errno, KT_NO_OFFSET, "cannot open: %s", strerror(errno));
    struct dirent *de;
    bool empty = true;
    while (empty && (de = readdir(d)) != NULL)
        empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
    closedir(d);
    if (!empty)
        return kt_fail(err, -ENOTEMPTY, KT_NO_OFFSET,
                       "is not empty (a saved root is written whole into a new or empty directory)");
    return 0;
}

/* mkdir -p of the directories above tmp/rel (rel starts with '/'). */
static int make_parents(struct save *s, const char *rel)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof(p), "%s%s", s->tmp, rel) >= (int)sizeof(p))
        return kt_fail(s->err, -ENAMETOOLONG, KT_NO_OFFSET, "%s: path too long", rel);
    for (char *c = p + strlen(s->tmp) + 1; (c = strchr(c, '/')) != NULL; c++) {
        *c = 0;
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
            return kt_fail(s->err, -errno, KT_NO_OFFSET, "cannot create %s: %s", p,
                           strerror(errno));
        *c = '/';
    }
    return 0;
}

/* buf[0..n) to the open file out (named dst). */
static int write_all(struct save *s, int out, const void *buf, size_t n, const char *dst)
{
    for (size_t off = 0; off < n;) {
        ssize_t w = write(out, (const char *)buf + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return kt_fail(s->err, -errno, KT_NO_OFFSET, "%s: write failed: %s", dst,
                           strerror(errno));
        off += (size_t)w;
    }
    return 0;
}

/* A new file tmp/rel holding buf[0..n). */
static int write_file(struct save *s, const char *rel, const void *buf, size_t n)
{
    int rc = make_parents(s, rel);
    char dst[PATH_MAX];
    kt_fmt(dst, sizeof(dst), "%s%s", s->tmp, rel);
    int out = rc < 0 ? -1 : open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (rc == 0 && out < 0)
        rc = kt_fail(s->err, -errno, KT_NO_OFFSET, "cannot create %s: %s", dst, strerror(errno));
    if (rc == 0)
        rc = write_all(s, out, buf, n, dst);
    if (out >= 0 && close(out) < 0 && rc == 0)
        rc = kt_fail(s->err, -errno, KT_NO_OFFSET, "%s: write failed: %s", dst, strerror(errno));
    if (rc == 0) {
        s->out->n_files++;
        s->out->bytes += n;
    }
    return rc;
}

/* src (a regular file, read to its end whatever its stat size says: the
 * securityfs event log says 0) into tmp/rel. */
static int copy_file(struct save *s, const char *src, const char *rel)
{
    int rc = make_parents(s, rel);
    if (rc < 0)
        return rc;
    char dst[PATH_MAX];
    kt_fmt(dst, sizeof(dst), "%s%s", s->tmp, rel);
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return kt_fail(s->err, -errno, KT_NO_OFFSET, "%s: cannot open: %s", src, strerror(errno));
    struct stat st;
    if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(in);
        return kt_fail(s->err, -EINVAL, KT_NO_OFFSET, "%s: not a regular file", src);
    }
    int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (out < 0) {
        int e = errno;
        close(in);
        return kt_fail(s->err, -e, KT_NO_OFFSET, "cannot create %s: %s", dst, strerror(e));
    }
    char *buf = s->buf;
    uint64_t total = 0;
    while (rc == 0) {
        ssize_t n = read(in, buf, BUF);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = kt_fail(s->err, -errno, KT_NO_OFFSET, "%s: read failed: %s", src,
                         strerror(errno));
            break;
        }
        if (n == 0)
            break;
        if ((total += (uint64_t)n) > KT_FILE_MAX_SIZE) {
            rc = kt_fail(s->err, -EFBIG, KT_NO_OFFSET, "%s: larger than %zu bytes", src,
                         KT_FILE_MAX_SIZE);
            break;
        }
        rc = write_all(s, out, buf, (size_t)n, dst);
    }
    close(in);
    if (close(out) < 0 && rc == 0)
        rc = kt_fail(s->err, -errno, KT_NO_OFFSET, "%s: write failed: %s", dst, strerror(errno));
    if (rc == 0) {
        s->out->n_files++;
        s->out->bytes += total;
    }
    return rc;
}

/* A file found under base (its path starts with base) to tmp/to/<the rest>. */
static int copy_under(struct save *s, const char *base, const char *path, const char *to)
{
    size_t bl = strlen(base);
    if (strncmp(path, base, bl) != 0 || path[bl] != '/')
        return kt_fail(s->err, -EINVAL, KT_NO_OFFSET, "%s is not under %s", path, base);
    char rel[PATH_MAX];
    if (snprintf(rel, sizeof(rel), "%s%s", to, path + bl) >= (int)sizeof(rel))
        return kt_fail(s->err, -ENAMETOOLONG, KT_NO_OFFSET, "%s: path too long", path);
    return copy_file(s, path, rel);
}

/* Every variable of the efivars directory (the audit reads a dozen of them;
 * all are kept, so a later audit that reads more finds them too). */
static int save_efivars(struct save *s, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return kt_fail(s->err, -errno, KT_NO_OFFSET, "%s: cannot open: %s", dir, strerror(errno));
    char to[PATH_MAX];
    kt_fmt(to, sizeof(to), "%s/x", kt_sys_path(KT_SYS_EFIVARS));
    int rc = make_parents(s, to);
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        char src[PATH_MAX], rel[PATH_MAX];
        struct stat st;
        kt_fmt(src, sizeof(src), "%s/%s", dir, de->d_name);
        if (de->d_name[0] == '.' || lstat(src, &st) < 0 || !S_ISREG(st.st_mode))
            continue;
        kt_fmt(rel, sizeof(rel), "%s/%s", kt_sys_path(KT_SYS_EFIVARS), de->d_name);
        rc = copy_file(s, src, rel);
    }
    closedir(d);
    /* the store's size and free space (efivarfs' statfs), beside the
     * variables: what plan-updates --root judges a write's fit by */
    char nv[PATH_MAX];
    kt_fmt(nv, sizeof(nv), "%s%s/../%s", s->tmp, kt_sys_path(KT_SYS_EFIVARS), KT_NV_SAVED_NAME);
    if (rc == 0 && kt_nv_limits_save(dir, nv) < 0)
        rc = kt_fail(s->err, -EIO, KT_NO_OFFSET, "%s: cannot write", nv);
    return rc;
}

/* The ESP's boot files: shim, loader, MokManager, and the files of the boot
 * entries found on it, at their places on the ESP, under boot/efi. */
static int save_esp(struct save *s, const struct kt_audit *a)
{
    const char *esp = a->path[KT_AUDIT_ESP];
    char to[PATH_MAX];
    kt_fmt(to, sizeof(to), "%s/x", kt_sys_path(KT_SYS_ESP));
    int rc = make_parents(s, to);
    for (int i = 0; rc == 0 && i < KT_AUDIT__LINKS; i++)
        if (i != KT_AUDIT_KERNEL_LINK && a->links[i].present)
            rc = copy_under(s, esp, a->links[i].path, kt_sys_path(KT_SYS_ESP));
    for (size_t i = 0; rc == 0 && i < a->n_boot; i++) {
        const struct kt_audit_boot *b = &a->boot[i];
        bool dup = false;
        for (int l = 0; l < KT_AUDIT__LINKS; l++)
            dup |= a->links[l].present && !strcmp(a->links[l].path, b->path);
        for (size_t j = 0; j < i; j++)
            dup |= a->boot[j].on_esp && !strcmp(a->boot[j].path, b->path);
        if (b->on_esp && b->path[0] && !dup)
            rc = copy_under(s, esp, b->path, kt_sys_path(KT_SYS_ESP));
    }
    return rc;
}

/* A module as what verifying it needs (kt_modsig_compact_make: its
 * signature and the digest of its signed content), at its place; whole when
 * that cannot be (unsigned, malformed). */
static int save_module(struct save *s, const char *base, const char *path, const char *to)
{
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    uint8_t *c = NULL;
    size_t n = 0;
    int rc = kt_file_open(path, &f, &e);
    if (rc == 0)
        rc = kt_modsig_compact_make(f.data, f.len, &c, &n, &e);
    kt_file_close(&f);
    if (rc == -ENOMEM)
        return kt_fail(s->err, rc, KT_NO_OFFSET, "out of memory");
    if (rc < 0)
        return copy_under(s, base, path, to);
    char rel[PATH_MAX];
    if (snprintf(rel, sizeof(rel), "%s%s", to, path + strlen(base)) >= (int)sizeof(rel))
        rc = kt_fail(s->err, -ENAMETOOLONG, KT_NO_OFFSET, "%s: path too long", path);
    else
        rc = write_file(s, rel, c, n);
    free(c);
    return rc;
}

static int save_modules(struct save *s, const struct kt_audit *a, const char *release)
{
    char **list;
    size_t n;
    char to[PATH_MAX];
    kt_fmt(to, sizeof(to), "%s/%s", kt_sys_path(KT_SYS_MODULES), release);
    int rc = kt_audit_module_list(a, &list, &n);
    if (rc < 0)
        return kt_fail(s->err, rc, KT_NO_OFFSET, "%s: %s", a->path[KT_AUDIT_MODULES],
                       strerror(-rc));
    char dir[PATH_MAX];
    kt_fmt(dir, sizeof(dir), "%s/x", to);
    rc = make_parents(s, dir);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && s->full)
            rc = copy_under(s, a->path[KT_AUDIT_MODULES], list[i], to);
        else if (rc == 0)
            rc = save_module(s, a->path[KT_AUDIT_MODULES], list[i], to);
        free(list[i]);
    }
    free(list);
    return rc;
}

/* Say a part present but not readable in out->not_saved (appended). */
static void not_saved(struct save *s, const char *what, const char *src)
{
    size_t l = strlen(s->out->not_saved);
    kt_fmt(s->out->not_saved + l, sizeof(s->out->not_saved) - l, "%s%s %s: %s", l ? "; " : "",
           what, src, strerror(errno));
}

/* The TCG event log, when the audited system has one: kept if it can be
 * read, else said in out->not_saved (an event log is root's to read). */
static int save_eventlog(struct save *s, const struct kt_audit_opts *o)
{
    char src[PATH_MAX];
    struct stat st;
    const char *root = o->root && *o->root && strcmp(o->root, "/") ? o->root : NULL;
    if (kt_root_resolve(root, EVENTLOG, src, sizeof(src), &st) < 0 || !S_ISREG(st.st_mode))
        return 0;
    if (access(src, R_OK) < 0) {
        not_saved(s, "the TCG event log", src);
        return 0;
    }
    return copy_file(s, src, EVENTLOG);
}

/* The IMA measurement list the audit read and the TPM's PCR files beside
 * it (pcr-ALG/N: PCR 10 for the replay, 0-9 for the boot_aggregate), so
 * that the saved root's audit has its IMA section.  The list is copied as
 * it is when read here, after the audit: a kernel that measured more in
 * between lists more than the PCR values copied after it held. */
static int save_ima(struct save *s, const struct kt_audit *a, const struct kt_audit_opts *o)
{
    char dir[PATH_MAX], src[PATH_MAX], rel[PATH_MAX];
    if (!a->ima.found)
        return 0;
    if (access(a->ima.path, R_OK) < 0) {
        not_saved(s, "the IMA measurement list", a->ima.path);
        return 0;
    }
    int rc = copy_file(s, a->ima.path, kt_sys_path(KT_SYS_IMA_LIST));
    DIR *d = NULL;
    if (rc == 0 && kt_sys_path_under(o->root, KT_SYS_TPM_PCRS, dir, sizeof(dir)) == 0)
        d = opendir(dir);
    struct dirent *de;
    while (rc == 0 && d && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "pcr-", 4) || strchr(de->d_name, '/'))
            continue;
        for (int i = 0; rc == 0 && i < KT_EVLOG_PCRS; i++) {
            kt_fmt(src, sizeof(src), "%s/%s/%d", dir, de->d_name, i);
            kt_fmt(rel, sizeof(rel), "%s/%s/%d", kt_sys_path(KT_SYS_TPM_PCRS), de->d_name, i);
            struct stat st;
            if (stat(src, &st) == 0 && S_ISREG(st.st_mode) && access(src, R_OK) == 0)
                rc = copy_file(s, src, rel);
        }
    }
    if (d)
        closedir(d);
    return rc;
}

/* The sealed secrets: /etc/crypttab and, for each of its volumes, a
 * directory at the volume's path holding each TPM2 token's JSON as
 * token-N.json (what unseal-check and audit read back under --root).
 * Never a key slot, never the header's binary key material: the header
 * itself is not copied. */
static int save_sealed(struct save *s, const struct kt_audit *a, const char *root)
{
    const struct kt_seal_found *f = &a->sealed;
    char src[PATH_MAX], rel[PATH_MAX], dst[PATH_MAX];
    int rc = 0;
    if (!f->n)
        return 0;
    kt_fmt(src, sizeof(src), "%s/etc/crypttab", root ? root : "");
    rc = copy_file(s, src, "/etc/crypttab");
    for (size_t i = 0; rc == 0 && i < f->n; i++) {
        const char *p = f->path[f->src[i]];
        size_t rl = root ? strlen(root) : 0;
        if (rl && !strncmp(p, root, rl))
            p += rl;
        kt_fmt(rel, sizeof(rel), "%s%s/token-%d.json", *p == '/' ? "" : "/", p,
               f->tok[i].token >= 0 ? f->tok[i].token : (int)i);
        rc = make_parents(s, rel);
        kt_fmt(dst, sizeof(dst), "%s%s", s->tmp, rel);
        if (rc == 0)
            rc = kt_file_write_atomic(dst, (const uint8_t *)f->json[i], strlen(f->json[i]), s->err);
        if (rc == 0) {
            s->out->n_files++;
            s->out->bytes += strlen(f->json[i]);
        }
    }
    return rc;
}

/* The audited system's name: ROOT/etc/hostname under --root, this
 * machine's when it is the one audited (no part given by path: offline
 * means offline); "" when unknown.  Only [A-Za-z0-9._-] kept (it goes into
 * JSON). */
static void host_name(const struct kt_audit_opts *o, char *out, size_t cap)
{
    const char *root = o->root && *o->root && strcmp(o->root, "/") ? o->root : NULL;
    char path[PATH_MAX], raw[256] = "";
    struct stat st;
    if (!root) {
        if (!o->efivars && !o->esp && !o->kernel && !o->modules)
            gethostname(raw, sizeof(raw) - 1);
    } else if (kt_root_resolve(root, "/etc/hostname", path, sizeof(path), &st) == 0 &&
               S_ISREG(st.st_mode)) {
        FILE *f = fopen(path, "re");
        if (f && !fgets(raw, sizeof(raw), f))
            raw[0] = 0;
        if (f)
            fclose(f);
    }
    size_t n = 0;
    for (const char *c = raw; *c && *c != '\n' && n + 1 < cap; c++)
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
            *c == '.' || *c == '-' || *c == '_')
            out[n++] = *c;
    out[n] = 0;
}

/* KT_AUDIT_SAVED_META: who saved the root, when, how its modules are kept. */
static int save_meta(struct save *s, const struct kt_audit_opts *o)
{
    char host[256], when[32], text[512];
    time_t now = time(NULL);
    struct tm tm;
    host_name(o, host, sizeof(host));
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    int n = snprintf(text, sizeof(text),
                     "{\"ktrust_version\":\"%s\",\"hostname\":\"%s\",\"time\":\"%s\","
                     "\"modules\":\"%s\"}\n",
                     KT_VERSION_STRING, host, when, s->full ? "whole" : "signature");
    return write_file(s, "/" KT_AUDIT_SAVED_META, text, (size_t)n);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st, (void)f;
    return flag == FTW_DP ? rmdir(p) : unlink(p);
}

int kt_audit_save_root(const struct kt_audit *a, const struct kt_audit_opts *o, const char *dir,
                       struct kt_audit_saved *out, struct kt_error *err)
{
    return kt_audit_save_root_ex(a, o, dir, 0, out, err);
}

int kt_audit_save_root_ex(const struct kt_audit *a, const struct kt_audit_opts *o,
                          const char *dir, unsigned flags, struct kt_audit_saved *out,
                          struct kt_error *err)
{
    memset(out, 0, sizeof(*out));
    int rc = kt_audit_save_check(dir, err);
    if (rc < 0)
        return rc;
    struct save s = {.out = out, .err = err, .buf = malloc(BUF),
                     .full = flags & KT_AUDIT_SAVE_FULL};
    if (!s.buf)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    kt_fmt(s.tmp, sizeof(s.tmp), "%s.tmpXXXXXX", dir);
    if (strlen(dir) + 12 >= sizeof(s.tmp) || !mkdtemp(s.tmp)) {
        int e = strlen(dir) + 12 >= sizeof(s.tmp) ? ENAMETOOLONG : errno;
        free(s.buf);
        return kt_fail(err, -e, KT_NO_OFFSET, "cannot create a directory beside it: %s",
                       strerror(e));
    }
    chmod(s.tmp, 0755);
    const char *release = a->release[0] ? a->release : "unknown";
    if (a->found[KT_AUDIT_EFIVARS])
        rc = save_efivars(&s, a->path[KT_AUDIT_EFIVARS]);
    if (rc == 0 && a->found[KT_AUDIT_ESP])
        rc = save_esp(&s, a);
    if (rc == 0 && a->found[KT_AUDIT_KERNEL]) {
        char rel[PATH_MAX];
        kt_fmt(rel, sizeof(rel), "%s/vmlinuz-%s", kt_sys_path(KT_SYS_BOOT), release);
        rc = copy_file(&s, a->path[KT_AUDIT_KERNEL], rel);
    }
    if (rc == 0 && a->found[KT_AUDIT_MODULES])
        rc = save_modules(&s, a, release);
    if (rc == 0)
        rc = save_eventlog(&s, o);
    if (rc == 0)
        rc = save_ima(&s, a, o);
    if (rc == 0)
        rc = save_sealed(&s, a, o->root && *o->root && strcmp(o->root, "/") ? o->root : NULL);
    if (rc == 0)
        rc = save_meta(&s, o);
    /* into place: onto a new name, or over the empty directory checked above */
    if (rc == 0 && rename(s.tmp, dir) < 0)
        rc = kt_fail(err, -errno, KT_NO_OFFSET, "cannot rename %s into place: %s", s.tmp,
                     strerror(errno));
    if (rc < 0) {
        nftw(s.tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        out->n_files = 0;
        out->bytes = 0;
    }
    free(s.buf);
    return rc;
}
