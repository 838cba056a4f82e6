/* predict_cmdline.c - PCR 12's recomputer (recompute.h), source of truth
 * systemd 252's boot loader and stub for the UKI that boots next
 * (kt_evlog_predict_opts.uki).  What they extend, as EV_IPL events whose
 * digest is over the UTF-16 string with its NUL (measure.c's
 * tpm_log_load_options; the event data is the same string):
 *   1. systemd-boot, when it starts the UKI with options: a Type #1
 *      entry's `options` (opts.uki_options), or for a Type #2 entry
 *      (EFI/Linux, uki_options NULL) the UKI's own .cmdline, one trailing
 *      newline dropped (boot.c's config_entry_add_unified: 252 passes
 *      .cmdline as the load options and measures it, a disagreement with
 *      the PCR registry's "overrides only", SECURITY.md);
 *   2. systemd-stub, when it takes the load options as the command line:
 *      Secure Boot off or no .cmdline, options that start with a printable
 *      character (stub.c): the same string again;
 *   3. systemd-stub's credentials: `<UKI>.extra.d/NAME.cred` beside the UKI,
 *      then the ESP's `loader/credentials/NAME.cred`, each file's contents,
 *      in name order (cpio.c's pack_cpio).
 * systemd 252 has no add-ons (*.addon.efi came with 254) and measures
 * sysexts (`*.raw`) into PCR 13, not predicted.  systemd-boot is the
 * loader when a boot application of the log (PCR 4) is, on the ESP, a PE
 * whose .sdmagic says "systemd-boot"; without it (a UKI the firmware
 * starts itself) the firmware's load options are the logged ones: kept. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "boot/esp.h"
#include "eventlog/eventlog.h"
#include "eventlog/recompute.h"
#include "uki/uki.h"
#include "util/file.h"
#include "util/fmt.h"

#define MAX_EVENTS 66 /* two command lines and 64 credentials */
#define MAX_CREDS 64

struct ev12 {
    uint8_t d[KT_EVLOG_MAX_BANKS][KT_EVLOG_MAX_DIGEST];
    char note[96];
};

struct plan12 {
    struct ev12 ev[MAX_EVENTS];
    size_t n;
};

static bool active(const struct kt_evlog_predict_opts *o)
{
    return o->uki != NULL;
}

static int claims(const struct kt_evlog *log, size_t i, struct kt_error *err)
{
    (void)err;
    return log->event[i].pcr == 12 && log->event[i].type == KT_EV_IPL;
}

/* Settled by finish. */
static int recompute(const struct kt_evlog *log, size_t i, const struct kt_evlog_predict_opts *o,
                     struct kt_evlog_predicted *pr, struct kt_error *err)
{
    (void)log, (void)i, (void)o, (void)pr, (void)err;
    return 0;
}

/* data's digest in every supported bank of the log into e. */
static int digests(const struct kt_evlog *log, const void *data, size_t len, struct ev12 *e)
{
    for (size_t b = 0; b < log->n_banks; b++)
        if (log->bank[b].supported)
            KT_TRY(kt_digest(kt_evlog_hash(log->bank[b].alg), data, len, e->d[b]));
    return 0;
}

/* UTF-8 text (len bytes, up to a NUL) as UTF-16LE with its NUL: *out
 * malloc'd, *n bytes.  -EILSEQ past the BMP or on a bad sequence (as
 * systemd's xstra_to_str, which yields UCS-2). */
static int utf16(const uint8_t *s, size_t len, uint8_t **out, size_t *n)
{
    uint8_t *u = malloc(2 * len + 2);
    size_t w = 0;
    if (!u)
        return -ENOMEM;
    for (size_t i = 0; i < len && s[i];) {
        unsigned c = s[i], more = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : 9;
        bool bad = more == 9 || (more && i + more >= len);
        c &= more ? 0x3f >> more : 0x7f;
        for (unsigned k = 1; !bad && k <= more; k++) {
            bad = (s[i + k] & 0xc0) != 0x80;
            c = c << 6 | (s[i + k] & 0x3f);
        }
        if (bad) {
            free(u);
            return -EILSEQ;
        }
        i += 1 + more;
        u[w++] = c & 0xff, u[w++] = c >> 8;
    }
    u[w++] = 0, u[w++] = 0;
    *out = u, *n = w;
    return 0;
}

