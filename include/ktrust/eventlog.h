/* ktrust/eventlog.h - the TCG event log of a measured boot
 * (/sys/kernel/security/tpm0/binary_bios_measurements): parse it (the SHA-1
 * format and the crypto-agile one, every bank its Spec ID event lists),
 * decode and describe its events, replay every PCR of every bank, read the
 * PCR values a TPM holds and judge the replay against them, explain PCR 7
 * (which db entry, MOK or vendor certificate authorized each image), and
 * predict the PCRs another state gives (PCR 7, 4, 14: one recomputer per
 * source of truth, a result PCR by PCR).
 *
 * Parsing is in place: events point into the caller's buffer, which must
 * outlive the log; only the event array is allocated.  Errors as in
 * ktrust/error.h: a malformed log is -EBADMSG with the byte offset.
 */
#ifndef KTRUST_EVENTLOG_H
#define KTRUST_EVENTLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/efivars.h"
#include "ktrust/error.h"
#include "ktrust/span.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KT_EVLOG_MAX_BANKS 8   /* banks a Spec ID event may list */
/* Events a log may hold: a firmware log has hundreds; more is refused
 * (-E2BIG), so that memory stays bounded (#32): 16 MiB of events. */
#define KT_EVLOG_MAX_EVENTS 65536
#define KT_EVLOG_MAX_DIGEST 64 /* sha512 */
#define KT_EVLOG_PCRS 24

/* TCG algorithm registry ids of the banks ktrust replays. */
enum {
    KT_TPM_ALG_SHA1 = 0x0004,
    KT_TPM_ALG_SHA256 = 0x000b,
    KT_TPM_ALG_SHA384 = 0x000c,
    KT_TPM_ALG_SHA512 = 0x000d,
    KT_TPM_ALG_SM3_256 = 0x0012,
};

/* Event types (TCG PC Client Platform Firmware Profile). */
enum {
    KT_EV_PREBOOT_CERT = 0x0,
    KT_EV_POST_CODE = 0x1,
    KT_EV_NO_ACTION = 0x3,
    KT_EV_SEPARATOR = 0x4,
    KT_EV_ACTION = 0x5,
    KT_EV_EVENT_TAG = 0x6,
    KT_EV_S_CRTM_CONTENTS = 0x7,
    KT_EV_S_CRTM_VERSION = 0x8,
    KT_EV_CPU_MICROCODE = 0x9,
    KT_EV_PLATFORM_CONFIG_FLAGS = 0xa,
    KT_EV_TABLE_OF_DEVICES = 0xb,
    KT_EV_COMPACT_HASH = 0xc,
    KT_EV_IPL = 0xd,
    KT_EV_IPL_PARTITION_DATA = 0xe,
    KT_EV_NONHOST_CODE = 0xf,
    KT_EV_NONHOST_CONFIG = 0x10,
    KT_EV_NONHOST_INFO = 0x11,
    KT_EV_OMIT_BOOT_DEVICE_EVENTS = 0x12,
    KT_EV_EFI_EVENT_BASE = 0x80000000,
    KT_EV_EFI_VARIABLE_DRIVER_CONFIG = 0x80000001,
    KT_EV_EFI_VARIABLE_BOOT = 0x80000002,
    KT_EV_EFI_BOOT_SERVICES_APPLICATION = 0x80000003,
    KT_EV_EFI_BOOT_SERVICES_DRIVER = 0x80000004,
    KT_EV_EFI_RUNTIME_SERVICES_DRIVER = 0x80000005,
    KT_EV_EFI_GPT_EVENT = 0x80000006,
    KT_EV_EFI_ACTION = 0x80000007,
    KT_EV_EFI_PLATFORM_FIRMWARE_BLOB = 0x80000008,
    KT_EV_EFI_HANDOFF_TABLES = 0x80000009,
    KT_EV_EFI_PLATFORM_FIRMWARE_BLOB2 = 0x8000000a,
    KT_EV_EFI_HANDOFF_TABLES2 = 0x8000000b,
    KT_EV_EFI_VARIABLE_BOOT2 = 0x8000000c,
    KT_EV_EFI_HCRTM_EVENT = 0x80000010,
    KT_EV_EFI_VARIABLE_AUTHORITY = 0x800000e0,
    KT_EV_EFI_SPDM_FIRMWARE_BLOB = 0x800000e1,
    KT_EV_EFI_SPDM_FIRMWARE_CONFIG = 0x800000e2,
};

