/* ima_list_cli.h - `ktrust ima-list`: cmd_ima_list.c (options, the run),
 * ima_list_print.c (each entry, the replay against the TPM, the
 * boot_aggregate, the summary). */
#ifndef KT_CLI_IMA_LIST_CLI_H
#define KT_CLI_IMA_LIST_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "keyload.h"
#include "ktrust/eventlog.h"
#include "ktrust/imalist.h"

struct ima_args {
    struct cli_common co; /* --store, --trust, --kernel, --json, -q, -v */
    const char *list, *root, *pcrs, *evlog;
    uint16_t banks[KT_EVLOG_MAX_BANKS];
    size_t n_banks;
    struct cli_ima_keys keys; /* --ima-key, --machine-ca, --kernel-config */
    bool allow_sha1;
};

struct ima_counts {
    bool read; /* the list was read whole */
    size_t entries, violations, signed_, unsigned_, pcr_match, pcr_mismatch, digests_bad;
    int boot_aggregate; /* enum kt_ima_ba_status, -1 before */
};

/* kt_ima_each_fn: one entry (arg: struct ima_args). */
int ima_entry_print(void *arg, const struct kt_ima_entry *e);
/* The list's report: the header, the boot_aggregate, the replay against x
 * (may be NULL), the integrity and the signatures; returns the exit code. */
int ima_report(const struct ima_args *a, const struct kt_ima_summary *s,
               const struct kt_pcr_values *x, const struct kt_evlog_pcrs *ev,
               struct ima_counts *c);
/* --json: the summary object. */
void ima_summary(const struct ima_args *a, int code, const struct ima_counts *c);

int cmd_ima_list(int argc, char **argv);

#endif
