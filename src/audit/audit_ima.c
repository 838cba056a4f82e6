/* audit_ima.c - the IMA measurement list in an audit: read once and
 * replayed (src/ima/), PCR 10 against the TPM's PCR files beside it, the
 * boot_aggregate against the snapshot's event log (else the TPM's PCRs
 * 0-9), the measured signatures counted.  A short section: `ktrust
 * ima-list` says the rest. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/audit.h"
#include "ima/imalist.h"
#include "ktrust/boot.h"

/* PCR 10 of every bank replayed against the TPM's values under the root. */
static int pcr10(struct kt_audit_ima *m, const struct kt_audit_opts *o,
                 const struct kt_ima_summary *s, struct kt_pcr_values *x, bool *have_x)
{
    char dir[KT_AUDIT_PATH];
    struct stat st;
    struct kt_pcr_check *c;
    struct kt_pcr_tally t;
    size_t n;
    *have_x = kt_sys_path_under(o->root, KT_SYS_TPM_PCRS, dir, sizeof(dir)) == 0 &&
              stat(dir, &st) == 0 && kt_pcrs_read(dir, x, NULL) == 0;
    if (!*have_x)
        return 0;
    if (kt_evlog_pcrs_check(&s->pcrs, x, &c, &n, &t) < 0)
        return -ENOMEM;
    char same[48] = "", differ[48] = "";
    for (size_t k = 0; k < n; k++) {
        if (!c[k].in_log || c[k].status > KT_PCR_MISMATCH)
            continue;
        char *b = c[k].status == KT_PCR_MATCH ? same : differ;
        const char *name = kt_evlog_alg_name(c[k].alg);
        size_t l = strlen(b);
        kt_fmt(b + l, sizeof(same) - l, "%s%s", l ? " " : "", name ? name : "?");
    }
    if (differ[0] || same[0]) {
        m->pcr10 = differ[0] ? 1 : 0;
        kt_fmt(m->banks, sizeof(m->banks), "%s", differ[0] ? differ : same);
    }
    free(c);
    return 0;
}

int kt_audit_ima(struct kt_audit *a, const struct kt_audit_opts *o, const struct kt_audit_snap *s)
{
    struct kt_audit_ima *m = &a->ima;
    struct stat st;
    m->pcr10 = -1;
    m->boot_aggregate = KT_IMA_BA_ABSENT;
    if (a->offline || kt_sys_path_under(o->root, KT_SYS_IMA_LIST, m->path, sizeof(m->path)) < 0 ||
        stat(m->path, &st) != 0)
        return 0;
    m->found = true;
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    struct kt_ima_summary *sum = calloc(1, sizeof(*sum));
    if (!sum)
        return -ENOMEM;
    struct kt_ima_opts io = {.detect = true};
    m->rc = kt_file_open(m->path, &f, &e);
    if (m->rc == 0) {
        m->rc = kt_ima_replay(f.data, f.len, &io, sum, &e);
        kt_file_close(&f);
    }
    int rc = 0;
    if (m->rc < 0) {
        kt_fmt(m->error, sizeof(m->error), "%s", e.what);
    } else {
        m->entries = sum->entries;
        m->violations = sum->violations;
        m->signed_files = sum->with_sig;
        m->unsigned_files = sum->without_sig;
        m->altered = sum->digest_mismatch;
        struct kt_pcr_values *x = malloc(sizeof(*x));
        struct kt_evlog_pcrs *ev = s->log_rc == 0 ? malloc(sizeof(*ev)) : NULL;
        bool have_x = false;
        rc = x ? pcr10(m, o, sum, x, &have_x) : -ENOMEM;
        if (ev && kt_evlog_replay(&s->log, ev) < 0) {
            free(ev);
            ev = NULL;
        }
        if (rc == 0)
            m->boot_aggregate = (int)kt_ima_boot_aggregate_check(sum, ev, have_x ? x : NULL, NULL);
        free(ev);
        free(x);
    }
    free(sum);
    return rc;
}