/* One bank of the log: its algorithm and digest size (from the Spec ID
 * event; the SHA-1 format has the one sha1 bank). */
struct kt_evlog_bank {
    uint16_t alg;
    uint16_t size;
    bool supported; /* ktrust can compute it (sha1/256/384/512, sm3_256) */
};

struct kt_evlog_digest {
    uint16_t alg;
    const uint8_t *p; /* into the log */
    size_t len;
};

struct kt_evlog_event {
    size_t index;  /* 0-based, in log order (the header event is 0) */
    size_t offset; /* of the event in the log */
    uint32_t pcr, type;
    size_t n_digests;
    struct kt_evlog_digest digest[KT_EVLOG_MAX_BANKS];
    kt_span data;   /* the event data */
    size_t data_offset;
};

struct kt_evlog {
    bool crypto_agile;     /* a Spec ID Event03 header: TCG_PCR_EVENT2 events follow */
    uint8_t spec_major, spec_minor, spec_errata, uintn_size;
    size_t n_banks;
    struct kt_evlog_bank bank[KT_EVLOG_MAX_BANKS];
    bool have_locality;    /* an EV_NO_ACTION StartupLocality event */
    uint8_t startup_locality;
    size_t n_events;       /* including the header event */
    struct kt_evlog_event *event; /* owned array; data points into the log */
};

/* Parse a whole log.  Returns 0, -EBADMSG (err: the field and the byte
 * offset: a truncated event, an event size past the end, a digest of an
 * algorithm the Spec ID event did not list, a malformed Spec ID event, a
 * PCR index over 23 on a measuring event), -E2BIG (more than
 * KT_EVLOG_MAX_EVENTS events), -ENOMEM.  An empty input is
 * -EBADMSG.  Free with kt_evlog_free (also after a failure). */
KT_API int kt_evlog_parse(const uint8_t *buf, size_t len, struct kt_evlog *log,
                          struct kt_error *err);
KT_API void kt_evlog_free(struct kt_evlog *log);

/* "sha1", "sha256", "sha384", "sha512", "sm3_256", or NULL for another id. */
KT_API const char *kt_evlog_alg_name(uint16_t alg);
/* The id of such a name, or 0. */
KT_API uint16_t kt_evlog_alg_from_name(const char *name);
/* "EV_EFI_VARIABLE_AUTHORITY" ..., or NULL for an unknown type. */
KT_API const char *kt_evlog_type_name(uint32_t type);
/* The event's digest in that bank, or NULL. */
KT_API const uint8_t *kt_evlog_event_digest(const struct kt_evlog_event *e, uint16_t alg,
                                            size_t *len);

/* ---- decoding ---- */

/* UEFI_VARIABLE_DATA (the data of EV_EFI_VARIABLE_* events). */
struct kt_evlog_var {
    uint8_t guid[16];
    char name[128];  /* UnicodeName as UTF-8 (non-ASCII as '?'), NUL-terminated */
    size_t name_chars;
    kt_span data;    /* VariableData, into the log */
};
/* Decode an event's data as UEFI_VARIABLE_DATA.  -EBADMSG (err with the
 * absolute offset in the log) when it is not one. */
KT_API int kt_evlog_var_parse(const struct kt_evlog_event *e, struct kt_evlog_var *v,
                              struct kt_error *err);

/* The device path of an EV_EFI_BOOT_SERVICES_* / RUNTIME_SERVICES_DRIVER
 * event (UEFI_IMAGE_LOAD_EVENT) as text into buf: known nodes as in the
 * UEFI spec's text form (PciRoot(0x0)/Pci(0x1,0x1)/HD(1,GPT,GUID,...)/
 * \EFI\BOOT\BOOTX64.EFI), other nodes as Path(TYPE,SUBTYPE,HEX).  *file
 * (may be NULL) receives the last file-path node ("" none).  Returns 0 or
 * -EBADMSG. */
