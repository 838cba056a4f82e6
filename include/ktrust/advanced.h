/* ktrust/advanced.h - the advanced tier: what the ktrust program needs
 * beyond the stable API, declared and exported so that the CLI (and any
 * program that wants to do what the CLI does) needs no header from src/.
 *
 * Stability: the stable API is ktrust.h's other headers.  What this header
 * declares may change between releases (a changed signature is listed in
 * the release notes, never changed silently); it is exported (KT_API) and
 * installed like the rest.
 *
 * Sections, one per subject; add a declaration to the section it belongs to.
 */
#ifndef KTRUST_ADVANCED_H
#define KTRUST_ADVANCED_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"
#include "ktrust/keyring.h"
#include "ktrust/span.h"
#include "ktrust/verify.h"
#include "ktrust/x509.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- verdicts, scan ---------------------------------------------------- */

struct kt_result; /* ktrust/verify.h */
struct kt_x509;   /* ktrust/x509.h */
struct kt_key;    /* ktrust/keyring.h */

/* Bytes inside a result (not owned). */
struct kt_bytes {
    const uint8_t *p;
    size_t len;
};

/* A signer's timestamp (PE countersignature or RFC 3161 token). */
struct kt_signer_ts {
    const char *kind;                /* "rfc3161", "countersignature" */
    int64_t time;
    const struct kt_x509 *signer;    /* the TSA certificate, or NULL */
    const struct kt_key *trusted_by;
    int verdict;                     /* 0 / -errno */
};

/* One signature of a result (pointers into the result or the context's
 * keyrings: valid while both are). */
struct kt_signer {
    int index;
    const char *digest_name;         /* "sha256" ...; NULL: none */
    const uint8_t *digest;           /* NULL or digest_len 0: none */
    size_t digest_len;
    const struct kt_x509 *signer;    /* the certificate, or NULL: then the id below */
    struct kt_bytes signer_issuer;   /* Name TLV of the signer id (issuer+serial) */
    struct kt_bytes signer_serial;   /* INTEGER content bytes */
    struct kt_bytes signer_skid;     /* SKID signer id */
    const struct kt_x509 *const *chain;
    size_t chain_len;
    const struct kt_key *trusted_by;
    int verdict;                     /* 0 / -errno */
    const char *reason;              /* NULL when trusted */
    bool time_invalid;               /* a chain certificate is outside its validity */
    const struct kt_x509 *time_invalid_cert;
    const struct kt_signer_ts *timestamp; /* NULL: none */
    const struct kt_signer *nested;  /* nested signatures (PE) */
    size_t n_nested;
    bool dates_ignored;              /* dates play no part in the verdict, none
                                      * is checked (signed variable updates:
                                      * firmware ignores them); time_invalid
                                      * is then only reported */
};

/* A result's top-level signatures (*n of them; the tree through nested). */
KT_API const struct kt_signer *kt_result_signers(const struct kt_result *res, size_t *n);
/* Modules: "xz", "zstd", "gzip", "none"; NULL for other types. */
KT_API const char *kt_result_compression(const struct kt_result *res);
/* A signer named by issuer and serial: the issuer as text ("CN=..., O=...")
 * into buf, and the serial as hex; returns buf. */
KT_API char *kt_signer_issuer_name(const struct kt_signer *s, char *buf, size_t cap);
KT_API char *kt_signer_serial_hex(const struct kt_signer *s, char *buf, size_t cap);

/* A PE result's SBAT check under the policy's sbat_level (false: none was
 * made): the image's .sbat, the level, the revoking pair (NULL: none) and
 * its outcome (0, -EKEYREJECTED, or the .sbat parse error). */
struct kt_sbat;
struct kt_sbat_entry;
struct kt_sbat_level;
KT_API bool kt_result_sbat(const struct kt_result *res, const struct kt_sbat **sbat,
                           const struct kt_sbat_level **level, const struct kt_sbat_entry **img,
                           const struct kt_sbat_entry **lvl, int *rc);

/* What a file given where certificates (or a kernel) are wanted is instead:
 * "a PE image", "a kernel module", "an empty file", "an ELF file", "a binary
 * file of another kind" ...; NULL for certificates, ESLs and text.  name
 * (may be NULL) tells compressed modules apart. */
KT_API const char *kt_ctx_wrong_kind(const uint8_t *p, size_t n, const char *name);

/* A signed variable update's details (a result of type "variable"). */
struct kt_var_update {
    const char *name;          /* the variable: PK, KEK, db, dbx, dbt, dbr */
    bool parsed;               /* false: no EFI_VARIABLE_AUTHENTICATION_2 could be
                                * read (the fields below are 0) */
    uint32_t attributes;       /* the attribute set the signature covers (0: neither) */
    bool append;               /* it includes EFI_VARIABLE_APPEND_WRITE */
    int64_t timestamp;         /* the EFI_TIME, seconds since the epoch (UTC) */
    bool content_info_wrapped; /* a ContentInfo around the SignedData */
    /* the payload's signature list entries, per type (SVN records apart) */
    size_t n_x509, n_sha256, n_x509_sha256, n_sha384, n_sha512, n_svn, n_other;
};
/* NULL when res is no variable update. */
KT_API const struct kt_var_update *kt_result_var(const struct kt_result *res);

