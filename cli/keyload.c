/* keyload.c - the shared keyring loading of verifying commands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "keyload.h"
#include "scan/detect.h"
#include "util/file.h"
#include "x509/x509.h"

/* Mark keys [from, count) of r ephemeral. */
static void mark_run_only(struct kt_keyring *r, size_t from)
{
    for (size_t i = from; i < kt_keyring_count(r); i++)
        kt_key_set_ephemeral(kt_keyring_key(r, i), true);
}

int cli_add_key_file(struct kt_keyrings *k, struct kt_keyring *r, const char *path,
                     enum kt_add_how how, bool run_only, size_t *n_added, struct kt_error *err)
{
    struct kt_file f;
    int rc = kt_file_open(path, &f, err);
    if (rc < 0)
        return rc;
    char src[4096];
    snprintf(src, sizeof(src), "file:%s", path);
    size_t before = kt_keyring_count(r);
    rc = kt_keyrings_add_blob(k, r, f.data, f.len, src, how, n_added, err);
    if (run_only)
        mark_run_only(r, before);
    kt_file_close(&f);
    return rc;
}

const char *cli_wrong_kind(const uint8_t *p, size_t n, const char *name)
{
    switch (kt_detect(p, n, name)) {
    case KT_FT_EMPTY: return "an empty file";
    case KT_FT_PE: return "a PE image";
    case KT_FT_MODULE: return "a kernel module";
    case KT_FT_PKCS7: return "a PKCS#7 message";
    case KT_FT_KERNEL: return "a kernel image without a builtin key list";
    case KT_FT_ESL: return NULL; /* the right kind, but broken: its own error */
    case KT_FT_X509:
        if (p[0] == 0x30 || !memchr(p, 0, n < 4096 ? n : 4096))
            return NULL; /* DER or PEM text */
        break;
    default: break;
    }
    if (n >= 4 && !memcmp(p, "\x7f" "ELF", 4))
        return "an ELF file";
    /* binary, and not DER: a PEM "BEGIN" inside it is an accident */
    if (n && p[0] != 0x30 && memchr(p, 0, n < 4096 ? n : 4096))
        return "a binary file of another kind";
    return NULL;
}

/* Errors in an option's file: an unreadable one stays 66; the wrong kind of
 * file is a usage error (64, EMEDIUMTYPE); anything else wrong with its
 * content is malformed (4) -- never 1, 2 or 6, which are verdicts about the
 * inputs. */
static int option_error(int rc, const char *opt, const char *path, const uint8_t *p, size_t n,
                        const char *want, struct kt_error *err)
{
    static char label[4200];
    struct kt_error e = *err;
    snprintf(label, sizeof(label), "%s %s", opt, path);
    const char *kind = p ? cli_wrong_kind(p, n, path) : NULL;
    if (kind)
        return kt_fail_over(err, -EMEDIUMTYPE, KT_NO_OFFSET, "%s: %s, not %s", label, kind, want);
    enum kt_verdict v = kt_verdict_of(rc);
    if (cli_exit_code(rc) == EXIT_NOINPUT || rc == -ENOMEM || v == KT_UNSUPPORTED ||
        v == KT_REJECTED || v == KT_MALFORMED)
        return kt_fail_over(err, rc, e.offset, "%s: %s", label, e.what);
    return kt_fail_over(err, -EBADMSG, e.offset, "%s: %s", label, e.what);
}

struct skip_ctx {
    const char *path;
    bool quiet;
};

/* One certificate of a --trust bundle the strict parser refuses: skipped. */
static void skip_warn(void *ctx, size_t index, const uint8_t *der, size_t len,
                      const struct kt_error *why)
{
    struct skip_ctx *s = ctx;
    char subject[512];
    if (s->quiet)
        return;
    kt_x509_peek_subject(der, len, subject, sizeof(subject));
    fprintf(stderr, "ktrust: warning: --trust %s: certificate %zu (%s) skipped: %s\n", s->path,
            index, subject, why->what[0] ? why->what : "refused");
}