static int add_string(const struct kt_evlog *log, struct plan12 *pl, const uint8_t *s, size_t len,
                      const char *who)
{
    uint8_t *u;
    size_t n;
    KT_TRY(utf16(s, len, &u, &n));
    struct ev12 *e = &pl->ev[pl->n++];
    int rc = digests(log, u, n, e);
    free(u);
    kt_fmt(e->note, sizeof(e->note), "%s: the load options", who);
    return rc;
}

/* Is the file the log names as boot application i systemd-boot? */
static bool is_sdboot(const struct kt_evlog *log, size_t i, const struct kt_evlog_predict_opts *o)
{
    char dp[512], file[512], path[4096], v[128];
    struct kt_file f;
    struct kt_uki *u = NULL;
    if (kt_evlog_devpath(&log->event[i], dp, sizeof(dp), file, sizeof(file)) < 0 || !file[0] ||
        kt_evlog_image_file(o, file, path, sizeof(path)) < 0 || kt_file_open(path, &f, NULL) < 0)
        return false;
    bool yes = kt_uki_open_buf(f.data, f.len, &u, NULL) == 0 &&
               kt_uki_stub_version(u, v, sizeof(v)) == 0 && !strncmp(v, "systemd-boot ", 13);
    kt_uki_free(u);
    kt_file_close(&f);
    return yes;
}

