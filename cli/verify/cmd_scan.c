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
#include "json_summary.h"
#include "keyload.h"
#include "ktrust/scan.h"
#include "verdict_print.h"

struct scan_ctx {
    bool json, quiet, verbose, list_skipped;
    /* the progress line and its counts, shared with the progress thread
     * (kt_scan_verify hands results on one at a time: no lock without it) */
    pthread_mutex_t mu;
    bool lock;
    int worst;
    /* progress */
    bool progress, drawn;
    pthread_t prog;
    uint64_t files, done_bytes, total_files, total_bytes;
    double start;
    volatile int stop;
    /* testing: $KTRUST_SCAN_TEST_SIGNAL=N[:TERM] raises SIGINT (SIGTERM)
     * when the N-th file's result is handed on, as a Ctrl-C would land */
    uint64_t test_signal_after;
    int test_signal;
};

/* SIGINT/SIGTERM: stop walking, finish the files in hand, print the summary
 * (interrupted), exit 130.  A second signal kills at once (SA_RESETHAND). */
static volatile sig_atomic_t interrupted;
static void on_signal(int sig) { interrupted = sig; }

/* Erase the progress line (caller holds s->mu), so that no result line is
 * written after it on a terminal that shows both stdout and stderr. */
static void clear_progress(struct scan_ctx *s)
{
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

static void skipped_line(struct scan_ctx *s, FILE *out, const char *path, const char *type)
{
    if (s->json) {
        struct jw w;
        jw_init(&w, out);
        jw_obj(&w, NULL);
        jw_str(&w, "file", path);
        jw_str(&w, "type", type);
        jw_null(&w, "verdict");
        jw_null(&w, "error");
        jw_str(&w, "reason", "skipped: not a signed object ktrust verifies");
        jw_bool(&w, "skipped", true);
        jw_obj_end(&w);
        jw_newline(&w);
    } else if (!s->quiet) {
        fprintf(out, "%s: skipped (%s)\n", tx(path), type);
    }
}

/* A file's result line(s) (a worker thread, concurrently). */
static void render(void *arg, const struct kt_scan_file *f, FILE *out)
{
    struct scan_ctx *s = arg;
    if (f->unreadable) {
        /* unreadable: the one-line error on stderr now; its JSON object in order */
        cli_error(f->path, f->err);
        if (s->json) {
            struct jw w;
            jw_init(&w, out);
            struct vp_result vr = {.file = f->path, .type = NULL, .rc = f->rc,
                                   .error = f->err, .not_verified = true};
            vp_json(&w, &vr);
            jw_newline(&w);
        }
        return;
    }
    if (!f->result)
        return; /* out of memory */
    if (kt_result_skipped(f->result)) {
        if (s->list_skipped)
            skipped_line(s, out, f->path, kt_result_type(f->result));
        return;
    }
    struct vp_result vr;
    vp_from_result(&vr, f->path, f->result);
    print_vp(s, out, &vr);
}

/* In walk order, one at a time: print the lines, keep the worst code. */
static void deliver(void *arg, const struct kt_scan_done *d)
{
    struct scan_ctx *s = arg;
    int code = 0;
    if (d->unreadable) {
        code = cli_exit_code(d->rc);
        if (code < EXIT_USAGE)
            code = EXIT_NOINPUT;
    } else if (!d->skipped) {
        code = cli_exit_code(d->rc);
    }
    if (s->lock)
        pthread_mutex_lock(&s->mu);
    if (d->len) {
        clear_progress(s);
        fwrite(d->text, 1, d->len, stdout);
        fflush(stdout); /* whole lines only: an interrupt never cuts one */
    }
    s->files = d->stats->files;
    s->done_bytes = d->stats->all_bytes;
    if (code > s->worst)
        s->worst = code;
    bool raise_now = s->test_signal_after && s->files == s->test_signal_after;
    if (s->lock)
        pthread_mutex_unlock(&s->mu);
    if (raise_now)
        raise(s->test_signal);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *progress_main(void *arg)
{
    struct scan_ctx *s = arg;
    while (!s->stop && !interrupted) {
        usleep(200000);
        pthread_mutex_lock(&s->mu);
        uint64_t files = s->files, bytes = s->done_bytes;
        double t = now_s() - s->start, mbs = t > 0 ? (double)bytes / 1e6 / t : 0;
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

/* The files counted (a terminal on stderr): the progress line starts. */
static void on_count(void *arg, uint64_t files, uint64_t bytes)
{
    struct scan_ctx *s = arg;
    s->total_files = files;
    s->total_bytes = bytes;
    s->start = now_s();
    s->progress = pthread_create(&s->prog, NULL, progress_main, s) == 0;
}

/* The summary's count slots: the verdicts 0..KT_REFUSED, then errors. */
static const char *slot_name(int i)
{
    return kt_verdict_name(i <= KT_REFUSED ? (enum kt_verdict)i : KT_INTERNAL);
}

/* The summary object (json_summary.h); files, verified, types, bytes,
 * seconds and mb_per_s are scan's own; verdicts, skipped and unreadable
 * repeat counts and go after one release (ktrust(1), JSON OUTPUT). */
static void summary_json(const struct kt_scan_stats *st, int code)
{
    double secs = st->seconds, mbs = secs > 0 ? (double)st->bytes / 1e6 / secs : 0;
    struct cli_count c[KT_REFUSED + 4];
    const char *worst = NULL;
    for (int i = 0; i < KT_REFUSED + 2; i++) {
        c[i] = (struct cli_count){slot_name(i), st->verdicts[i]};
        if (i <= KT_REFUSED && st->verdicts[i])
            worst = c[i].name;
    }
    c[KT_REFUSED + 2] = (struct cli_count){"unreadable", st->unreadable};
    c[KT_REFUSED + 3] = (struct cli_count){"skipped", st->skipped};
    struct cli_summary sum = {.verdict = worst, .exit = code, .counts = c,
                              .n_counts = KT_REFUSED + 4, .interrupted = interrupted != 0};
    struct jw w;
    cli_json_summary_begin(&w, stdout, &sum); /* schema 1: files, skipped, unreadable and
                                               * verdicts only in counts */
    jw_int(&w, "verified", (long long)(st->files - st->skipped - st->unreadable));
    jw_obj(&w, "types");
    for (unsigned t = 0; t < KT_SCAN_N_TYPES; t++)
        jw_int(&w, kt_scan_type_name(t), (long long)st->types[t]);
    jw_obj_end(&w);
    jw_int(&w, "bytes", (long long)st->bytes);
    jw_num(&w, "seconds", secs, 3);
    jw_num(&w, "mb_per_s", mbs, 1);
    jw_obj_end(&w);
    jw_newline(&w);
}

static void summary(const struct scan_ctx *s, const struct kt_scan_stats *st, int code)
{
    double secs = st->seconds, mbs = secs > 0 ? (double)st->bytes / 1e6 / secs : 0;
    uint64_t verified = st->files - st->skipped - st->unreadable;
    if (s->json) {
        summary_json(st, code);
        return;
    }
    if (s->quiet)
        return;
    if (interrupted)
        printf("\ninterrupted (%s): the summary covers the files done so far\n",
               interrupted == SIGTERM ? "SIGTERM" : "SIGINT");
    printf("\nscanned %llu file%s: %llu verified, %llu skipped", (unsigned long long)st->files,
           st->files == 1 ? "" : "s", (unsigned long long)verified,
           (unsigned long long)st->skipped);
    if (st->unreadable)
        printf(", %llu unreadable", (unsigned long long)st->unreadable);
    printf("\n");
    printf("verdicts:");
    for (int i = 0; i < KT_REFUSED + 2; i++)
        if (st->verdicts[i])
            printf(" %s %llu", slot_name(i), (unsigned long long)st->verdicts[i]);
    printf("\n%.1f MB in %.2f s: %.0f MB/s\n", (double)st->bytes / 1e6, secs, mbs);
}

int cmd_scan(int argc, char **argv)
{
    struct cli_common co = {0};
    struct kt_policy policy = {.type = KT_VERIFY_AUTO, .pair_detached = true};
    struct scan_ctx s = {0};
    struct kt_scan_opts so = {.policy = &policy, .render = render, .deliver = deliver,
                              .arg = &s};
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
        case OPT_SHA1: policy.allow_sha1 = true; break;
        case 'j': {
            char *end;
            long j = strtol(optarg, &end, 10);
            if (*end || j < 1 || j > KT_SCAN_MAX_JOBS)
                return cli_usage_error("scan", "-j takes a number from 1 to %d", KT_SCAN_MAX_JOBS);
            so.jobs = (unsigned)j;
            break;
        }
        default: return EXIT_USAGE; /* cli_getopt said why */
        }
    }
    if (optind >= argc)
        return cli_usage_error("scan", "no path given");
    s.json = co.json;
    s.verbose = co.verbose;
    s.quiet = co.quiet;

    struct cli_ctx_opts keys;
    cli_ctx_opts(&co, KT_CTX_STORE_READ, &keys);
    so.keys = &keys.o;
    pthread_mutex_init(&s.mu, NULL);
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
    if (isatty(2) && !co.quiet) {
        so.on_count = on_count;
        s.lock = true;
    }

    struct kt_scan_stats st;
    struct kt_error e = KT_ERROR_INIT;
    const char *bad = NULL;
    int rc = kt_scan_verify((const char *const *)argv + optind, (size_t)(argc - optind), &so,
                            &st, &bad, &e);
    if (s.progress) {
        s.stop = 1;
        pthread_join(s.prog, NULL);
    }
    /* from here a signal kills at once: the summary is one write */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    pthread_mutex_destroy(&s.mu);
    if (!st.walked) { /* the store, --trust or --kernel failed: nothing was printed */
        cli_error(bad, &e);
        cli_json_setup_failed(&co, NULL, argv + optind, argc - optind, rc, &e);
        if (co.json) { /* every path unreadable: the summary still ends the output */
            struct kt_scan_stats none = {.files = (uint64_t)(argc - optind),
                                         .unreadable = (uint64_t)(argc - optind)};
            summary_json(&none, cli_exit_code(rc));
        }
        return cli_exit_code(rc);
    }
    if (rc < 0) {
        cli_error(NULL, &e);
        s.worst = EXIT_INTERNAL;
    }
    if (interrupted)
        s.worst = 130;
    summary(&s, &st, s.worst);
    fflush(stdout);
    return s.worst;
}