KT_API int kt_evlog_devpath(const struct kt_evlog_event *e, char *buf, size_t cap, char *file,
                            size_t file_cap);

/* ---- an event described ---- */

enum kt_evlog_desc_kind {
    KT_EVD_RAW = 0,          /* bytes: nothing better is known */
    KT_EVD_VARIABLE,         /* a UEFI_VARIABLE_DATA (var_ok, var, holds), or one that
                              * does not decode (var_err) */
    KT_EVD_DEVICE_PATH,      /* an image load event: its device path as text */
    KT_EVD_SEPARATOR,        /* separator (4 bytes): normal, error, or another value
                              * (then its bytes are worth showing too) */
    KT_EVD_STARTUP_LOCALITY, /* EV_NO_ACTION StartupLocality: locality */
    KT_EVD_SPEC_ID,          /* EV_NO_ACTION "Spec ID Event03" */
    KT_EVD_STRING,           /* a string event's text (ASCII or UTF-16 read as ASCII) */
};

/* What a variable event's data holds. */
enum kt_evlog_var_holds {
    KT_EVV_DATA = 0,     /* nothing more known */
    KT_EVV_SECURE_BOOT,  /* SecureBoot's one byte */
    KT_EVV_AUTH_CERT,    /* an authority's EFI_SIGNATURE_DATA: a certificate (text: its subject) */
    KT_EVV_AUTH_HASH,    /* an authority's EFI_SIGNATURE_DATA: a SHA-256 hash */
    KT_EVV_ESL,          /* signature lists: n_x509, n_hash, n_other */
    KT_EVV_BAD_ESL,      /* a signature-list variable whose data is not one */
};

enum kt_evlog_separator { KT_EVS_NORMAL = 0, KT_EVS_ERROR, KT_EVS_OTHER };

struct kt_evlog_desc {
    enum kt_evlog_desc_kind kind;
    char text[1024];              /* STRING, DEVICE_PATH; AUTH_CERT: the subject */
    /* KT_EVD_VARIABLE */
    bool var_ok;
    struct kt_error var_err;      /* !var_ok: why it does not decode */
    struct kt_evlog_var var;
    bool sig_list;                /* the data is a signature list to list entry by entry */
    enum kt_evlog_var_holds holds;
    size_t n_x509, n_hash, n_other;
    enum kt_evlog_separator separator;
    unsigned locality;
};

/* What event e's data is, for a printer.  d points into the log. */
KT_API void kt_evlog_describe(const struct kt_evlog_event *e, struct kt_evlog_desc *d);

/* ---- replay ---- */

struct kt_evlog_pcrs {
    size_t n_banks;
    struct {
        uint16_t alg;
        uint16_t size;
        bool supported;                       /* replayed (else values are zero) */
        bool used[KT_EVLOG_PCRS];             /* an event measured into this PCR */
        uint8_t pcr[KT_EVLOG_PCRS][KT_EVLOG_MAX_DIGEST];
    } bank[KT_EVLOG_MAX_BANKS];
};

/* Replay every PCR of every bank: each starts at zero (PCR 0 at the
 * StartupLocality), and PCR = H(PCR || digest) for each event except
 * EV_NO_ACTION.  Returns 0, -ENOMEM. */
KT_API int kt_evlog_replay(const struct kt_evlog *log, struct kt_evlog_pcrs *out);

/* The hash of UEFI_VARIABLE_DATA {guid, name length, data length, UTF-16
 * name, data} in the algorithm alg: the digest a variable event carries.
 * name is ASCII.  out holds KT_EVLOG_MAX_DIGEST bytes; *len its size.
 * -ENOPKG for an algorithm ktrust cannot compute. */
KT_API int kt_evlog_var_digest(uint16_t alg, const uint8_t guid[16], const char *name,
                               const uint8_t *data, size_t data_len, uint8_t *out, size_t *len);

/* ---- the log's own integrity ---- */

/* An event whose data does not hash to its digest in one bank (the first
 * such bank): the data was altered after it was measured. */