/* The PCR 4 boot application that is systemd-boot: its index, or -1. */
static long sdboot_event(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o)
{
    for (size_t i = 0; i < log->n_events; i++)
        if (log->event[i].pcr == 4 && log->event[i].type == KT_EV_EFI_BOOT_SERVICES_APPLICATION &&
            is_sdboot(log, i, o))
            return (long)i;
    return -1;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.cred files of dir (absent: none), in name order, each an event. */
static int add_creds(const struct kt_evlog *log, struct plan12 *pl, const char *dir)
{
    DIR *d = opendir(dir);
    char *names[MAX_CREDS];
    size_t n = 0;
    int rc = 0;
    if (!d)
        return 0;
    for (struct dirent *de; (de = readdir(d)) && n < MAX_CREDS;) {
        size_t l = strlen(de->d_name);
        if (de->d_name[0] != '.' && l > 5 && !strcasecmp(de->d_name + l - 5, ".cred"))
            if (!(names[n++] = strdup(de->d_name)))
                rc = -ENOMEM, n--;
    }
    closedir(d);
    qsort(names, n, sizeof(*names), cmp_names);
    for (size_t k = 0; k < n; k++) {
        char path[4096];
        struct kt_file f;
        if (rc == 0 && pl->n < MAX_EVENTS && snprintf(path, sizeof(path), "%s/%s", dir, names[k]) <
            (int)sizeof(path) && (rc = kt_file_open(path, &f, NULL)) == 0) {
            struct ev12 *e = &pl->ev[pl->n++];
            rc = digests(log, f.data, f.len, e);
            kt_fmt(e->note, sizeof(e->note), "systemd-stub: credential %s", names[k]);
            kt_file_close(&f);
        }
        free(names[k]);
    }
    return rc;
}

/* What systemd-boot and the stub measure into PCR 12 at the next boot. */
static int plan(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                const struct kt_uki *u, struct plan12 *pl)
{
    const uint8_t *cl = NULL, *opt = NULL;
    size_t cl_len = 0, opt_len = 0;
    bool has_cmdline = kt_uki_get(u, ".cmdline", &cl, &cl_len) == 0 && cl_len;
    if (o->uki_options)
        opt = (const uint8_t *)o->uki_options, opt_len = strlen(o->uki_options);
    else if (has_cmdline) /* Type #2: .cmdline, one trailing newline chomped */
        opt = cl, opt_len = cl_len - (cl[cl_len - 1] == '\n');
    if (opt_len && memchr(opt, 0, opt_len))
        opt_len = (size_t)((const uint8_t *)memchr(opt, 0, opt_len) - opt);
    if (opt_len)
        KT_TRY(add_string(log, pl, opt, opt_len, "systemd-boot"));
    if (opt_len && opt[0] > 0x1f && (!has_cmdline || !kt_evlog_next_boot_secure(o)))
        KT_TRY(add_string(log, pl, opt, opt_len, "systemd-stub"));
    char dir[4096], esp_dir[4096];
    if (snprintf(dir, sizeof(dir), "%s.extra.d", o->uki) < (int)sizeof(dir))
        KT_TRY(add_creds(log, pl, dir));
    if (o->esp && kt_esp_resolve(o->esp, "loader/credentials", esp_dir, sizeof(esp_dir), NULL) == 0)
        KT_TRY(add_creds(log, pl, esp_dir));
    return 0;
}

/* s's EV_IPL events become pl's, in order; more are inserted after the
 * last (or after anchor when the log has none), fewer are dropped. */
static int rewrite(const struct kt_evlog *log, struct kt_evlog_pcr_pred *s,
                   const struct plan12 *pl, size_t anchor)
{
    size_t k = 0;
    for (size_t j = 0; j < s->n; j++) {
        struct kt_evlog_predicted *x = &s->ev[j];
        if (x->inserted || log->event[x->event_index].type != KT_EV_IPL)
            continue;
        anchor = x->event_index;
        if (k < pl->n) {
            kt_evlog_pred_set(log, x, pl->ev[k].d);
            kt_fmt(x->note, sizeof(x->note), "%s", pl->ev[k++].note);
        } else {
            x->how = KT_PRED_REMOVED;
            kt_fmt(x->note, sizeof(x->note), "not measured at the next boot");
        }
    }
    for (; k < pl->n; k++) {
        struct kt_evlog_predicted x;
        memset(&x, 0, sizeof(x));
        x.event_index = anchor;
        x.inserted = true;
        x.type = KT_EV_IPL;
        x.how = KT_PRED_CHANGED;
        memcpy(x.digest, pl->ev[k].d, sizeof(x.digest));
        kt_fmt(x.note, sizeof(x.note), "%s", pl->ev[k].note);
        KT_TRY(kt_evlog_pred_insert(s, s->n, &x));
    }
    return 0;
}

static int finish(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                  struct kt_evlog_pcr_pred *s)
{
    long sd = sdboot_event(log, o);
    if (sd < 0) { /* the firmware starts the UKI: its load options are the logged ones */
        for (size_t j = 0; j < s->n; j++)
            if (s->ev[j].how == KT_PRED_KEPT) {
                s->ev[j].how = KT_PRED_KEPT_UNKNOWN;
                kt_fmt(s->ev[j].note, sizeof(s->ev[j].note),
                       "no systemd-boot found among the boot applications: kept");
            }
        return 0;
    }
    struct kt_file f;
    struct kt_uki *u = NULL;
    struct plan12 *pl = calloc(1, sizeof(*pl));
    int rc = pl ? kt_file_open(o->uki, &f, NULL) : -ENOMEM;
    if (rc < 0) {
        free(pl);
        return rc;
    }
    rc = kt_uki_open_buf(f.data, f.len, &u, NULL);
    if (rc == 0)
        rc = plan(log, o, u, pl);
    if (rc == 0)
        rc = rewrite(log, s, pl, (size_t)sd);
    kt_uki_free(u);
    kt_file_close(&f);
    free(pl);
    return rc;
}

const struct kt_evlog_recomputer kt_evlog_rc_cmdline = {
    12, "systemd-boot's and systemd-stub's load options and credentials, from the UKI that boots next",
    "the loader entry and the UKI", active, claims, recompute, finish,
};