/* One entry of an update's payload (EFI signature lists). */
struct kt_var_entry {
    const char *type;          /* "x509", "sha256", "x509_sha256", "sha384", "svn", ... */
    char owner[37];            /* the SignatureOwner GUID */
    const uint8_t *data;       /* SignatureData */
    size_t len;
    bool x509;                 /* data is a certificate (kt_x509_parse) */
    bool svn;                  /* an SVN record: */
    unsigned svn_version, svn_major, svn_minor;
    char svn_guid[37];         /* the application it versions */
};
/* fn for each entry of a parsed update's payload, in order; a non-zero
 * return stops.  Returns 0, what fn returned, or -EBADMSG for a malformed
 * payload (the entries before the fault were given). */
KT_API int kt_result_var_entries(const struct kt_result *res,
                                 int (*fn)(void *arg, const struct kt_var_entry *e), void *arg);
/* The bytes a parsed update's signature covers (name, vendor GUID,
 * attributes, timestamp, payload; the append form when it covers neither),
 * for checking with other tools.  *out is malloc'd.  Errors: -ENODATA (not
 * parsed), -ENOMEM. */
KT_API int kt_result_var_signed(const struct kt_result *res, uint8_t **out, size_t *len);

/* ---- keys, certificates, signature lists, SBAT ------------------------- */

/* wrap-key: a minimal unsigned PE32+ EFI application (subsystem 10) for
 * machine m (X64 or AA64) whose entry point returns EFI_UNSUPPORTED and
 * whose `.keylist` section holds the n DER certificates back to back.  *out
 * is malloc'd (caller frees).  Errors: -EINVAL, -ENOMEM, -EFBIG (too large). */
enum kt_pe_machine {
    KT_PE_MACHINE_I386 = 0x014c,
    KT_PE_MACHINE_X64 = 0x8664,
    KT_PE_MACHINE_AA64 = 0xaa64,
};
KT_API int kt_pe_build_keylist(const kt_span *certs, size_t n, enum kt_pe_machine m,
                               uint8_t **out, size_t *out_len);
/* The same with any section name (up to 64 bytes; past 8 it goes to the COFF
 * string table as "/4", like shim's .vendor_cert) holding the n parts back
 * to back: kt_pe_build_keylist is kt_pe_build_section(".keylist", ...). */
KT_API int kt_pe_build_section(const char *name, const kt_span *parts, size_t n,
                               enum kt_pe_machine m, uint8_t **out, size_t *out_len);

/* What a file given where certificates (or a kernel) are wanted is
 * instead: "a PE image", "a kernel module", "an empty file", "an ELF file",
 * "a binary file of another kind" ...; NULL for certificates, ESLs and text
 * (a broken one gets its parser's own error).  name: the file's name. */
KT_API const char *kt_ctx_wrong_kind(const uint8_t *p, size_t n, const char *name);

/* The builtin trusted keys compiled into a kernel image (bzImage with any
 * kernel compression, EFI zboot, a compressed vmlinux stream, or vmlinux):
 * cb gets each certificate of the list (der lives only during the call;
 * file_offset is in the decompressed vmlinux), once the answer is certain.
 * max_out bounds the decoded size (0: the default, 512 MiB); *comp (may
 * be NULL) is the payload's compression ("none", "gzip", "xz", "lzma",
 * "zstd", "lz4"), set once the header is read, also when an error follows.
 * Errors: -ENODATA (no builtin certificate list), -EBADMSG (not a kernel
 * image, corrupt stream; with the offset), -ENOPKG (an unsupported
 * compression or boot protocol), -E2BIG (over max_out: a bomb), -ENOMEM,
 * cb's negative result. */
KT_API int kt_kernel_certs_foreach(const uint8_t *img, size_t len, size_t max_out,
                                   kt_cert_cb cb, void *ctx, const char **comp,
                                   struct kt_error *err);

/* The keyring commands.  Add the keys of one file (certificates, a bundle,
 * a list, an EFI signature list, a signed update) to ring r, flagged
 * ephemeral (never saved) when run_only; source is "file:PATH"; *n_added
 * may be NULL.  Errors: the file's, the parser's, the keyring's. */
KT_API int kt_ctx_add_key_file(struct kt_keyrings *k, struct kt_keyring *r, const char *path,
                               enum kt_add_how how, bool run_only, size_t *n_added,
                               struct kt_error *err);
/* Does id match key?  id: its description, or hex (optionally "ab:cd",
 * "id:" partial, "ex:" exact) of its SKID, serial, SHA-256 or the kernel's
 * id 0 (serial then raw issuer), with the kernel's trailing-part matching. */
