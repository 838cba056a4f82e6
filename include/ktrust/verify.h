/* ktrust/verify.h - verify a file: one context, one policy, one result.
 *
 *     struct kt_ctx_opts o = {.store_mode = KT_CTX_STORE_READ, .store_path = path};
 *     struct kt_ctx *ctx;
 *     kt_ctx_open(&o, &ctx, NULL, err);         the keys that may vouch
 *     struct kt_policy pol = {0};               defaults: detect the type,
 *                                               its usual purpose, now
 *     struct kt_result *res;
 *     kt_verify_file(ctx, "shimx64.efi", &pol, &res, err);
 *     kt_result_verdict(res) ... kt_result_free(res);
 *     kt_ctx_free(ctx);
 *
 * A context is read-only while files are verified: several threads may call
 * kt_verify_file / kt_verify_buf on one context at once.
 */
#ifndef KTRUST_VERIFY_H
#define KTRUST_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"
#include "ktrust/keyring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the context: the keys a run trusts --------------------------------- */

struct kt_ctx;

enum kt_ctx_store_mode {
    KT_CTX_STORE_NONE = 0, /* no store: only the run-only keys below */
    KT_CTX_STORE_READ,     /* load the store read-only */
    KT_CTX_STORE_WRITE,    /* open it for writing (BEGIN IMMEDIATE), load it;
                            * kt_ctx_commit saves the keyrings */
};

/* A message for the caller to show (the library prints nothing itself). */
enum kt_ctx_msg {
    KT_CTX_MSG_STORE,   /* which store is used: "store: PATH (read, 3 keys)" */
    KT_CTX_MSG_WARNING, /* a --trust certificate skipped, and why */
    KT_CTX_MSG_INFO,    /* how the run-only keys were found: "--kernel F: builtin
                         * keys from the store's cache (same SHA-256)" */
};

struct kt_ctx_trust {
    const char *path;   /* certificates (DER, PEM, bundle, list) or an ESL */
    const char *option; /* names it in errors: "--trust" (NULL), "--trust-system" */
};

struct kt_ctx_opts {
    enum kt_ctx_store_mode store_mode;
    const char *store_path;  /* READ/WRITE: the store file */
    /* READ: a missing store means empty keyrings (else -ENOENT "no store at").
     * WRITE: a missing store is not created here: the context starts empty
     * and kt_ctx_commit creates it (a caller with nothing to save frees the
     * context without committing). */
    bool store_may_be_missing;
    bool store_make_dirs;    /* WRITE: create the store's missing directories */
    /* READ: with store_may_be_missing false, the "no store" error names how a
     * store is made (the verify commands' wording, else the keyring one's). */
    bool missing_store_hint_keyring;
    bool store_count_keys;   /* WRITE: the STORE message counts the keys loaded
                              * (READ always does) */
    /* keys added for this run only, to builtin (never saved to the store) */
    const struct kt_ctx_trust *trust;
    size_t n_trust;
    const char *kernel;      /* a kernel image whose compiled-in keys are added */
    /* with no store read: the kernel-key cache directory for kernel (as
     * kt_chain_opts.kernel_cache), or NULL: decoded; a store read keeps its
     * own (its kernel_keys table) */
    const char *kernel_cache;
    /* --keyring NAME: these keyrings vouch for every purpose in this run */
    const char *const *vouch;
    size_t n_vouch;
    void (*msg)(void *arg, enum kt_ctx_msg kind, const char *text);
    void *msg_arg;
};

/* Open a context: the store (per store_mode), then the run-only keys, then
 * the vouchers.  Returns 0 or -errno with err set; *out is NULL on failure
 * and nothing stays allocated.  *err_file (may be NULL) receives the store
 * path when the store itself is at fault, else NULL ("--trust FILE: ..."
 * errors name their file in err).  A --trust/--kernel file of the wrong kind
 * is -EMEDIUMTYPE; other problems with their content -EBADMSG, -ENOPKG,
 * -EKEYREJECTED; a --keyring name that does not exist -ESRCH. */