struct kt_evlog_mismatch {
    size_t event_index;   /* as kt_evlog_event.index */
    size_t offset;        /* of the event in the log */
    size_t digest_offset; /* of the digest that does not match */
    uint32_t pcr, type;
    uint16_t alg;         /* the bank */
    bool zero_rule;       /* EV_NO_ACTION: the digest must be zeros */
    size_t len;
    uint8_t logged[KT_EVLOG_MAX_DIGEST];   /* the digest in the log */
    uint8_t expected[KT_EVLOG_MAX_DIGEST]; /* the data's hash (zeros for EV_NO_ACTION) */
};

/* Check event i's digests against its data, for the types whose digest is
 * defined over the data: EV_SEPARATOR, EV_ACTION, EV_EFI_ACTION,
 * EV_EFI_VARIABLE_DRIVER_CONFIG and EV_EFI_VARIABLE_AUTHORITY (the hash of
 * the whole data), EV_EFI_VARIABLE_BOOT/BOOT2 (of the data, or of its
 * VariableData alone as EDK2's Tcg2Dxe measures it), EV_NO_ACTION (zeros).
 * Banks ktrust cannot compute are not judged.  Returns 0 (consistent, or a
 * type of no such rule), 1 (*m filled for the first bank that differs),
 * -ENOMEM. */
KT_API int kt_evlog_event_check(const struct kt_evlog *log, size_t i,
                                struct kt_evlog_mismatch *m);
/* Every event checked: *out (malloc'd, free()) the mismatches in log order,
 * *n of them.  Returns 0 or -ENOMEM. */
KT_API int kt_evlog_check_digests(const struct kt_evlog *log, struct kt_evlog_mismatch **out,
                                  size_t *n);

/* ---- PCR values read from a TPM, and the replay judged against them ---- */

/* PCR values as read: each bank's algorithm, and which PCRs were given. */
struct kt_pcr_values {
    size_t n_banks;
    struct {
        uint16_t alg;
        bool have[KT_EVLOG_PCRS];
        uint8_t val[KT_EVLOG_PCRS][KT_EVLOG_MAX_DIGEST];
        size_t len[KT_EVLOG_PCRS];
    } bank[KT_EVLOG_MAX_BANKS];
};

/* Read PCR values from path: a directory of pcr-BANK/N files as the
 * kernel's sysfs has them (/sys/class/tpm/tpm0), one such pcr-BANK
 * directory, tpm2_pcrread YAML ("  sha256:" then "    7 : 0xHEX"), or
 * "BANK PCR HEX" lines.  Returns 0; -ENOENT, -EACCES ... (cannot open);
 * -EBADMSG (not one of those forms, a value that is not hex).  err's text
 * names the file at fault ("DIR/pcr-sha256/7: not a PCR value in hex"). */
KT_API int kt_pcrs_read(const char *path, struct kt_pcr_values *out, struct kt_error *err);

enum kt_pcr_status {
    KT_PCR_MATCH = 0,    /* the replay equals the value read */
    KT_PCR_MISMATCH,     /* it does not: the log is incomplete or the TPM was
                          * extended outside it; a prediction from it cannot be trusted */
    KT_PCR_NOT_IN_LOG,   /* read, not measured by the log, not at a reset value:
                          * extended later (by the OS: IMA, systemd) */
    KT_PCR_NOT_COMPUTED, /* a bank ktrust does not compute: not checked */
    KT_PCR_UNCHECKED,    /* measured by the log but not read (or read at a reset
                          * value the log does not measure): not checked */
};

/* One PCR of one bank the log measures or a value was read for. */
struct kt_pcr_check {
    uint16_t alg;
    unsigned index;
    enum kt_pcr_status status;
    bool in_log;          /* an event of the log measures it */
    bool read;            /* a value was read */
    size_t replayed_len;  /* 0: the bank is not computed */
    uint8_t replayed[KT_EVLOG_MAX_DIGEST];
    size_t read_len;
    uint8_t value[KT_EVLOG_MAX_DIGEST];
};

struct kt_pcr_tally {
    size_t match, mismatch;
    size_t not_in_log; /* read, not measured by the log */
    size_t not_read;   /* measured by the log, not compared */
};

/* The replay against the values read, bank by bank in the replay's order,
 * PCR by PCR: *out malloc'd (free()), *n entries, *t the counts.  0 or
 * -ENOMEM. */
