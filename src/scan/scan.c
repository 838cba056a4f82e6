#include "scan/scan.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/walk.h"
#include "util/file.h"

struct qent {
    char *path;
    uint64_t seq;
};

struct queue {
    pthread_mutex_t mu;
    pthread_cond_t not_empty, not_full;
    struct qent ents[KT_SCAN_QUEUE];
    size_t head, count;
    unsigned idle;  /* workers waiting for a path */
    bool full_wait; /* the walker waits for room */
    bool closed;
};

struct pool {
    struct queue q;
    kt_pool_fn fn;
    void *ctx;
    uint64_t next_seq; /* walking thread only */
    volatile sig_atomic_t *stop;
};

static bool stopped(const struct pool *p) { return p->stop && *p->stop; }

struct worker {
    struct pool *pool;
    unsigned id;
    pthread_t thread;
    struct kt_filebuf buf; /* this worker's read buffer, reused file to file */
};

static void q_push(struct queue *q, char *path, uint64_t seq)
{
    pthread_mutex_lock(&q->mu);
    while (q->count == KT_SCAN_QUEUE) {
        q->full_wait = true;
        pthread_cond_wait(&q->not_full, &q->mu);
    }
    q->ents[(q->head + q->count) % KT_SCAN_QUEUE] = (struct qent){path, seq};
    q->count++;
    if (q->idle) /* wake-ups cost a system call each: only when someone sleeps */
        pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->mu);
}

static char *q_pop(struct queue *q, uint64_t *seq)
{
    pthread_mutex_lock(&q->mu);
    while (q->count == 0 && !q->closed) {
        q->idle++;
        pthread_cond_wait(&q->not_empty, &q->mu);
        q->idle--;
    }
    char *p = NULL;
    if (q->count) {
        p = q->ents[q->head].path;
        *seq = q->ents[q->head].seq;
        q->head = (q->head + 1) % KT_SCAN_QUEUE;
        q->count--;
        /* the walker refills in one go once half the queue is free, rather
         * than being woken for every path taken */
        if (q->full_wait && q->count <= KT_SCAN_QUEUE / 2) {
            q->full_wait = false;
            pthread_cond_signal(&q->not_full);
        }
    }
    pthread_mutex_unlock(&q->mu);
    return p;
}

static void q_close(struct queue *q)
{
    pthread_mutex_lock(&q->mu);
    q->closed = true;
    pthread_cond_broadcast(&q->not_empty);
    pthread_mutex_unlock(&q->mu);
}

static void process(struct worker *w, const char *path, uint64_t seq)
{
    struct pool *p = w->pool;
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    struct kt_pool_item it = {.path = path, .worker = w->id, .err = &e, .seq = seq};
    it.rc = kt_file_open_buf(path, &w->buf, &f, &e);
    if (it.rc == 0) {
        it.buf = f.data;
        it.len = f.len;
    }
    p->fn(p->ctx, &it);
    if (it.rc == 0)
        kt_file_close(&f);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    char *path;
    uint64_t seq;
    while ((path = q_pop(&w->pool->q, &seq)) != NULL) {
        if (!stopped(w->pool))
            process(w, path, seq);
        free(path);
    }
    kt_filebuf_free(&w->buf);
    return NULL;
}

unsigned kt_scan_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > KT_SCAN_MAX_JOBS ? KT_SCAN_MAX_JOBS : (unsigned)n;
}

/* Report a problem found while walking, from the walking thread. */
static void report(struct pool *p, const char *path, int rc, const char *what)
{
    struct kt_error e = KT_ERROR_INIT;
    kt_fail(&e, rc, KT_NO_OFFSET, "%s", what);
    struct kt_pool_item it = {.path = path, .rc = rc, .err = &e,
                              .seq = p->next_seq++};
    p->fn(p->ctx, &it);
}

static int scan_visit(void *ctx, const struct kt_walk_entry *e)
{
    struct pool *p = ctx;
    char what[160];
    switch (e->kind) {
    case KT_WALK_FILE:
        {
            char *copy = strdup(e->path);
            if (copy)
                q_push(&p->q, copy, p->next_seq++);
        }
        break;
    case KT_WALK_LOOP:
        report(p, e->path, -ELOOP, "directory cycle (symbolic link loop): not followed");
        break;
    case KT_WALK_UNREADABLE:
        snprintf(what, sizeof(what), "cannot read: %s", strerror(e->error));
        report(p, e->path, -e->error, what);
        break;
    case KT_WALK_DANGLING:
        report(p, e->path, -ENOENT, "dangling symbolic link");
        break;
    }
    return 0;
}

int kt_pool_run(const char *const *paths, size_t n_paths, const struct kt_pool_opts *opts,
            kt_pool_fn fn, void *ctx, struct kt_error *err)
{
    unsigned jobs = opts && opts->jobs ? opts->jobs : kt_scan_default_jobs();
    if (jobs > KT_SCAN_MAX_JOBS)
        jobs = KT_SCAN_MAX_JOBS;
    struct pool p = {.fn = fn, .ctx = ctx, .stop = opts ? opts->stop : NULL};
    pthread_mutex_init(&p.q.mu, NULL);
    pthread_cond_init(&p.q.not_empty, NULL);
    pthread_cond_init(&p.q.not_full, NULL);
    struct worker *w = calloc(jobs, sizeof(*w));
    if (!w)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    unsigned started = 0;
    int rc = 0;
    for (; started < jobs; started++) {
        w[started].pool = &p;
        w[started].id = started;
        if (pthread_create(&w[started].thread, NULL, worker_main, &w[started]) != 0) {
            rc = kt_fail(err, -EAGAIN, KT_NO_OFFSET, "cannot start worker threads");
            break;
        }
    }
    if (started > 0) {
        struct kt_walk_opts wo = {.follow_symlinks = opts && opts->follow_symlinks,
                                  .stop = p.stop};
        kt_walk(paths, n_paths, &wo, scan_visit, &p);
    }
    q_close(&p.q);
    for (unsigned i = 0; i < started; i++)
        pthread_join(w[i].thread, NULL);
    /* anything left (no worker could start) is dropped */
    char *left;
    uint64_t seq;
    while ((left = q_pop(&p.q, &seq)) != NULL)
        free(left);
    free(w);
    pthread_mutex_destroy(&p.q.mu);
    pthread_cond_destroy(&p.q.not_empty);
    pthread_cond_destroy(&p.q.not_full);
    return rc;
}

struct counter {
    uint64_t files, bytes;
};

static int count_visit(void *ctx, const struct kt_walk_entry *e)
{
    struct counter *c = ctx;
    if (e->kind == KT_WALK_FILE) {
        c->files++;
        c->bytes += e->size;
    }
    return 0;
}

void kt_scan_count(const char *const *paths, size_t n_paths, bool follow_symlinks,
                   uint64_t *files, uint64_t *bytes)
{
    struct counter c = {0, 0};
    struct kt_walk_opts wo = {.follow_symlinks = follow_symlinks};
    kt_walk(paths, n_paths, &wo, count_visit, &c);
    *files = c.files;
    *bytes = c.bytes;
}
