/* ktrust scan: find every signed object under the paths and verify it with
 * the same library calls as the single-file commands, on -j N threads. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "keyload.h"
#include "ordered_out.h"
#include "scan/scan.h"
#include "verdict_print.h"

#define N_VERDICTS 8 /* 0..6, and 7 for errors (unreadable, internal) */

struct scan_ctx {
    const struct kt_ctx *ctx;
    struct kt_policy policy; /* every file: its detected type, that type's purpose */
    bool json, quiet, verbose, list_skipped;
    pthread_mutex_t mu; /* output, counters and the progress line */
    uint64_t verdicts[N_VERDICTS], per_type[KT_FT_KERNEL + 1];
    uint64_t files, skipped, unreadable, bytes, done_bytes;
    int worst;
    struct ordered_out out; /* results in walk order */
    /* progress */
    bool progress, drawn;
    uint64_t total_files, total_bytes;
    volatile int stop;
    /* testing: $KTRUST_SCAN_TEST_SIGNAL=N[:TERM] raises SIGINT (SIGTERM)
     * in the worker that finishes the N-th file, as a Ctrl-C would land */
    uint64_t test_signal_after;
    int test_signal;
    /* --kernel decoded in the background: modules read meanwhile wait here,
     * prepared (digested, no key needed), for their signature checks */
    pthread_mutex_t later_mu;
    struct later *later;
    size_t n_later, cap_later;
    unsigned preparing, max_preparing; /* workers digesting meanwhile: one core
                                        * is left to the decode */
};

/* A module prepared before the keys were there. */
struct later {
    uint64_t seq;
    char *path;
    size_t len;
    enum kt_ftype type;
    struct kt_result *r;
};
#define LATER_MAX 4096 /* then a worker waits for the keys instead */

/* SIGINT/SIGTERM: stop walking, finish the files in hand, print the summary
 * (interrupted), exit 130.  A second signal kills at once (SA_RESETHAND). */
static volatile sig_atomic_t interrupted;
static void on_signal(int sig) { interrupted = sig; }

/* Erase the progress line (caller holds s->mu), so that no result line is
 * written after it on a terminal that shows both stdout and stderr. */
static void clear_progress(void *ctx)
{
    struct scan_ctx *s = ctx;
    if (s->drawn) {
        fprintf(stderr, "\r%70s\r", "");
        s->drawn = false;
    }
}

enum { OPT_FOLLOW = OPT_FIRST_PRIVATE, OPT_SHA1, OPT_LIST_SKIPPED };

static const struct cli_opt opts[] = {
    CLI_OPT("jobs", 'j', required_argument, 'j', "N",
            "verify on N threads (default: the number of CPUs); the results come in the "
            "same order whatever N"),
    CLI_OPT("follow-symlinks", 0, no_argument, OPT_FOLLOW, NULL,
            "follow symbolic links in the walk"),
    CLI_OPT("allow-sha1", 0, no_argument, OPT_SHA1, NULL,
            "accept SHA-1 digests (refused as unsupported, 3, without it)"),
    CLI_OPT("list-skipped", 0, no_argument, OPT_LIST_SKIPPED, NULL,
            "also print each skipped file"),
    CLI_OPTS(cli_opts_verify),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust scan PATH... [-j N] [--follow-symlinks] [--trust FILE]... [--store PATH]\n"
        "                   [--kernel VMLINUZ] [--keyring NAME]... [--allow-sha1] [--list-skipped]\n"
        "                   [--json] [-q] [-v]\n\n"
        "Walk the paths, recognise each file by its content (PE image, kernel module,\n"
        "PKCS#7 message, certificate, EFI signature list, kernel image; anything else is\n"
        "skipped and counted) and verify it as the single-file commands do, for the same\n"
        "purpose (PE: uefi; modules, PKCS#7, certificates: module keyrings only).  A\n"
        "summary ends the output (with --json: a last line {\"type\":\"summary\",...}).\n"
        "Results come in walk order (directories in name order).\n"
        "Ctrl-C (SIGINT, SIGTERM): files in hand finish, the summary says\n"
        "interrupted, exit 130.\n",
        opts, "Exit code: the highest per-file code.\n");
}

static void print_vp(struct scan_ctx *s, FILE *out, const struct vp_result *vr)
{
    if (s->json) {
        struct jw w;
        jw_init(&w, out);
        vp_json(&w, vr);
        jw_newline(&w);
    } else if (!s->quiet) {
        vp_text(out, vr, s->verbose);
    }
}

/* A file's verdict line(s) into out; returns its verdict (0 / -errno), or
 * 1 when it is nothing ktrust verifies (*skipped). */