KT_API int kt_evlog_pcrs_check(const struct kt_evlog_pcrs *replayed,
                               const struct kt_pcr_values *read, struct kt_pcr_check **out,
                               size_t *n, struct kt_pcr_tally *t);

/* ---- PCR 7 explained ---- */

enum kt_evlog_auth_source {
    KT_AUTH_FIRMWARE_DB = 0, /* firmware: a db entry verified an image */
    KT_AUTH_SHIM_CERT,       /* shim: its vendor certificate or a MOK (MokListRT) */
    KT_AUTH_SHIM_SBAT,       /* shim: the SbatLevel it enforced */
    KT_AUTH_OTHER,           /* another variable name */
};

struct kt_evlog_authority {
    size_t event_index;
    enum kt_evlog_auth_source source;
    char var[128];          /* the variable named: "db", "MokListRT", "SbatLevel", ... */
    uint8_t var_guid[16];
    bool has_owner;         /* data is an EFI_SIGNATURE_DATA: owner GUID + value */
    uint8_t owner[16];
    kt_span value;          /* certificate DER, hash, or the whole data */
    bool is_cert;           /* value parsed as a certificate */
    char subject[256];      /* its subject ("" otherwise) */
    char description[320];  /* the kernel-style key description ("" otherwise) */
    uint8_t cert_sha256[32];
    bool ms_uefi_ca_2011;   /* Microsoft Corporation UEFI CA 2011 (third-party CA:
                             * shims and option ROMs) */
    bool ms_uefi_ca_2023;   /* Microsoft UEFI CA 2023 / Option ROM UEFI CA 2023 */
    long image_event;       /* the first image measured after it (-1: none) */
    uint32_t image_type;    /* its event type (APPLICATION, DRIVER ...) */
    char image[512];        /* its device path as text */
};

/* Every EV_EFI_VARIABLE_AUTHORITY event of the log, decoded, into a
 * malloc'd array (*out, *n; free with free()).  Returns 0, -ENOMEM, or
 * -EBADMSG for an authority event that is not a UEFI_VARIABLE_DATA. */
KT_API int kt_evlog_authorities(const struct kt_evlog *log, struct kt_evlog_authority **out,
                                size_t *n, struct kt_error *err);

/* ---- the variables in force against the ones measured ---- */

enum kt_evlog_varcmp {
    KT_VARCMP_SAME = 0,  /* the logged data is the variable's data now */
    KT_VARCMP_CHANGED,   /* both present, different */
    KT_VARCMP_ABSENT,    /* not in the variable state (unknown now) */
    KT_VARCMP_UNREADABLE,
};

struct kt_evlog_varcheck {
    size_t event_index;
    char name[16];             /* SecureBoot, PK, KEK, db, dbx, dbt, dbr */
    enum kt_efivar_id id;
    enum kt_evlog_varcmp result;
    size_t logged_len, now_len;
};

/* For each PCR 7 EV_EFI_VARIABLE_DRIVER_CONFIG event of a Secure Boot
 * variable, compare the logged data with vars.  *out malloc'd (free()).
 * Returns 0, -ENOMEM, -EBADMSG. */
KT_API int kt_evlog_check_vars(const struct kt_evlog *log, const struct kt_efivars *vars,
                               struct kt_evlog_varcheck **out, size_t *n, struct kt_error *err);

/* ---- prediction: the log replayed with events recomputed, PCR by PCR ---- */

enum kt_predict_how {
    KT_PRED_KEPT = 0,      /* the logged digest, unchanged */
    KT_PRED_RECOMPUTED,    /* recomputed from new data, equal to the logged digest */
    KT_PRED_CHANGED,       /* recomputed from new data, different */
    KT_PRED_KEPT_UNKNOWN,  /* kept: the new state could not be worked out (note says why) */
    KT_PRED_REMOVED,       /* the next boot does not measure it (setup mode: no image is
                            * verified; MokListTrusted set; dbt deleted): left out of the
                            * replay */
};

/* Why an event was kept, for advice the application words (the note says
 * it without naming the application's options). */
