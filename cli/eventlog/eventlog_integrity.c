/* eventlog_integrity.c - the log's own integrity (kt_evlog_check_digests):
 * each event whose data no longer hashes to its digest, said with its
 * number and byte offsets. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "eventlog_cli.h"
#include "util/fmt.h"

static void one_json(const struct kt_evlog_mismatch *m)
{
    char lh[2 * KT_EVLOG_MAX_DIGEST + 1], eh[2 * KT_EVLOG_MAX_DIGEST + 1];
    struct jw w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "type", "digest_mismatch");
    jw_int(&w, "event", (long long)m->event_index);
    jw_int(&w, "offset", (long long)m->offset);
    jw_int(&w, "digest_offset", (long long)m->digest_offset);
    jw_int(&w, "pcr", m->pcr);
    jw_str(&w, "event_type", kt_evlog_type_name(m->type));
    jw_str(&w, "bank", ev_alg(m->alg));
    jw_str(&w, "logged", kt_hex(m->logged, m->len, lh));
    jw_str(&w, "expected", kt_hex(m->expected, m->len, eh));
    jw_str(&w, "rule", m->zero_rule ? "zero" : "data");
    jw_obj_end(&w);
    jw_newline(&w);
}

static void one_text(const struct kt_evlog_mismatch *m)
{
    char lh[2 * KT_EVLOG_MAX_DIGEST + 1], eh[2 * KT_EVLOG_MAX_DIGEST + 1];
    const char *t = kt_evlog_type_name(m->type);
    printf("  event %zu (offset %zu, PCR %u, %s): the %s digest at offset %zu is %s, ",
           m->event_index, m->offset, m->pcr, t ? t : "unknown type", ev_alg(m->alg),
           m->digest_offset, kt_hex(m->logged, m->len, lh));
    if (m->zero_rule)
        printf("must be zeros (EV_NO_ACTION extends nothing)\n");
    else
        printf("its data hashes to %s\n", kt_hex(m->expected, m->len, eh));
}

int ev_integrity_print(const struct kt_evlog *log, bool json, bool quiet, size_t *n_bad)
{
    struct kt_evlog_mismatch *m;
    size_t n;
    *n_bad = 0;
    if (kt_evlog_check_digests(log, &m, &n) < 0)
        return -1;
    *n_bad = n;
    if (n && !json)
        printf("The log's own integrity: %zu event%s whose data does not match %s digest "
               "(altered after it was measured; what it says was not measured):\n",
               n, n == 1 ? "" : "s", n == 1 ? "its" : "their");
    for (size_t i = 0; i < n; i++) {
        if (json)
            one_json(&m[i]);
        else if (!quiet || i < 1)
            one_text(&m[i]);
    }
    free(m);
    return 0;
}