static int verify_item(struct scan_ctx *s, const struct kt_scan_item *it, FILE *out,
                       bool *skipped)
{
    struct kt_error e = KT_ERROR_INIT;
    struct kt_result *r = NULL;
    int rc = kt_verify_buf(s->ctx, it->path, it->buf, it->len, &s->policy, &r, &e);
    *skipped = false;
    if (!r)
        return rc; /* out of memory */
    if (kt_result_skipped(r)) {
        *skipped = true;
        kt_result_free(r);
        return 0;
    }
    struct vp_result vr;
    vp_from_result(&vr, it->path, r);
    print_vp(s, out, &vr);
    kt_result_free(r);
    return rc;
}

static void skipped_line(struct scan_ctx *s, FILE *out, const struct kt_scan_item *it)
{
    if (s->json) {
        struct jw w;
        jw_init(&w, out);
        jw_obj(&w, NULL);
        jw_str(&w, "file", it->path);
        jw_str(&w, "type", kt_ftype_name(it->type));
        jw_null(&w, "verdict");
        jw_null(&w, "error");
        jw_str(&w, "reason", "skipped: not a signed object ktrust verifies");
        jw_bool(&w, "skipped", true);
        jw_obj_end(&w);
        jw_newline(&w);
    } else if (!s->quiet) {
        fprintf(out, "%s: skipped (%s)\n", it->path, kt_ftype_name(it->type));
    }
}

/* The result line(s) of one item into the ordered output, and its counts. */
static void record(struct scan_ctx *s, const struct kt_scan_item *it, char *buf, size_t n,
                   int code, int rc, bool skipped)
{
    pthread_mutex_lock(&s->mu);
    oo_put(&s->out, it->seq, buf, n); /* takes buf */
    s->files++;
    s->done_bytes += it->len;
    if (it->rc < 0) {
        s->unreadable++;
    } else if (skipped) {
        s->skipped++;
    } else {
        s->bytes += it->len;
        s->per_type[it->type]++;
        enum kt_verdict v = kt_verdict_of(rc);
        s->verdicts[v > KT_REFUSED ? 7 : v]++;
    }
    if (code > s->worst)
        s->worst = code;
    bool raise_now = s->test_signal_after && s->files == s->test_signal_after;
    pthread_mutex_unlock(&s->mu);
    if (raise_now)
        raise(s->test_signal);
}

/* Check and print one prepared module now that the keys are there. */
static void finish_later(struct scan_ctx *s, struct later *l)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&buf, &n);
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_verify_finish(s->ctx, l->r, &e);
    struct kt_scan_item it = {.path = l->path, .seq = l->seq, .len = l->len, .type = l->type};
    if (out) {
        struct vp_result vr;
        vp_from_result(&vr, l->path, l->r);
        print_vp(s, out, &vr);
        fclose(out);
        record(s, &it, buf, n, cli_exit_code(rc), rc, false);
    }
    kt_result_free(l->r);
    free(l->path);
}

/* Take up to max prepared modules and finish them; false when none was left. */
static bool drain_later(struct scan_ctx *s, size_t max)
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
static bool keep_for_later(struct scan_ctx *s, const struct kt_scan_item *it)
{
    pthread_mutex_lock(&s->later_mu);
    bool go = s->preparing < s->max_preparing && s->n_later < LATER_MAX;
    if (go)
        s->preparing++;
    pthread_mutex_unlock(&s->later_mu);
    if (!go)
        return false; /* this worker waits for the keys instead */
    struct kt_result *r = NULL;
    int pr = kt_verify_prepare(it->path, it->buf, it->len, &s->policy, &r);
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
        s->later[s->n_later++] = (struct later){it->seq, path, it->len, it->type, r};
        kept = true;
    }
    pthread_mutex_unlock(&s->later_mu);
    if (!kept)
        kt_result_free(r); /* full: verified the usual way once the keys are in */
    return kept;
}

/* The keys, waited for; false when the decode failed (then nothing more is
 * printed: the run ends with the setup error). */
static bool keys_in(struct scan_ctx *s) { return kt_ctx_wait_keys(s->ctx, NULL) == 0; }