enum kt_predict_hint {
    KT_PRED_HINT_NONE = 0,
    KT_PRED_HINT_NO_ESP,         /* a db authority: no ESP (or no variables) to find the
                                  * db entry that verifies the image */
    KT_PRED_HINT_NO_SBAT_LEVEL,  /* shim's SbatLevel: none in the new state, none given */
};

struct kt_evlog_predicted {
    size_t event_index; /* the log's event; inserted: the image it precedes */
    bool inserted;      /* a new EV_EFI_VARIABLE_AUTHORITY event the log does not
                         * have: firmware logs each db entry once, and after the change
                         * an image is verified by an entry not logged before it; shim
                         * logs each MokListRT entry once, per image it verifies */
    char variable[16];  /* inserted: the variable the new event names ("db", "MokListRT",
                         * "dbt"; "" for an EV_IPL) */
    enum kt_predict_how how;
    enum kt_predict_hint hint;
    char note[320];
    /* the predicted digest in each bank of the log (log->bank[b]); a bank
     * ktrust cannot compute keeps the logged digest */
    uint8_t digest[KT_EVLOG_MAX_BANKS][KT_EVLOG_MAX_DIGEST];
    uint32_t type;      /* inserted: its event type (0: EV_EFI_VARIABLE_AUTHORITY); an
                         * EV_IPL (a UKI section the stub measures) comes after
                         * event_index, the last of the events it follows */
};

/* One image replaced: the path the log names (`\EFI\BOOT\BOOTX64.EFI`) and
 * the file to predict with instead. */
struct kt_evlog_image_swap {
    const char *log_path;
    const char *file;
};

struct kt_evlog_predict_opts {
    const struct kt_efivars *vars;   /* the state after the change (NULL: the logged one) */
    /* the SbatLevel payload shim would start from (NULL: unchanged) */
    const uint8_t *sbat_level;
    size_t sbat_level_len;
    const char *esp;                 /* the ESP, for the images' authorities (NULL: keep) */
    /* boot images in place of those the log shows (new binaries to install:
     * check-update/unseal-check --install), looked up before esp */
    const struct kt_evlog_image_swap *swap;
    size_t n_swap;
    const char *uki;                 /* the UKI that boots next: PCR 11 (NULL: not predicted) */
    /* the options of the systemd-boot Type #1 entry that starts uki (PCR 12;
     * NULL: a Type #2 entry, the UKI's own .cmdline) */
    const char *uki_options;
    /* the variables the change is made to (updates applied to them give
     * vars), or NULL: vars are themselves the state predicted (a saved
     * root; keys re-enrolled since the boot).  With before, a log that is
     * another machine's is refused (kt_evlog_other_machine). */
    const struct kt_efivars *before;
};

/* Is the log another machine's than the one the prediction o starts from?
 * With o->before, when the change (o->before to o->vars) writes neither PK
 * nor KEK, and the PK and KEK the log measured both differ from
 * o->before's: one machine changes both only by being re-provisioned,
 * itself a change to predict.  1 yes (why says so, one line), 0 no or
 * cannot tell (no o->before, a change that writes PK or KEK), -ENOMEM.
 * kt_evlog_predict refuses such a prediction (-EXDEV, err says why);
 * a command that refuses before predicting asks here. */
KT_API int kt_evlog_other_machine(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                                  char *why, size_t cap);

/* A prediction (opaque): the log replayed ("now"), and each predicted PCR
 * replayed again from its events, recomputed where a source of truth gives
 * them ("after").  The PCRs predicted are those whose recomputers have what
 * they need: PCR 7 always (the Secure Boot variable events with vars' data,
 * each firmware db authority with the db entry of vars that verifies the
 * image the log shows after it, kt_chain_firmware on that file under esp,
 * db authority events firmware would add, shim's SbatLevel event with the
 * level it would enforce); PCR 4 with esp (each boot application found on
 * the ESP with its Authenticode digests); PCR 14 with vars (shim's EV_IPL
 * MokList, MokListX, MokListTrusted events with the hash of MokListRT,
 * MokListXRT, MokListTrustedRT); PCR 11 with uki (systemd-stub's EV_IPL
 * events: each measured section's name and contents, ktrust/uki.h).  An event no recomputer claims keeps its
 * logged digest; what cannot be worked out is kept and said.  More PCRs may
 * be predicted in later releases: walk kt_evlog_prediction_n_pcrs. */