int cli_add_run_keys(const struct cli_common *co, struct kt_keyrings *k, struct kt_store *store,
                     struct kt_error *err)
{
    int rc;
    struct kt_keyring *builtin = kt_keyrings_get(k, "builtin");
    for (size_t i = 0; i < co->n_trust; i++) {
        const char *path = co->trust[i];
        const char *opt = path == cli_system_bundle ? "--trust-system" : "--trust";
        struct kt_file f;
        if ((rc = kt_file_open(path, &f, err)) < 0)
            return option_error(rc, opt, path, NULL, 0, NULL, err);
        char src[4096];
        snprintf(src, sizeof(src), "file:%s", path);
        size_t before = kt_keyring_count(builtin);
        struct skip_ctx sc = {path, co->quiet};
        rc = kt_keyrings_add_blob_skip(k, builtin, f.data, f.len, src, KT_ADD_EXPLICIT, NULL,
                                       skip_warn, &sc, err);
        mark_run_only(builtin, before);
        if (rc < 0)
            rc = option_error(rc, opt, path, f.data, f.len,
                              "certificates or an EFI signature list", err);
        kt_file_close(&f);
        if (rc < 0)
            return rc;
    }
    if (co->kernel) {
        struct kt_file f;
        if ((rc = kt_file_open(co->kernel, &f, err)) < 0)
            return option_error(rc, "--kernel", co->kernel, NULL, 0, NULL, err);
        enum kt_kcache how;
        rc = kt_store_add_kernel_keys(store, k, f.data, f.len, co->kernel, true, NULL, &how, err);
        if (rc == 0 && co->verbose)
            fprintf(stderr, "ktrust: --kernel %s: builtin keys %s\n", co->kernel,
                    how == KT_KCACHE_HIT     ? "from the store's cache (same SHA-256)"
                    : how == KT_KCACHE_SAVED ? "decoded, and cached in the store"
                    : how == KT_KCACHE_NOT_SAVED ? "decoded (the store could not cache them)"
                                                 : "decoded");
        if (rc < 0) {
            /* kernels come as PE, bzImage, ELF or bare compressed streams:
             * only name the kinds that are surely something else */
            const char *kind = NULL;
            switch (kt_detect(f.data, f.len, co->kernel)) {
            case KT_FT_EMPTY: kind = "an empty file"; break;
            case KT_FT_MODULE: kind = "a kernel module"; break;
            case KT_FT_PKCS7: kind = "a PKCS#7 message"; break;
            case KT_FT_X509: kind = "a certificate"; break;
            case KT_FT_ESL: kind = "an EFI signature list"; break;
            default: break;
            }
            if (kind)
                rc = kt_fail_over(err, -EMEDIUMTYPE, KT_NO_OFFSET,
                                  "--kernel %s: %s, not a kernel image", co->kernel, kind);
            else
                rc = option_error(rc, "--kernel", co->kernel, NULL, 0, NULL, err);
        }
        kt_file_close(&f);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* --keyring NAME: let each named keyring vouch for every purpose this run. */
static int name_vouchers(const struct cli_common *co, struct kt_keyrings *k, struct kt_error *err)
{
    for (size_t i = 0; i < co->n_vouch; i++) {
        struct kt_keyring *r = kt_keyrings_get(k, co->vouch[i]);
        if (!r)
            return kt_fail(err, -ESRCH, KT_NO_OFFSET,
                           "--keyring %s: no such keyring in the store (see keyring list)",
                           co->vouch[i]);
        if (kt_keyring_set_run_voucher(r, true) < 0)
            return kt_fail(err, -ESRCH, KT_NO_OFFSET,
                           "--keyring %s: the blacklist revokes, it never vouches", co->vouch[i]);
    }
    return 0;
}

/* -v: which store a command reads or writes. */
static void say_store(const struct cli_common *co, const char *what, const char *path,
                      const struct kt_keyrings *k)
{
    if (!co->verbose)
        return;
    if (!path) {
        fprintf(stderr, "ktrust: store: none (--trust/--kernel keys only; --store PATH adds one)\n");
        return;
    }
    size_t n = 0;
    for (size_t i = 0; k && i < kt_keyrings_count(k); i++)
        n += kt_keyring_count(kt_keyrings_at((struct kt_keyrings *)k, i));
    if (k)
        fprintf(stderr, "ktrust: store: %s (%s, %zu key%s)\n", path, what, n, n == 1 ? "" : "s");
    else
        fprintf(stderr, "ktrust: store: %s (%s)\n", path, what);
}

int cli_load_keyrings(const struct cli_common *co, struct kt_keyrings **rings,
                      struct kt_store **store, struct kt_error *err, const char **bad_file)
{
    struct kt_keyrings *k = NULL;
    struct kt_store *s = NULL;
    static char buf[4096]; /* *bad_file may point here */
    int rc;
    *rings = NULL;
    if (store)
        *store = NULL;
    *bad_file = NULL;
    if (kt_keyrings_new(&k) < 0)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");

    const char *path = cli_store_path(co, buf, sizeof(buf));
    if (path) {
        struct kt_error e = {0};
        e.offset = KT_NO_OFFSET;
        rc = kt_store_open(path, KT_STORE_READ, &s, &e);
        if (rc == -ENOENT && cli_store_is_default(co)) {
            s = NULL; /* no default store yet: empty keyrings */
            say_store(co, "does not exist: empty keyrings", path, NULL);
        } else if (rc == -ENOENT) {
            kt_fail(err, rc, KT_NO_OFFSET,
                    "no store at %s (--store and $KTRUST_STORE name an existing store; "
                    "'ktrust keyring add' makes one)", path);
            goto fail;
        } else if (rc < 0) {
            *bad_file = path;
            kt_fail(err, rc, e.offset, "%s", e.what);
            goto fail;
        } else if ((rc = kt_store_load(s, k, err)) < 0) {
            *bad_file = path;
            goto fail;
        } else {
            say_store(co, "read", path, k);
        }
    } else {
        say_store(co, NULL, NULL, NULL);
    }
    if ((rc = cli_add_run_keys(co, k, s, err)) < 0 || (rc = name_vouchers(co, k, err)) < 0)
        goto fail;
    *rings = k;
    if (store)
        *store = s;
    else
        kt_store_close(s);
    return 0;
fail:
    kt_store_close(s);
    kt_keyrings_free(k);
    return rc;
}

int cli_open_store_write(const struct cli_common *co, const char *path, struct kt_store **s,
                         struct kt_error *err)
{
    int rc;
    *s = NULL;
    if (cli_store_is_default(co) && (rc = kt_store_mkdir_parents(path, err)) < 0)
        return rc;
    if ((rc = kt_store_open(path, KT_STORE_WRITE, s, err)) < 0 ||
        (rc = kt_store_begin_write(*s, err)) < 0) {
        kt_store_close(*s);
        *s = NULL;
    }
    return rc;
}

const char *cli_write_store_path(const struct cli_common *co, char *buf, size_t cap)
{
    struct cli_common c = *co;
    c.n_trust = 0;
    c.kernel = NULL;
    return cli_store_path(&c, buf, cap);
}

int cli_open_keyrings_for_write(const struct cli_common *co, struct kt_keyrings **rings,
                                struct kt_store **store, struct kt_error *err,
                                const char **bad_file)
{
    static char buf[4096]; /* *bad_file may point here */
    const char *path = cli_write_store_path(co, buf, sizeof(buf));
    struct kt_keyrings *k = NULL;
    struct kt_store *s = NULL;
    struct stat sb;
    int rc;
    *bad_file = path;
    *store = NULL;
    if (kt_keyrings_new(&k) < 0)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    if (stat(path, &sb) < 0 && errno == ENOENT) {
        /* no store yet: it is created only when there is something to store */
        say_store(co, "does not exist yet: created only if keys are added", path, NULL);
    } else {
        if ((rc = cli_open_store_write(co, path, &s, err)) < 0 ||
            (rc = kt_store_load(s, k, err)) < 0)
            goto fail;
        say_store(co, "writing", path, k);
    }
    *bad_file = NULL;
    if ((rc = cli_add_run_keys(co, k, s, err)) < 0)
        goto fail;
    *rings = k;
    *store = s;
    return 0;
fail:
    kt_store_close(s);
    kt_keyrings_free(k);
    return rc;
}
