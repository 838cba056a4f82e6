/* verdict_print.h - print a verification result (CONTRACT.md "A verification
 * result") as one NDJSON object or as text, for every verify command
 * (verify-pkcs7, verify-module, verify-pe, scan, chain ...).
 *
 * Callers describe their result with these plain structs (pointers only,
 * nothing owned) and call vp_print().  vp_sig_from_pkcs7() fills a
 * signature from a verified kt_pkcs7 signer; PE code adds the image digest,
 * timestamp and nested signatures itself.
 */
#ifndef KT_CLI_VERDICT_PRINT_H
#define KT_CLI_VERDICT_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "crypto/crypto.h"
#include "json.h"
#include "policy/keyrings.h"
#include "pkcs7/pkcs7.h"
#include "x509/x509.h"

struct vp_timestamp {
    const char *kind;             /* "rfc3161", "countersignature" */
    int64_t time;
    const struct kt_x509 *signer; /* TSA certificate, or NULL */
    const struct kt_key *trusted_by;
    int verdict;                  /* 0 / -errno */
};

struct vp_sig {
    int index;
    enum kt_hash digest_alg;
    const uint8_t *digest;        /* NULL or digest_len 0: null */
    size_t digest_len;
    const struct kt_x509 *signer; /* the certificate, or NULL: then the id below */
    kt_span signer_issuer;        /* Name TLV of the signer id (issuer+serial) */
    kt_span signer_serial;        /* INTEGER content bytes */
    kt_span signer_skid;          /* SKID signer id */
    const struct kt_x509 *const *chain;
    size_t chain_len;
    const struct kt_key *trusted_by;
    int verdict;                  /* 0 / -errno */
    const char *reason;           /* NULL when trusted */
    bool time_invalid;            /* a chain certificate is outside its validity
                                   * period (printed as time_valid when chain_len) */
    const struct kt_x509 *time_invalid_cert; /* which one (may be NULL) */
    const struct vp_timestamp *timestamp; /* NULL: null */
    const struct vp_sig *nested;  /* nested signatures */
    size_t n_nested;
};

struct vp_result {
    const char *file;
    const char *type;             /* "module", "pkcs7", "pe" ... */
    int rc;                       /* the verdict: 0 / -errno */
    const struct kt_error *error; /* the reason (NULL or empty when trusted) */
    const struct vp_sig *sigs;
    size_t n_sigs;
    /* optional extra fields (NULL: omitted) */
    const char *compression;      /* modules: "xz", "zstd", "gzip", "none" */
    bool not_verified;            /* never verified (a setup error): verdict null */
    /* more fields a command adds (NULL: none): extra_json writes keys into
     * the object after `signatures`; extra_text prints lines after the
     * verdict line (text mode, verbose or not) */
    void (*extra_json)(struct jw *w, const void *ctx);
    void (*extra_text)(FILE *f, const void *ctx);
    const void *extra_ctx;
};

/* An input that could not be read: the one-line error on stderr and, with
 * --json, its object (verdict null, error ENOENT/EACCES/...), so that every
 * input has one JSON line. */
void vp_print_unreadable(const char *file, const char *type, int rc, const struct kt_error *e,
                         bool json);

/* Fill *s from a kt_pkcs7 signer after kt_pkcs7_verify/validate_trust. */
void vp_sig_from_pkcs7(struct vp_sig *s, const struct kt_pkcs7_signer *si, const char *reason);

/* The JSON object of one result (caller ends the NDJSON line: jw_newline). */
void vp_json(struct jw *w, const struct vp_result *r);
/* Text: "FILE: verdict (reason)" then one indented line per signature when
 * verbose. */
void vp_text(FILE *f, const struct vp_result *r, bool verbose);
/* JSON (one line) or text per `json`; nothing when quiet (text only). */
void vp_print(const struct vp_result *r, bool json, bool quiet, bool verbose);

/* --check-time[=T]: T is ISO 8601 UTC ("2026-12-02T22:14:16Z", or a date
 * "2026-12-02"); NULL means now.  Returns 0 or -1 (bad time). */
int vp_parse_time(const char *arg, int64_t *t);

/* Load the keyrings the common options select (cli_load_keyrings from
 * keyload.h).  On failure prints the error line and, with --json, one object
 * per input (files[n], of type: verdict null, the error) so that every
 * input has its line; returns the exit code (>0). */
struct kt_store;
int vp_load_keyrings(const struct cli_common *co, struct kt_keyrings **rings,
                     struct kt_store **store, const char *type, char *const *files, int n);
/* With --json: the objects for inputs never verified because a setup step
 * (store, --trust, --kernel) failed with rc/e. */
void cli_json_setup_failed(const struct cli_common *co, const char *type, char *const *files,
                           int n, int rc, const struct kt_error *e);
void vp_unload_keyrings(struct kt_keyrings *rings, struct kt_store *store);

#endif