static void on_file(void *vctx, const struct kt_scan_item *it)
{
    struct scan_ctx *s = vctx;
    if (it->rc == 0 && !kt_ctx_keys_ready(s->ctx) && keep_for_later(s, it))
        return;
    if (!keys_in(s))
        return;
    drain_later(s, 4); /* prepared modules first: their output is due earlier */
    char *buf = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&buf, &n);
    int code = 0, rc = 0;
    bool skipped = false;
    if (!out)
        return;
    if (it->rc < 0) {
        /* the one-line error on stderr now; its JSON object in order */
        cli_error(it->path, it->err);
        if (s->json) {
            struct jw w;
            jw_init(&w, out);
            struct vp_result vr = {.file = it->path, .type = NULL, .rc = it->rc,
                                   .error = it->err, .not_verified = true};
            vp_json(&w, &vr);
            jw_newline(&w);
        }
        code = cli_exit_code(it->rc);
        if (code < EXIT_USAGE)
            code = EXIT_NOINPUT;
    } else {
        rc = verify_item(s, it, out, &skipped);
        if (skipped && s->list_skipped)
            skipped_line(s, out, it);
        if (!skipped)
            code = cli_exit_code(rc);
    }
    fclose(out);
    record(s, it, buf, n, code, rc, skipped);
}

/* After the walk: the prepared modules still waiting, on `jobs` threads. */
static void *drain_main(void *arg)
{
    struct scan_ctx *s = arg;
    while (drain_later(s, 16))
        ;
    return NULL;
}