struct kt_evlog_prediction;

/* Predict (o NULL: nothing changes).  0, -ENOMEM, -EBADMSG (a variable event
 * of a predicted PCR that is no UEFI_VARIABLE_DATA), -EXDEV (o->before is
 * another machine's than the log's: kt_evlog_other_machine).  *out is allocated
 * whatever the result: free it with kt_evlog_prediction_free. */
KT_API int kt_evlog_predict(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                            struct kt_evlog_prediction **out, struct kt_error *err);
KT_API void kt_evlog_prediction_free(struct kt_evlog_prediction *p);
/* The UKI PCR 11 and 12 (and PCR 4's UKI) were predicted from and why
 * (ktrust/sdboot.h's kt_sdboot_pick_uki: the one given in the options, or
 * systemd-boot's next entry on the options' ESP), or NULL when none was.
 * Owned by p. */
struct kt_sdboot_next_uki;
KT_API const struct kt_sdboot_next_uki *kt_evlog_prediction_uki(const struct kt_evlog_prediction *p);
/* Every PCR of every bank replayed from the log, and the same with the
 * predicted PCRs replayed from their recomputed events. */
KT_API const struct kt_evlog_pcrs *kt_evlog_prediction_now(const struct kt_evlog_prediction *p);
KT_API const struct kt_evlog_pcrs *kt_evlog_prediction_after(const struct kt_evlog_prediction *p);
/* The PCRs predicted: how many, and the k-th (PCR 7 first, then 4, 14, in
 * the order of the library's recomputers; KT_EVLOG_PCRS past the end). */
KT_API size_t kt_evlog_prediction_n_pcrs(const struct kt_evlog_prediction *p);
KT_API unsigned kt_evlog_prediction_pcr(const struct kt_evlog_prediction *p, size_t k);
/* Is pcr predicted?  Does it change (after differs from now in a bank)? */
KT_API bool kt_evlog_prediction_has(const struct kt_evlog_prediction *p, unsigned pcr);
KT_API bool kt_evlog_prediction_changes(const struct kt_evlog_prediction *p, unsigned pcr);
/* What pcr's prediction does ("each boot application found on the ESP
 * measured again") and, into *source (may be NULL), its source of truth in
 * a few words ("other boot binaries"); NULL when pcr is not predicted. */
KT_API const char *kt_evlog_prediction_what(const struct kt_evlog_prediction *p, unsigned pcr,
                                            const char **source);
/* pcr's events in log order, inserted ones in their place: how many, and
 * the k-th (NULL past the end).  Valid until the prediction is freed. */
KT_API size_t kt_evlog_prediction_n_events(const struct kt_evlog_prediction *p, unsigned pcr);
KT_API const struct kt_evlog_predicted *kt_evlog_prediction_event(
    const struct kt_evlog_prediction *p, unsigned pcr, size_t k);

/* PCR 7 in one bank, the last boot's and the next boot's with variables
 * `vars` (kt_evlog_predict), for an outlook line: the SHA-256 bank when the
 * log has it, else its first.  Returns 1 when predicted, 0 when the log has
 * no bank to replay, -ENOMEM. */
struct kt_evlog_pcr7_outlook {
    char bank[16];
    char last[2 * KT_EVLOG_MAX_DIGEST + 1], next[2 * KT_EVLOG_MAX_DIGEST + 1]; /* hex */
    bool changes;  /* in any replayed bank */
};
KT_API int kt_evlog_pcr7_outlook(const struct kt_evlog *log, const struct kt_efivars *vars,
                                 const char *esp, struct kt_evlog_pcr7_outlook *out);
/* The same from a prediction already made (plan-updates shares one per
 * state with the sealed secrets' check): 1, or 0 (no bank). */
KT_API int kt_evlog_pcr7_outlook_of(const struct kt_evlog_prediction *p,
                                    struct kt_evlog_pcr7_outlook *out);

#ifdef __cplusplus
}
#endif
#endif