KT_API int kt_ctx_open(const struct kt_ctx_opts *o, struct kt_ctx **out, const char **err_file,
                       struct kt_error *err);
/* Add the run-only keys of opts (trust, kernel) to an open context; for a
 * writer that adds them after its own checks. */
KT_API int kt_ctx_add_run_keys(struct kt_ctx *ctx, const struct kt_ctx_opts *o,
                               struct kt_error *err);
/* A writer: save the keyrings and commit (creating a store that did not
 * exist).  Returns 0 or -errno; on failure the transaction is rolled back. */
KT_API int kt_ctx_commit(struct kt_ctx *ctx, struct kt_error *err);
/* A writer: forget every change (also what kt_ctx_free does uncommitted). */
KT_API void kt_ctx_rollback(struct kt_ctx *ctx);
KT_API void kt_ctx_free(struct kt_ctx *ctx);
/* The store file (NULL: none), and whether it was open (false: none or
 * missing). */
KT_API const char *kt_ctx_store_path(const struct kt_ctx *ctx);
KT_API bool kt_ctx_has_store(const struct kt_ctx *ctx);
/* The context's keyrings (ktrust/keyring.h): add keys, make or list
 * keyrings before verifying;
 * a writer's kt_ctx_commit saves what changed.  Owned by the context. */
KT_API struct kt_keyrings *kt_ctx_keyrings(struct kt_ctx *ctx);

/* ---- the policy: what a file is checked for ------------------------------ */

enum kt_verify_type {
    KT_VERIFY_AUTO = 0,  /* detect by content (and name, for .ko.xz ...) */
    KT_VERIFY_PE,        /* as an Authenticode PE image, whatever it looks like */
    KT_VERIFY_MODULE,    /* as a kernel module */
    KT_VERIFY_PKCS7,     /* as a PKCS#7 signature */
    KT_VERIFY_VAR,       /* as a signed EFI variable update (EFI_VARIABLE_AUTHENTICATION_2)
                          * of var_name, checked as firmware checks a SetVariable() */
};

enum kt_verify_purpose {
    KT_VERIFY_PURPOSE_DEFAULT = 0, /* the type's own: PE uefi, the rest module */
    KT_VERIFY_PURPOSE_MODULE,      /* builtin, secondary, machine */
    KT_VERIFY_PURPOSE_UEFI,        /* those and platform */
    KT_VERIFY_PURPOSE_KEXEC,       /* the kernel's kexec rule */
    KT_VERIFY_PURPOSE_BUILTIN,     /* builtin only */
};

/* An SBAT revocation level, as shim applies it (for kt_policy.sbat_level):
 * "original", "automatic", "latest" (shim's built-in levels), a file (an
 * SbatLevel text payload or an efivarfs dump), or "shim:FILE[:latest|
 * :automatic]" (the level inside a shim binary).  Returns 0 or -errno with
 * err set: the file's (-ENOENT, -EACCES ...), -ELIBBAD (the shim is no PE
 * image), -EBADMSG (no .sbatlevel section, a malformed level), -ENOMEM. */
struct kt_sbat_level;
KT_API int kt_sbat_level_open(const char *spec, struct kt_sbat_level **out,
                              struct kt_error *err);
KT_API void kt_sbat_level_close(struct kt_sbat_level *level);

/* The certificates that may authorise a signed variable update: the PK and
 * the KEK (kt_policy.var_keys).  kt_var_keys_add takes a file's contents:
 * DER/PEM certificates, or EFI signature lists (an efivarfs dump, a signed
 * update or plain; their X509 entries); errors -EBADMSG (nothing usable, a
 * bad list), -ENOMEM. */
struct kt_var_keys;
KT_API int kt_var_keys_new(struct kt_var_keys **out);
KT_API int kt_var_keys_add(struct kt_var_keys *keys, bool kek, const uint8_t *buf, size_t len,
                           struct kt_error *err);
