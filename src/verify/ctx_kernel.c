/* ctx_kernel.c - --kernel VMLINUZ: the image's compiled-in keys into the
 * context's builtin keyring, through the store's kernel-key cache, either
 * now or on a thread of its own while the caller starts reading files.
 *
 * Background rules: the thread is the only one that touches the keyrings
 * until it is done; kt_ctx_keys_ready / kt_ctx_wait_keys (under bg->mu)
 * publish its work to the threads that verify. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "kimage/kimage.h"
#include "verify/verify_int.h"

struct kt_ctx_bg {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t done_cv;
    bool done;
    int rc;
    struct kt_error err;
    struct kt_ctx *ctx;
    struct kt_ctx_opts o; /* a copy: the caller's may be gone (no trust list) */
    char *kernel, *cache;
};

/* in_store: the store's cache, else the cache directory's */
static void say_how(const struct kt_ctx_opts *o, enum kt_kcache how, bool in_store)
{
    static const char *const said[2][4] = {
        /* KT_KCACHE_NONE, _HIT, _SAVED, _NOT_SAVED */
        {"decoded", "from the kernel-key cache (same SHA-256)", "decoded, and cached",
         "decoded (the kernel-key cache could not keep them)"},
        {"decoded", "from the store's cache (same SHA-256)", "decoded, and cached in the store",
         "decoded (the store could not cache them)"},
    };
    kt_ctx_say(o, KT_CTX_MSG_INFO, "%s %s: builtin keys %s", kt_hint_or(KT_HINT_NAME_KERNEL, "kernel"),
               o->kernel, said[in_store][how]);
}

/* With later (the background thread), the cache is written after the keys
 * are published: *later, saved by the caller (then it says how it went). */
static int add_kernel(struct kt_ctx *ctx, const struct kt_ctx_opts *o,
                      struct kt_kcache_save **later, struct kt_error *err)
{
    const char *path = o->kernel;
    struct kt_file f;
    int rc = kt_file_open(path, &f, err);
    const char *name = kt_hint_or(KT_HINT_NAME_KERNEL, "kernel");
    if (rc < 0)
        return kt_ctx_option_error(rc, name, path, NULL, 0, NULL, err);
#ifdef KT_TEST_HOOKS
    /* test builds only: the Ctrl-C of a user who will not wait for the
     * decode, landing while the keys are not in (scan_interrupt) */
    const char *sig = getenv("KTRUST_TEST_DECODE_SIGNAL");
    if (sig && *sig)
        raise(strcmp(sig, "TERM") ? SIGINT : SIGTERM);
#endif
    kt_kimage_build_of(f.data, f.len, &ctx->build);
    ctx->linux_version = ctx->build.linux_version;
    enum kt_kcache how;
    struct kt_store *cache = ctx->mode == KT_CTX_STORE_READ ? ctx->store : NULL;
    if (cache)
        rc = kt_store_add_kernel_keys(cache, ctx->rings, f.data, f.len, path, true, NULL, &how,
                                      later, err);
    else
        rc = kt_kcache_add_kernel_keys(o->kernel_cache, ctx->rings, f.data, f.len, path, true,
                                       NULL, &how, err);
    if (rc == 0 && !(later && *later))
        say_how(o, how, cache != NULL);
    if (rc < 0) {
        /* kernels come as PE, bzImage, ELF or bare compressed streams: only
         * name the kinds that are surely something else */
        const char *kind = NULL;
        switch (kt_detect(f.data, f.len, path)) {
        case KT_FT_EMPTY: kind = "an empty file"; break;
        case KT_FT_MODULE: kind = "a kernel module"; break;
        case KT_FT_PKCS7: kind = "a PKCS#7 message"; break;
        case KT_FT_X509: kind = "a certificate"; break;
        case KT_FT_ESL: kind = "an EFI signature list"; break;
        default: break;
        }
        if (kind)
            rc = kt_fail_over(err, -EMEDIUMTYPE, KT_NO_OFFSET,
                              "%s %s: %s, not a kernel image", name, path, kind);
        else
            rc = kt_ctx_option_error(rc, name, path, NULL, 0, NULL, err);
    }
    kt_file_close(&f);
    return rc;
}

