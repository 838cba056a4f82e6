/* verdict_print.h - print a verification result (CONTRACT.md "A verification
 * result") as one NDJSON object or as text, for every verify command
 * (verify-pkcs7, verify-module, verify-pe, scan, chain ...).
 *
 * Callers describe their result with these plain structs (pointers only,
 * nothing owned) and call vp_print(); vp_from_result() fills one from a
 * library result (kt_verify_file).
 */
#ifndef KT_CLI_VERDICT_PRINT_H
#define KT_CLI_VERDICT_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "json.h"
#include "ktrust/advanced.h"
#include "ktrust/verify.h"
#include "ktrust/x509.h"

/* One signature: struct kt_signer (ktrust/advanced.h), as the library
 * fills it for every result type. */

struct vp_result {
    const char *file;
    const char *type;             /* "module", "pkcs7", "pe" ... */
    int rc;                       /* the verdict: 0 / -errno */
    const struct kt_error *error; /* the reason (NULL or empty when trusted) */
    const struct kt_signer *sigs;
    size_t n_sigs;
    /* optional extra fields (NULL: omitted) */
    const char *compression;      /* modules: "xz", "zstd", "gzip", "none" */
    unsigned linux_since;         /* trusted only from this Linux (KT_LINUX), 0: any */
    const char *via;              /* trusted through .platform by this patch (kt_result_via) */
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

/* A library result (kt_verify_file) as a vp_result for file: its type,
 * verdict, reason, signatures and compression (pointers into res). */
void vp_from_result(struct vp_result *vr, const char *file, const struct kt_result *res);

/* The JSON object of one result (caller ends the NDJSON line: jw_newline). */
void vp_json(struct jw *w, const struct vp_result *r);
/* Text: "FILE: verdict (reason)" then one indented line per signature when
 * verbose. */
void vp_text(FILE *f, const struct vp_result *r, bool verbose);
/* JSON (one line) or text per `json`; nothing when quiet (text only). */
void vp_print(const struct vp_result *r, bool json, bool quiet, bool verbose);

/* Open the verification context the common options select (cli_open_ctx in
 * keyload.h).  On failure prints the error line and, with --json, one object
 * per input (files[n], of type: verdict null, the error) so that every input
 * has its line; returns the exit code (>0). */
int vp_open_ctx(const struct cli_common *co, struct kt_ctx **ctx, const char *type,
                char *const *files, int n);
/* cli_json_setup_failed (defined in verdict_print.c): cli.h. */

#endif