static void drain_all(struct scan_ctx *s, unsigned jobs)
{
    pthread_t t[KT_SCAN_MAX_JOBS];
    unsigned n = 0;
    while (n + 1 < jobs && pthread_create(&t[n], NULL, drain_main, s) == 0)
        n++;
    drain_main(s);
    for (unsigned i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct progress {
    struct scan_ctx *s;
    double start;
};

static void *progress_main(void *arg)
{
    struct progress *p = arg;
    struct scan_ctx *s = p->s;
    while (!s->stop && !interrupted) {
        usleep(200000);
        pthread_mutex_lock(&s->mu);
        uint64_t files = s->files, bytes = s->done_bytes;
        double t = now_s() - p->start, mbs = t > 0 ? (double)bytes / 1e6 / t : 0;
        double eta = mbs > 0 && s->total_bytes > bytes ? (double)(s->total_bytes - bytes) / 1e6 / mbs : 0;
        int pct = s->total_bytes ? (int)(100.0 * (double)bytes / (double)s->total_bytes) : 0;
        if (!s->stop && !interrupted) {
            fprintf(stderr, "\r%3d%%  %llu/%llu files  %.0f MB/s  ETA %.0fs   ",
                    pct > 100 ? 100 : pct, (unsigned long long)files,
                    (unsigned long long)s->total_files, mbs, eta);
            s->drawn = true;
        }
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_lock(&s->mu);
    clear_progress(s);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* The summary's count slots: the verdicts 0..KT_REFUSED, then errors. */
static const char *slot_name(int i)
{
    return kt_verdict_name(i <= KT_REFUSED ? (enum kt_verdict)i : KT_INTERNAL);
}

static void summary(struct scan_ctx *s, double secs)
{
    double mbs = secs > 0 ? (double)s->bytes / 1e6 / secs : 0;
    if (s->json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "summary");
        jw_int(&w, "files", (long long)s->files);
        jw_int(&w, "verified", (long long)(s->files - s->skipped - s->unreadable));
        jw_int(&w, "skipped", (long long)s->skipped);
        jw_int(&w, "unreadable", (long long)s->unreadable);
        jw_bool(&w, "interrupted", interrupted != 0);
        jw_obj(&w, "verdicts");
        for (int i = 0; i < N_VERDICTS; i++)
            jw_int(&w, slot_name(i), (long long)s->verdicts[i]);
        jw_obj_end(&w);
        jw_obj(&w, "types");
        for (int t = KT_FT_PE; t <= KT_FT_KERNEL; t++)
            jw_int(&w, kt_ftype_name((enum kt_ftype)t), (long long)s->per_type[t]);
        jw_obj_end(&w);
        jw_int(&w, "bytes", (long long)s->bytes);
        jw_num(&w, "seconds", secs, 3);
        jw_num(&w, "mb_per_s", mbs, 1);
        jw_obj_end(&w);
        jw_newline(&w);
        return;
    }
    if (s->quiet)
        return;
    if (interrupted)
        printf("\ninterrupted (%s): the summary covers the files done so far\n",
               interrupted == SIGTERM ? "SIGTERM" : "SIGINT");
    printf("\nscanned %llu file%s: %llu verified, %llu skipped", (unsigned long long)s->files,
           s->files == 1 ? "" : "s", (unsigned long long)(s->files - s->skipped - s->unreadable),
           (unsigned long long)s->skipped);
    if (s->unreadable)
        printf(", %llu unreadable", (unsigned long long)s->unreadable);
    printf("\n");
    printf("verdicts:");
    for (int i = 0; i < N_VERDICTS; i++)
        if (s->verdicts[i])
            printf(" %s %llu", slot_name(i), (unsigned long long)s->verdicts[i]);
    printf("\n%.1f MB in %.2f s: %.0f MB/s\n", (double)s->bytes / 1e6, secs, mbs);
}

int cmd_scan(int argc, char **argv)
{
    struct cli_common co = {0};
    struct kt_scan_opts so = {0};
    struct scan_ctx s = {.policy = {.type = KT_VERIFY_AUTO, .pair_detached = true}};
    struct cli_getopt g;
    int c;
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        int h = cli_common_opt(&co, c, optarg);
        if (h < 0)
            return EXIT_USAGE;
        if (h)
            continue;
        switch (c) {
        case 'h': usage(stdout); return 0;
        case OPT_FOLLOW: so.follow_symlinks = true; break;
        case OPT_LIST_SKIPPED: s.list_skipped = true; break;
        case OPT_SHA1: s.policy.allow_sha1 = true; break;
        case 'j': {
            char *end;
            long j = strtol(optarg, &end, 10);
            if (*end || j < 1 || j > KT_SCAN_MAX_JOBS)
                return cli_usage_error("scan", "-j takes a number from 1 to %d", KT_SCAN_MAX_JOBS);
            so.jobs = (unsigned)j;
            break;
        }
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind >= argc)
        return cli_usage_error("scan", "no path given");
    s.json = co.json;
    s.verbose = co.verbose;
    s.quiet = co.quiet;

    /* with a worker or more to spare, --kernel is decoded while the files
     * are read and digested (their signature checks wait for the keys) */
    unsigned jobs = so.jobs ? so.jobs : kt_scan_default_jobs();
    co.kernel_in_background = co.kernel && jobs >= 2;
    s.max_preparing = jobs - 1;
    struct kt_ctx *ctx = NULL;
    struct kt_error e = KT_ERROR_INIT;
    const char *bad = NULL;
    int rc = cli_open_ctx(&co, &ctx, &e, &bad);
    if (rc < 0) {
        cli_error(bad, &e);
        cli_json_setup_failed(&co, NULL, argv + optind, argc - optind, rc, &e);
        return cli_exit_code(rc);
    }
    s.ctx = ctx;
    pthread_mutex_init(&s.mu, NULL);
    pthread_mutex_init(&s.later_mu, NULL);
    oo_init(&s.out, stdout, clear_progress, &s);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    so.stop = &interrupted;
    const char *ts = getenv("KTRUST_SCAN_TEST_SIGNAL");
    if (ts && *ts) {
        s.test_signal_after = strtoull(ts, NULL, 10);
        s.test_signal = strstr(ts, ":TERM") ? SIGTERM : SIGINT;
    }
    const char *const *paths = (const char *const *)argv + optind;
    size_t n_paths = (size_t)(argc - optind);

    pthread_t prog;
    struct progress p = {&s, now_s()};
    s.progress = isatty(2) && !co.quiet;
    if (s.progress) {
        kt_scan_count(paths, n_paths, so.follow_symlinks, &s.total_files, &s.total_bytes);
        p.start = now_s();
        if (pthread_create(&prog, NULL, progress_main, &p) != 0)
            s.progress = false;
    }
    double t0 = now_s();
    rc = kt_scan(paths, n_paths, &so, on_file, &s, &e);
    if (keys_in(&s))
        drain_all(&s, jobs);
    double secs = now_s() - t0;
    if (s.progress) {
        s.stop = 1;
        pthread_join(prog, NULL);
    }
    /* from here a signal kills at once: the summary is one write */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    struct kt_error ke = KT_ERROR_INIT;
    int krc = kt_ctx_wait_keys(ctx, &ke);
    if (krc < 0) { /* as when --kernel fails before the scan: nothing was printed */
        for (size_t i = 0; i < s.n_later; i++) {
            kt_result_free(s.later[i].r);
            free(s.later[i].path);
        }
        free(s.later);
        if (s.progress)
            clear_progress(&s);
        oo_finish(&s.out); /* holds nothing */
        cli_error(NULL, &ke);
        cli_json_setup_failed(&co, NULL, argv + optind, argc - optind, krc, &ke);
        pthread_mutex_destroy(&s.mu);
        pthread_mutex_destroy(&s.later_mu);
        kt_ctx_free(ctx);
        return cli_exit_code(krc);
    }
    free(s.later);
    pthread_mutex_lock(&s.mu);
    clear_progress(&s);
    oo_finish(&s.out);
    pthread_mutex_unlock(&s.mu);
    if (rc < 0) {
        cli_error(NULL, &e);
        s.worst = EXIT_INTERNAL;
    }
    summary(&s, secs);
    fflush(stdout);
    if (interrupted)
        s.worst = 130;
    pthread_mutex_destroy(&s.mu);
    pthread_mutex_destroy(&s.later_mu);
    kt_ctx_free(ctx);
    return s.worst;
}
