/* ktrust/imalist.h - the IMA measurement list
 * (/sys/kernel/security/ima/binary_runtime_measurements and its ASCII
 * form): read it entry by entry (the `ima`, `ima-ng`, `ima-sig`, `ima-buf`,
 * `ima-ngv2`, `ima-sigv2`, `ima-modsig` templates; any other template's
 * entries are replayed from the binary form without their fields decoded),
 * replay the PCRs it extends (PCR 10) in every bank asked for, check its
 * boot_aggregate against PCRs 0-9.  The rules are the kernel's (6.1):
 * security/integrity/ima/ima_fs.c (ima_measurements_show,
 * ima_ascii_measurements_show), ima_template_lib.c (the fields),
 * ima_crypto.c (ima_calc_field_array_hash: each bank's extend value is that
 * bank's hash over the template data; ima_calc_boot_aggregate), ima_queue.c
 * (a violation extends all ones while the list shows zeros).
 *
 * The list is read in one pass, in place: nothing is kept per entry (memory
 * is the input plus one entry), so a list of millions of entries costs no
 * more than its bytes.  Lists are little-endian (x86, or any architecture
 * booted with ima_canonical_fmt).  Errors as in ktrust/error.h: a malformed
 * list is -EBADMSG with the byte offset.
 */
#ifndef KTRUST_IMALIST_H
#define KTRUST_IMALIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"
#include "ktrust/eventlog.h"
#include "ktrust/ima.h"
#include "ktrust/span.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Entries a list may hold: a busy server's list has some 10^5; more is
 * refused (-E2BIG).  Nothing is kept per entry: the cap bounds the time. */
#define KT_IMA_MAX_ENTRIES ((size_t)1 << 22) /* 4,194,304 */
#define KT_IMA_MAX_TEMPLATE_NAME 255         /* the kernel's MAX_TEMPLATE_NAME_LEN */
#define KT_IMA_MAX_TEMPLATE_DATA ((size_t)1 << 20)
#define KT_IMA_EVENT_NAME_MAX 255            /* IMA_EVENT_NAME_LEN_MAX ('ima' template) */

enum kt_ima_format { KT_IMA_BINARY = 0, KT_IMA_ASCII };

enum kt_ima_template {
    KT_IMA_TPL_IMA = 0, /* d|n: SHA-1 (or MD5) file digest, name padded to 256 bytes */
    KT_IMA_TPL_IMA_NG,  /* d-ng|n-ng */
    KT_IMA_TPL_IMA_SIG, /* d-ng|n-ng|sig */
    KT_IMA_TPL_IMA_BUF, /* d-ng|n-ng|buf */
    KT_IMA_TPL_IMA_NGV2,
    KT_IMA_TPL_IMA_SIGV2,
    KT_IMA_TPL_IMA_MODSIG,
    KT_IMA_TPL_OTHER,   /* replayed from the binary form, fields not decoded */
    KT_IMA_TPL__COUNT
};

/* One entry, valid until the next one is read.  Spans point into the list
 * (binary) or into the reader's own buffer (ASCII, and the 'ima'
 * template's hashed form). */
struct kt_ima_entry {
    size_t index;       /* 0-based */
    size_t offset;      /* of the entry (ASCII: of its line) in the list */
    uint32_t pcr;
    kt_span template_digest; /* as listed, in the list's digest bank (sha1) */
    bool violation;     /* template digest all zeros: a ToMToU / open-writers violation;
                         * every bank was extended with all ones */
    char template_name[KT_IMA_MAX_TEMPLATE_NAME + 1];
    enum kt_ima_template tpl;
    kt_span data;       /* the bytes each bank hashes into its extend value ('ima':
                         * d || n padded to 256); p NULL: unknown (ASCII of another
                         * template): only the list's own bank is replayed */
    bool decoded;       /* the fields below were found */
    char file_alg[24];  /* "sha256" (d-ng), "sha1" (d); "ima:sha256" for d-ngv2 */
    kt_span file_digest;
    kt_span file_name;  /* without the NUL */
    kt_span sig;        /* the security.ima value measured (ima-sig, ima-sigv2,
                         * ima-modsig), len 0 when the file had no signature */
    bool has_sig_field;
    /* the signature's verdict (kt_ima_sig_verify against the file digest
     * measured, with the opts' keys), when sig.len and keys were given */
    const struct kt_ima_sig_check *sig_check;
};

/* Per-entry hook: return 0 to go on, a negative errno to stop with it. */
typedef int (*kt_ima_each_fn)(void *arg, const struct kt_ima_entry *e);