int kt_ctx_add_kernel(struct kt_ctx *ctx, const struct kt_ctx_opts *o, struct kt_error *err)
{
    return add_kernel(ctx, o, NULL, err);
}

static void *bg_main(void *arg)
{
    struct kt_ctx_bg *bg = arg;
    struct kt_error e = KT_ERROR_INIT;
    struct kt_kcache_save *later = NULL;
    int rc = add_kernel(bg->ctx, &bg->o, &later, &e);
    pthread_mutex_lock(&bg->mu);
    bg->rc = rc;
    bg->err = e;
    bg->done = true;
    pthread_cond_broadcast(&bg->done_cv);
    pthread_mutex_unlock(&bg->mu);
    /* the keys are in use now; the store's copy is written meanwhile (on its
     * own connection: the verifying threads never touch the store) */
    if (later)
        say_how(&bg->o, kt_store_kcache_save(later) == 0 ? KT_KCACHE_SAVED : KT_KCACHE_NOT_SAVED,
                true);
    return NULL;
}

static void bg_free(struct kt_ctx_bg *bg)
{
    pthread_mutex_destroy(&bg->mu);
    pthread_cond_destroy(&bg->done_cv);
    free(bg->kernel);
    free(bg->cache);
    free(bg);
}

int kt_ctx_start_kernel(struct kt_ctx *ctx, const struct kt_ctx_opts *o, struct kt_error *err)
{
    struct kt_ctx_bg *bg = calloc(1, sizeof(*bg));
    if (!bg || !(bg->kernel = strdup(o->kernel)) ||
        (o->kernel_cache && !(bg->cache = strdup(o->kernel_cache)))) {
        if (bg)
            free(bg->kernel);
        free(bg);
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    }
    pthread_mutex_init(&bg->mu, NULL);
    pthread_cond_init(&bg->done_cv, NULL);
    bg->ctx = ctx;
    bg->o = (struct kt_ctx_opts){.kernel = bg->kernel, .kernel_cache = bg->cache, .msg = o->msg,
                                 .msg_arg = o->msg_arg};
    if (pthread_create(&bg->thread, NULL, bg_main, bg) != 0) {
        bg_free(bg);
        return kt_ctx_add_kernel(ctx, o, err); /* no thread: now, then */
    }
    ctx->bg = bg;
    return 0;
}

bool kt_ctx_keys_ready(const struct kt_ctx *ctx)
{
    struct kt_ctx_bg *bg = ctx->bg;
    if (!bg)
        return true;
    pthread_mutex_lock(&bg->mu);
    bool done = bg->done;
    pthread_mutex_unlock(&bg->mu);
    return done;
}

int kt_ctx_wait_keys(const struct kt_ctx *ctx, struct kt_error *err)
{
    struct kt_ctx_bg *bg = ctx->bg;
    if (!bg)
        return 0;
    pthread_mutex_lock(&bg->mu);
    while (!bg->done)
        pthread_cond_wait(&bg->done_cv, &bg->mu);
    int rc = bg->rc;
    if (rc < 0 && err && !err->code)
        *err = bg->err;
    pthread_mutex_unlock(&bg->mu);
    return rc;
}

/* kt_ctx_free: join the thread (after kt_ctx_wait_keys it has finished). */
void kt_ctx_end_kernel(struct kt_ctx *ctx)
{
    struct kt_ctx_bg *bg = ctx->bg;
    if (!bg)
        return;
    kt_ctx_wait_keys(ctx, NULL);
    pthread_join(bg->thread, NULL);
    bg_free(bg);
    ctx->bg = NULL;
}
