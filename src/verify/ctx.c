/* ctx.c - the verification context: the store's keyrings plus the run-only
 * keys (--trust, --kernel) and vouchers (--keyring NAME) of one run, and a
 * writer's transaction. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/load.h"
#include "verify/verify_int.h"
#include "x509/x509.h"

static size_t key_count(const struct kt_keyrings *k)
{
    size_t n = 0;
    for (size_t i = 0; i < kt_keyrings_count(k); i++)
        n += kt_keyring_count(kt_keyrings_at((struct kt_keyrings *)k, i));
    return n;
}

/* Mark keys [from, count) of r ephemeral: a store save never writes them. */
static void mark_run_only(struct kt_keyring *r, size_t from)
{
    for (size_t i = from; i < kt_keyring_count(r); i++)
        kt_key_set_ephemeral(kt_keyring_key(r, i), true);
}

int kt_ctx_add_key_file(struct kt_keyrings *k, struct kt_keyring *r, const char *path,
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

/* One certificate of a --trust bundle the strict parser refuses: skipped. */
struct skip_ctx {
    const struct kt_ctx_opts *o;
    const char *opt, *path;
};

static void skip_warn(void *ctx, size_t index, const uint8_t *der, size_t len,
                      const struct kt_error *why)
{
    struct skip_ctx *s = ctx;
    char subject[512];
    kt_x509_peek_subject(der, len, subject, sizeof(subject));
    kt_ctx_say(s->o, KT_CTX_MSG_WARNING, "warning: %s %s: certificate %zu (%s) skipped: %s",
               s->opt, s->path, index, subject,
               why->what[0] ? why->what : "refused");
}

static int add_trust(struct kt_keyrings *k, const struct kt_ctx_opts *o,
                     const struct kt_ctx_trust *t, struct kt_error *err)
{
    struct kt_keyring *builtin = kt_keyrings_get(k, "builtin");
    const char *opt = t->option ? t->option : kt_hint_or(KT_HINT_NAME_TRUST, "trust file");
    struct kt_file f;
    int rc = kt_file_open(t->path, &f, err);
    if (rc < 0)
        return kt_ctx_option_error(rc, opt, t->path, NULL, 0, NULL, err);
    char src[4096];
    snprintf(src, sizeof(src), "file:%s", t->path);
    size_t before = kt_keyring_count(builtin);
    struct skip_ctx sc = {o, opt, t->path};
    rc = kt_keyrings_add_blob_skip(k, builtin, f.data, f.len, src, KT_ADD_EXPLICIT, NULL,
                                   skip_warn, &sc, err);
    mark_run_only(builtin, before);
    if (rc < 0)
        rc = kt_ctx_option_error(rc, opt, t->path, f.data, f.len,
                          "certificates or an EFI signature list", err);
    kt_file_close(&f);
    return rc;
}

/* The run-only keys; with later, --kernel is left to kt_ctx_start_kernel
 * (kt_ctx_open: a reader may decode it in the background, started once
 * everything else is in place). */
static int add_run_keys(struct kt_ctx *ctx, const struct kt_ctx_opts *o, bool later,
                        struct kt_error *err)
{
    int rc;
    for (size_t i = 0; i < o->n_trust; i++)
        if ((rc = add_trust(ctx->rings, o, &o->trust[i], err)) < 0)
            return rc;
    if (o->kernel && !later && (rc = kt_ctx_add_kernel(ctx, o, err)) < 0)
        return rc;
    return 0;
}

int kt_ctx_add_run_keys(struct kt_ctx *ctx, const struct kt_ctx_opts *o, struct kt_error *err)
{
    return add_run_keys(ctx, o, false, err);
}

/* --keyring NAME: let each named keyring vouch for every purpose this run. */
static int name_vouchers(struct kt_ctx *ctx, const struct kt_ctx_opts *o, struct kt_error *err)
{
    for (size_t i = 0; i < o->n_vouch; i++) {
        struct kt_keyring *r = kt_keyrings_get(ctx->rings, o->vouch[i]);
        if (!r)
            return kt_fail(err, -ESRCH, KT_NO_OFFSET,
                           "%s %s: no such keyring in the store%s",
                           kt_hint_or(KT_HINT_NAME_KEYRING, "keyring"), o->vouch[i],
                           kt_hint_text(KT_HINT_NO_KEYRING));
        if (kt_keyring_set_run_voucher(r, true) < 0)
            return kt_fail(err, -ESRCH, KT_NO_OFFSET,
                           "%s %s: the blacklist revokes, it never vouches",
                           kt_hint_or(KT_HINT_NAME_KEYRING, "keyring"), o->vouch[i]);
    }
    return 0;
}

static int open_read(struct kt_ctx *ctx, const struct kt_ctx_opts *o, const char **err_file,
                     struct kt_error *err)
{
    const char *path = ctx->store_path;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_store_open(path, KT_STORE_READ, &ctx->store, &e);
    if (rc == 0 && (rc = kt_store_load(ctx->store, ctx->rings, &e)) < 0) {
        kt_store_close(ctx->store);
        ctx->store = NULL;
    }
    if (rc == -ENOENT && o->store_may_be_missing) {
        kt_ctx_say(o, KT_CTX_MSG_STORE, "store: %s (does not exist: empty keyrings)", path);
        return 0;
    }
    if (rc == -ENOENT && o->missing_store_hint_keyring)
        return kt_fail(err, rc, KT_NO_OFFSET, "no store at %s%s", path,
                       kt_hint_text(KT_HINT_NO_STORE_KEYRING));
    if (rc == -ENOENT)
        return kt_fail(err, rc, KT_NO_OFFSET, "no store at %s%s", path,
                       kt_hint_text(KT_HINT_NO_STORE));
    if (rc < 0) {
        if (err_file)
            *err_file = o->store_path; /* the caller's: ctx is freed on failure */
        return kt_fail(err, rc, e.offset, "%s", e.what);
    }
    size_t n = key_count(ctx->rings);
    kt_ctx_say(o, KT_CTX_MSG_STORE, "store: %s (read, %zu key%s)", path, n, n == 1 ? "" : "s");
    return 0;
}

/* Open the writer's store and take the write lock. */
static int open_write_store(struct kt_ctx *ctx, struct kt_error *err)
{
    int rc;
    if (ctx->make_dirs && (rc = kt_store_mkdir_parents(ctx->store_path, err)) < 0)
        return rc;
    if ((rc = kt_store_open(ctx->store_path, KT_STORE_WRITE, &ctx->store, err)) < 0 ||
        (rc = kt_store_begin_write(ctx->store, err)) < 0) {
        kt_store_close(ctx->store);
        ctx->store = NULL;
    }
    return rc;
}

static int open_write(struct kt_ctx *ctx, const struct kt_ctx_opts *o, const char **err_file,
                      struct kt_error *err)
{
    struct stat sb;
    int rc;
    if (o->store_may_be_missing && stat(ctx->store_path, &sb) < 0 && errno == ENOENT) {
        /* made later, only if keys are added: but checked now */
        if ((rc = kt_store_check_creatable(ctx->store_path, ctx->make_dirs, err)) < 0) {
            if (err_file)
                *err_file = o->store_path;
            return rc;
        }
        kt_ctx_say(o, KT_CTX_MSG_STORE, "store: %s (does not exist yet: created only if keys are added)",
            ctx->store_path);
        return 0;
    }
    if ((rc = open_write_store(ctx, err)) < 0 ||
        (rc = kt_store_load(ctx->store, ctx->rings, err)) < 0) {
        if (err_file)
            *err_file = o->store_path;
        return rc;
    }
    if (o->store_count_keys) {
        size_t n = key_count(ctx->rings);
        kt_ctx_say(o, KT_CTX_MSG_STORE, "store: %s (writing, %zu key%s)", ctx->store_path, n,
            n == 1 ? "" : "s");
    } else {
        kt_ctx_say(o, KT_CTX_MSG_STORE, "store: %s (writing)", ctx->store_path);
    }
    return 0;
}

int kt_ctx_open(const struct kt_ctx_opts *o, struct kt_ctx **out, const char **err_file,
                struct kt_error *err)
{
    return kt_ctx_open_bg(o, false, out, err_file, err);
}

int kt_ctx_open_bg(const struct kt_ctx_opts *o, bool kernel_in_background, struct kt_ctx **out,
                   const char **err_file, struct kt_error *err)
{
    int rc;
    *out = NULL;
    if (err_file)
        *err_file = NULL;
    struct kt_ctx *ctx = calloc(1, sizeof(*ctx));
    if (!ctx || kt_keyrings_new(&ctx->rings) < 0) {
        free(ctx);
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    }
    ctx->mode = o->store_mode;
    ctx->make_dirs = o->store_make_dirs;
    if (o->store_mode != KT_CTX_STORE_NONE) {
        if (!o->store_path) {
            rc = kt_fail(err, -EINVAL, KT_NO_OFFSET, "no store path given");
            goto fail;
        }
        if (!(ctx->store_path = strdup(o->store_path))) {
            rc = kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
            goto fail;
        }
    }
    switch (o->store_mode) {
    case KT_CTX_STORE_NONE:
        kt_ctx_say(o, KT_CTX_MSG_STORE, "store: none%s", kt_hint_text(KT_HINT_STORE_NONE));
        rc = 0;
        break;
    case KT_CTX_STORE_READ: rc = open_read(ctx, o, err_file, err); break;
    case KT_CTX_STORE_WRITE: rc = open_write(ctx, o, err_file, err); break;
    default: rc = kt_fail(err, -EINVAL, KT_NO_OFFSET, "bad store mode"); break;
    }
    bool bg = o->kernel && kernel_in_background && ctx->mode != KT_CTX_STORE_WRITE;
    if (rc < 0 || (rc = add_run_keys(ctx, o, bg, err)) < 0 ||
        (rc = name_vouchers(ctx, o, err)) < 0 || (bg && (rc = kt_ctx_start_kernel(ctx, o, err)) < 0))
        goto fail;
    *out = ctx;
    return 0;
fail:
    kt_ctx_free(ctx);
    return rc;
}

int kt_ctx_commit(struct kt_ctx *ctx, struct kt_error *err)
{
    int rc;
    if (ctx->mode != KT_CTX_STORE_WRITE)
        return kt_fail(err, -EINVAL, KT_NO_OFFSET, "the context does not write its store");
    if (!ctx->store && (rc = open_write_store(ctx, err)) < 0)
        return rc; /* the store did not exist: made now that it is wanted */
    if ((rc = kt_store_save(ctx->store, ctx->rings, err)) < 0) {
        kt_store_rollback(ctx->store);
        return rc;
    }
    if ((rc = kt_store_commit(ctx->store, err)) == 0)
        ctx->committed = true;
    return rc; /* a failed commit is rolled back when the store closes */
}

void kt_ctx_rollback(struct kt_ctx *ctx)
{
    if (ctx && ctx->store && ctx->mode == KT_CTX_STORE_WRITE && !ctx->committed)
        kt_store_rollback(ctx->store);
}

void kt_ctx_free(struct kt_ctx *ctx)
{
    if (!ctx)
        return;
    kt_ctx_end_kernel(ctx); /* the background decode uses the keyrings */
    kt_store_close(ctx->store); /* rolls back anything not committed */
    kt_keyrings_free(ctx->rings);
    free(ctx->store_path);
    free(ctx);
}

const char *kt_ctx_store_path(const struct kt_ctx *ctx) { return ctx->store_path; }
bool kt_ctx_has_store(const struct kt_ctx *ctx) { return ctx->store != NULL; }
struct kt_keyrings *kt_ctx_keyrings(struct kt_ctx *ctx) { return ctx->rings; }
const struct kt_keyrings *kt_ctx_keyrings_const(const struct kt_ctx *ctx) { return ctx->rings; }