KT_API bool kt_key_matches_id(const struct kt_key *key, const char *id);
/* When the key was added (seconds since the epoch). */
KT_API int64_t kt_key_added(const struct kt_key *key);
/* Parse "none" | "trusted-only" | "signed-by:A[,B...]" (vouchers are
 * pointers into a malloc'd copy *store_buf the caller frees).  -EINVAL. */
KT_API int kt_restriction_parse(const char *s, enum kt_restrict *r, char **store_buf,
                                const char **vouchers, size_t cap, size_t *n_vouchers);

/* A keyring as one file, as `keyring export` writes it. */
enum kt_export_format {
    KT_EXPORT_PEM = 0,
    KT_EXPORT_DER, /* the certificates back to back (the kernel's list format) */
    KT_EXPORT_ESL, /* one EFI_CERT_X509 list; the blacklist adds one list per
                    * hash type (bin: sha256, tbs: x509_sha256/384/512) */
};
/* "pem", "der", "esl" to the format; -EINVAL for another name. */
KT_API int kt_export_format_parse(const char *name, enum kt_export_format *out);
/* The keys of r (in order), in format f, into a new buffer *out (*len bytes;
 * NULL when empty; free() it).  *n_hashes (may be NULL) counts the
 * blacklisted hashes written (ESL of the blacklist only).  -ENOMEM. */
KT_API int kt_keyring_export(const struct kt_keyrings *k, const struct kt_keyring *r,
                             enum kt_export_format f, uint8_t **out, size_t *len,
                             size_t *n_hashes);

/* The blacklist's hashes (besides its certificates), in add order. */
struct kt_blacklist_hash;
KT_API size_t kt_blacklist_hash_count(const struct kt_keyrings *k);
KT_API const struct kt_blacklist_hash *kt_blacklist_hash_at(const struct kt_keyrings *k,
                                                            size_t i);
/* "bin" (an image hash) or "tbs" (a certificate's TBS hash) */
KT_API const char *kt_blacklist_hash_kind(const struct kt_blacklist_hash *b);
/* "sha256", "sha384", "sha512" ... */
KT_API const char *kt_blacklist_hash_algorithm(const struct kt_blacklist_hash *b);
KT_API const uint8_t *kt_blacklist_hash_digest(const struct kt_blacklist_hash *b, size_t *len);
/* Where it came from ("file:PATH", "store" ...), or NULL. */
KT_API const char *kt_blacklist_hash_source(const struct kt_blacklist_hash *b);
/* Remove blacklist hashes named "bin:HEX" or "tbs:HEX" (the kernel's
 * blacklist key descriptions; the digest's length picks the algorithm).
 * Returns the count removed (0 or 1) or -EINVAL for a malformed id. */
KT_API int kt_blacklist_remove_hash(struct kt_keyrings *k, const char *id);

/* load-pe-key: the keys a signed PE image wraps (a `.keylist` section of
 * DER certificates, or shim's `.vendor_cert` with its vendor dbx). */
enum kt_wrap_kind { KT_WRAP_NONE = 0, KT_WRAP_KEYLIST, KT_WRAP_VENDOR_CERT };
/* ".keylist", ".vendor_cert" */
KT_API const char *kt_wrap_kind_name(enum kt_wrap_kind k);

#define KT_PE_LOAD_MAX_KEYS 256

struct kt_pe_result;
struct kt_pe_load_result {
    struct kt_pe_result *verify;     /* the verification (owned; may be NULL if unparsable) */
    enum kt_wrap_kind kind;
    const struct kt_key *added[KT_PE_LOAD_MAX_KEYS]; /* keys added to the target keyring */
    size_t n_added;
    size_t n_blacklisted;            /* vendor dbx entries added to the blacklist */
};

/* Verify buf as a PE image under pol (its purpose: uefi by default, or
 * kexec; allow_sha1, check_time, at_time) and, only if it is trusted, add
 * the keys it wraps to `target` flagged trusted and its vendor dbx to the
 * blacklist, in memory (a context's kt_ctx_commit saves them; on any error
 * discard the context: partial additions may be there).  Returns 0, the
 * verdict (-ENOKEY, -ENODATA, -EKEYREJECTED, -ELIBBAD, -ENOPKG ...) with
 * nothing added, -ELIBBAD (a trusted image that wraps no keys), -EPERM
 * (builtin and blacklist take no such keys), or a keyring's refusal.
 * Free res with kt_pe_load_result_free (also after an error). */
KT_API int kt_pe_load_keys_policy(const uint8_t *buf, size_t len, struct kt_keyrings *rings,
                                  struct kt_keyring *target, const struct kt_policy *pol,
                                  const char *source, struct kt_pe_load_result *res,
                                  struct kt_error *err);
KT_API void kt_pe_load_result_free(struct kt_pe_load_result *res);

/* ---- the boot chain, efivars, audit, updates --------------------------- */

#ifdef __cplusplus
}
#endif
#endif