KT_API void kt_var_keys_free(struct kt_var_keys *keys);
/* Whether name is a variable whose signed updates ktrust checks: PK, KEK,
 * db, dbx, dbt, dbr. */
KT_API bool kt_var_name_known(const char *name);

struct kt_policy {
    enum kt_verify_type type;
    enum kt_verify_purpose purpose;
    bool allow_sha1;             /* accept SHA-1 digests */
    bool check_time;             /* refuse a certificate outside its validity at at_time */
    int64_t at_time;             /* seconds since the epoch; 0: now */
    /* PE: an image whose .sbat this level revokes is rejected, as shim
     * rejects it (NULL: no SBAT check) */
    const struct kt_sbat_level *sbat_level;
    /* PKCS#7: the signed content of a detached signature ... */
    const uint8_t *detached;
    size_t detached_len;
    bool has_detached;
    /* ... or, by name, FILE for FILE.p7s / FILE.sig / FILE.p7 when it exists */
    bool pair_detached;
    /* a signed EFI variable update (type KT_VERIFY_VAR, or AUTO when the
     * file has an EFI_VARIABLE_AUTHENTICATION_2 header): the variable it
     * writes (kt_var_name_known) and the keys that may authorise it (NULL:
     * none, so no update is trusted) */
    const char *var_name;
    const struct kt_var_keys *var_keys;
};

/* ---- the result ---------------------------------------------------------- */

struct kt_result;

/* Verify the file at path under policy; *res (freed with kt_result_free)
 * holds the verdict, reason and signers.  Returns the verdict (0 trusted or
 * -errno, as kt_result_rc), or an error reading the file (-ENOENT, -EACCES
 * ...), when *res is NULL and err says why.  ctx may be NULL for a signed
 * variable update (checked against policy->var_keys only); for another
 * verified type the result is then -EINVAL. */
KT_API int kt_verify_file(const struct kt_ctx *ctx, const char *path,
                          const struct kt_policy *policy, struct kt_result **res,
                          struct kt_error *err);
/* The same for a file already in memory; buf must outlive *res.  name (may be
 * NULL) tells compressed modules apart and finds detached content. */
KT_API int kt_verify_buf(const struct kt_ctx *ctx, const char *name, const uint8_t *buf,
                         size_t len, const struct kt_policy *policy, struct kt_result **res,
                         struct kt_error *err);
KT_API void kt_result_free(struct kt_result *res);

/* 0 trusted, or -errno (-ENODATA unsigned, -ENOKEY untrusted, ...). */
KT_API int kt_result_rc(const struct kt_result *res);
KT_API enum kt_verdict kt_result_verdict(const struct kt_result *res);
/* Why not trusted ("" when trusted), and the byte offset (KT_NO_OFFSET). */
KT_API const struct kt_error *kt_result_error(const struct kt_result *res);
/* "pe", "module", "pkcs7", "x509", "esl", "kernel", "variable" (what was
 * verified). */
KT_API const char *kt_result_type(const struct kt_result *res);
/* Nothing ktrust verifies (unknown content, an empty file): not verified. */
KT_API bool kt_result_skipped(const struct kt_result *res);
/* Top-level signatures, each with its own verdict; the certificate of the
 * signer and the trusted key that vouched, as the kernel's key descriptions
 * ("Org: CN: hexid"; NULL when unknown / none). */
KT_API size_t kt_result_signer_count(const struct kt_result *res);
KT_API int kt_result_signer_rc(const struct kt_result *res, size_t i);
KT_API const char *kt_result_signer_name(const struct kt_result *res, size_t i);
KT_API const char *kt_result_signer_trusted_by(const struct kt_result *res, size_t i);

/* --check-time's T: ISO 8601 UTC ("2026-12-02T22:14:16Z", "2026-12-02");
 * NULL means now.  Returns 0, or -EINVAL for a bad time. */
KT_API int kt_parse_time(const char *arg, int64_t *t);

#ifdef __cplusplus
}
#endif

#endif