struct kt_ima_opts {
    enum kt_ima_format format; /* ignored when detect is set */
    bool detect;               /* tell binary from ASCII by the first bytes */
    uint16_t digest_alg;       /* the bank of the listed template digests: 0 is sha1
                                * (6.1); a newer kernel's per-bank file
                                * (binary_runtime_measurements_sha256) lists its own */
    const uint16_t *banks;     /* the banks to replay (TPM algorithm ids); n_banks 0:
                                * sha1 and sha256 */
    size_t n_banks;
    kt_ima_each_fn each;       /* may be NULL */
    void *arg;
    /* judge each measured signature (ima-sig's sig field) against the file
     * digest the entry holds, by its key id in these keyrings' `.ima`
     * (kt_ima_sig_verify); NULL: signatures are counted, not judged */
    const struct kt_keyrings *keys;
    const struct kt_ima_sig_opts *sig_opts;
};

#define KT_IMA_MAX_SIGNERS 32
/* Who signed the measured files: one row per key (its description) or, for
 * a key id no key has, per key id. */
struct kt_ima_signer {
    uint32_t keyid;
    char signer[256];            /* the key's description, "" when no key has the id */
    size_t n[KT_REFUSED + 1];    /* signatures by verdict */
};

struct kt_ima_summary {
    enum kt_ima_format format;
    size_t entries, violations;
    size_t by_template[KT_IMA_TPL__COUNT];
    size_t with_sig, without_sig;  /* entries of a template with a sig field (not the
                                    * boot_aggregate, not a violation) */
    size_t sig_verdicts[KT_REFUSED + 1]; /* with keys: the signatures' verdicts */
    size_t n_signers;              /* rows of signer; a signer past the table: others */
    struct kt_ima_signer signer[KT_IMA_MAX_SIGNERS];
    size_t signers_others;
    size_t digest_mismatch;        /* template data that does not hash to its listed
                                    * digest: the list was altered */
    size_t first_mismatch;         /* index of the first, when any */
    bool have_boot_aggregate;      /* the first entry is "boot_aggregate" */
    char boot_aggregate_alg[24];
    size_t boot_aggregate_len;
    uint8_t boot_aggregate[KT_EVLOG_MAX_DIGEST];
    struct kt_evlog_pcrs pcrs;     /* the replay: used[] marks the PCRs the list extends;
                                    * a bank whose extend values cannot be computed
                                    * (ASCII of an unknown template) is unsupported */
};

/* Read and replay a whole list.  Returns 0; -EBADMSG (err: the field and
 * the offset: a truncated entry, a PCR over 23, a template name or data
 * over the limits, fields that do not fill the template data, an ASCII
 * line that is not "PCR HEX TEMPLATE FIELDS..."), -E2BIG (more than
 * KT_IMA_MAX_ENTRIES), -ENOPKG (a bank ktrust cannot compute), -ENOMEM, or
 * the hook's error.  An empty input is -EBADMSG: the kernel's list starts
 * with its boot_aggregate entry. */
KT_API int kt_ima_replay(const uint8_t *buf, size_t len, const struct kt_ima_opts *o,
                         struct kt_ima_summary *s, struct kt_error *err);

/* "ima", "ima-ng", ... for a template kind; "other". */
KT_API const char *kt_ima_template_name(enum kt_ima_template t);

enum kt_ima_ba_status {
    KT_IMA_BA_MATCH = 0,  /* H(PCR 0-7[, 8-9]) of the given values equals the entry */
    KT_IMA_BA_MISMATCH,
    KT_IMA_BA_NO_TPM,     /* the entry is all zeros: the kernel found no TPM */
    KT_IMA_BA_NO_VALUES,  /* the bank's PCRs 0-9 were not given: not checked */
    KT_IMA_BA_ABSENT,     /* no boot_aggregate entry */
};

/* The boot_aggregate against PCR values (ima_calc_boot_aggregate: the hash,
 * in the entry's algorithm, of PCRs 0-7 of that bank, and of 8 and 9 too
 * when it is not sha1), from a replayed event log or values read from a TPM
 * (either may be NULL; the replay is used first).  computed (may be NULL,
 * KT_EVLOG_MAX_DIGEST bytes) receives the aggregate of the values. */
KT_API enum kt_ima_ba_status kt_ima_boot_aggregate_check(const struct kt_ima_summary *s,
                                                         const struct kt_evlog_pcrs *replayed,
                                                         const struct kt_pcr_values *read,
                                                         uint8_t *computed);

#ifdef __cplusplus
}
#endif

#endif
