/* scan_verify.c - kt_scan_verify (ktrust/scan.h): the pool's files verified
 * through the verdict engine, each detected once, handed on in walk order;
 * and --kernel decoded in the background while the first files are read. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scan/ordered.h"
#include "scan/scan.h"
#include "verify/verify_int.h"

_Static_assert(KT_FT_KERNEL - KT_FT_PE + 1 == KT_SCAN_N_TYPES, "the types scan counts");

/* A module prepared before the keys were there. */
struct later {
    uint64_t seq;
    char *path;
    size_t len;
    struct kt_result *r;
};
#define LATER_MAX 3072 /* then a worker waits for the keys instead: 2.7 KiB each
                        * (struct kt_result), 8 MiB at most beside the decode */

struct sv {
    const struct kt_ctx *ctx;
    const struct kt_scan_opts *o;
    const struct kt_policy *policy;
    struct kt_scan_stats *st;
    pthread_mutex_t mu;   /* the ordered results and the counts */
    struct kt_ordered out;
    /* --kernel decoded in the background: modules read meanwhile wait here,
     * prepared (digested, no key needed), for their signature checks */
    pthread_mutex_t later_mu;
    struct later *later;
    size_t n_later, cap_later;
    unsigned preparing, max_preparing; /* workers digesting meanwhile: one core
                                        * is left to the decode */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *kt_scan_type_name(unsigned i)
{
    return i < KT_SCAN_N_TYPES ? kt_ftype_name((enum kt_ftype)(KT_FT_PE + i)) : NULL;
}

/* In walk order (under s->mu): count the item, hand it to the caller. */
static void emit(void *arg, const struct kt_ordered_item *it)
{
    struct sv *s = arg;
    struct kt_scan_stats *st = s->st;
    st->files++;
    st->all_bytes += it->len;
    if (it->unreadable) {
        st->unreadable++;
    } else if (it->skipped) {
        st->skipped++;
    } else {
        st->bytes += it->len;
        if (it->type >= 0)
            st->types[it->type]++;
        enum kt_verdict v = kt_verdict_of(it->rc);
        st->verdicts[v > KT_REFUSED ? KT_REFUSED + 1 : v]++;
    }
    if (s->o->deliver) {
        struct kt_scan_done d = {.rc = it->rc, .unreadable = it->unreadable,
                                 .skipped = it->skipped, .text = it->buf, .len = it->n,
                                 .stats = st};
        s->o->deliver(s->o->arg, &d);
    }
}

/* One item: rendered here (a worker), queued for its turn; r is freed. */
static void finish_item(struct sv *s, uint64_t seq, const char *path, int rc,
                        const struct kt_error *err, struct kt_result *r, enum kt_ftype t,
                        size_t len, bool unreadable)
{
    struct kt_ordered_item it = {.rc = rc, .unreadable = unreadable,
                                 .skipped = r && r->skipped, .len = len, .type = -1};
    if (t >= KT_FT_PE && t <= KT_FT_KERNEL)
        it.type = (int)(t - KT_FT_PE);
    if (s->o->render) {
        FILE *out = open_memstream(&it.buf, &it.n);
        if (!out) {
            kt_result_free(r);
            return;
        }
        struct kt_scan_file f = {.path = path, .rc = rc, .err = r ? &r->err : err, .result = r,
                                 .unreadable = unreadable};
        s->o->render(s->o->arg, &f, out);
        fclose(out);
    }
    kt_result_free(r);
    pthread_mutex_lock(&s->mu);
    kt_ordered_put(&s->out, seq, &it); /* takes it.buf */
    pthread_mutex_unlock(&s->mu);
}

/* Check one prepared module now that the keys are there. */
static void finish_later(struct sv *s, struct later *l)
{
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_verify_finish(s->ctx, l->r, &e);
    finish_item(s, l->seq, l->path, rc, &e, l->r, KT_FT_MODULE, l->len, false);
    free(l->path);
}

/* Take up to max prepared modules and finish them; false when none was left. */
static bool drain_later(struct sv *s, size_t max)
{
    struct later batch[16];
    if (max > 16)
        max = 16;
    pthread_mutex_lock(&s->later_mu);
    size_t k = 0;
    while (k < max && s->n_later)
        batch[k++] = s->later[--s->n_later];
    pthread_mutex_unlock(&s->later_mu);
    for (size_t i = 0; i < k; i++)
        finish_later(s, &batch[i]);
    return k > 0;
}

/* Before the keys: keep a module, prepared; true when it was kept. */
static bool keep_for_later(struct sv *s, const struct kt_pool_item *it, enum kt_ftype t)
{
    pthread_mutex_lock(&s->later_mu);
    bool go = s->preparing < s->max_preparing && s->n_later < LATER_MAX;
    if (go)
        s->preparing++;
    pthread_mutex_unlock(&s->later_mu);
    if (!go)
        return false; /* this worker waits for the keys instead */
    struct kt_result *r = NULL;
    int pr = kt_verify_prepare(it->buf, it->len, s->policy, t, &r);
    bool kept = false;
    pthread_mutex_lock(&s->later_mu);
    s->preparing--;
    if (pr != 1) {
        pthread_mutex_unlock(&s->later_mu);
        return false;
    }
    if (s->n_later == s->cap_later && s->cap_later < LATER_MAX) {
        size_t cap = s->cap_later ? s->cap_later * 2 : 64;
        struct later *nl = realloc(s->later, cap * sizeof(*nl));
        if (nl) {
            s->later = nl;
            s->cap_later = cap;
        }
    }
    char *path = s->n_later < s->cap_later ? strdup(it->path) : NULL;
    if (path) {
        s->later[s->n_later++] = (struct later){it->seq, path, it->len, r};
        kept = true;
    }
    pthread_mutex_unlock(&s->later_mu);
    if (!kept)
        kt_result_free(r); /* full: verified the usual way once the keys are in */
    return kept;
}

/* The keys, waited for; false when the decode failed (then nothing more is
 * handed on: the scan ends with the setup error). */
static bool keys_in(struct sv *s) { return kt_ctx_wait_keys(s->ctx, NULL) == 0; }

static void on_file(void *arg, const struct kt_pool_item *it)
{
    struct sv *s = arg;
    enum kt_ftype t = KT_FT_UNKNOWN;
    if (it->rc == 0)
        t = kt_policy_ftype(s->policy, it->path, it->buf, it->len);
    if (it->rc == 0 && !kt_ctx_keys_ready(s->ctx) && keep_for_later(s, it, t))
        return;
    if (!keys_in(s))
        return;
    drain_later(s, 4); /* prepared modules first: their turn comes earlier */
    if (it->rc < 0) {
        finish_item(s, it->seq, it->path, it->rc, it->err, NULL, KT_FT_UNKNOWN, it->len, true);
        return;
    }
    struct kt_error e = KT_ERROR_INIT;
    struct kt_result *r = NULL;
    int rc = kt_verify_buf_as(s->ctx, it->path, it->buf, it->len, s->policy, t, &r, &e);
    /* no result (out of memory): counted as a verified file of type t */
    finish_item(s, it->seq, it->path, rc, &e, r, t, it->len, false);
}

/* After the walk: the prepared modules still waiting, on `jobs` threads. */
static void *drain_main(void *arg)
{
    struct sv *s = arg;
    while (drain_later(s, 16))
        ;
    return NULL;
}

static void drain_all(struct sv *s, unsigned jobs)
{
    pthread_t t[KT_SCAN_MAX_JOBS];
    unsigned n = 0;
    while (n + 1 < jobs && pthread_create(&t[n], NULL, drain_main, s) == 0)
        n++;
    drain_main(s);
    for (unsigned i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

int kt_scan_verify(const char *const *paths, size_t n_paths, const struct kt_scan_opts *o,
                   struct kt_scan_stats *stats, const char **err_file, struct kt_error *err)
{
    static const struct kt_ctx_opts no_keys;
    static const struct kt_policy defaults;
    memset(stats, 0, sizeof(*stats));
    unsigned jobs = o->jobs ? o->jobs : kt_scan_default_jobs();
    if (jobs > KT_SCAN_MAX_JOBS)
        jobs = KT_SCAN_MAX_JOBS;
    const struct kt_ctx_opts *keys = o->keys ? o->keys : &no_keys;
    /* with a worker or more to spare, --kernel is decoded while the files
     * are read and digested (their signature checks wait for the keys) */
    struct kt_ctx *ctx = NULL;
    int rc = kt_ctx_open_bg(keys, keys->kernel && jobs >= 2, &ctx, err_file, err);
    if (rc < 0)
        return rc;
    struct sv s = {.ctx = ctx, .o = o, .policy = o->policy ? o->policy : &defaults,
                   .st = stats, .max_preparing = jobs - 1};
    pthread_mutex_init(&s.mu, NULL);
    pthread_mutex_init(&s.later_mu, NULL);
    kt_ordered_init(&s.out, emit, &s);
    if (o->on_count) {
        uint64_t files = 0, bytes = 0;
        kt_scan_count(paths, n_paths, o->follow_symlinks, &files, &bytes);
        o->on_count(o->arg, files, bytes);
    }
    double t0 = now_s();
    struct kt_pool_opts po = {.jobs = jobs, .follow_symlinks = o->follow_symlinks,
                              .stop = o->stop};
    rc = kt_pool_run(paths, n_paths, &po, on_file, &s, err);
    if (keys_in(&s))
        drain_all(&s, jobs);
    stats->seconds = now_s() - t0;
    struct kt_error ke = KT_ERROR_INIT;
    int krc = kt_ctx_wait_keys(ctx, &ke);
    if (krc < 0) { /* as when --kernel fails before the scan: nothing was handed on */
        for (size_t i = 0; i < s.n_later; i++) {
            kt_result_free(s.later[i].r);
            free(s.later[i].path);
        }
        kt_ordered_finish(&s.out, true); /* holds nothing */
        if (err)
            *err = ke;
        rc = krc;
    } else {
        pthread_mutex_lock(&s.mu);
        kt_ordered_finish(&s.out, false);
        pthread_mutex_unlock(&s.mu);
        stats->walked = true;
    }
    free(s.later);
    pthread_mutex_destroy(&s.mu);
    pthread_mutex_destroy(&s.later_mu);
    kt_ctx_free(ctx);
    return rc;
}
