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

#ifdef __cplusplus
extern "C" {
#endif

/* ---- files ------------------------------------------------------------- */

#define KT_FILE_MAX_SIZE ((size_t)4 << 30) /* 4 GiB */

/* A whole file, read-only: mapped (regular files) or read (pipes, special
 * files).  Valid until kt_file_close. */
struct kt_file {
    const uint8_t *data;
    size_t len;
    int mapped; /* 1: munmap, 0: free */
};

/* Map or read `path` (`-` is standard input).  Errors: -ENOENT, -EACCES,
 * -EISDIR, -EFBIG (over KT_FILE_MAX_SIZE), -EIO, with a detail. */
KT_API int kt_file_open(const char *path, struct kt_file *f, struct kt_error *err);
KT_API void kt_file_close(struct kt_file *f);

/* Write a whole file atomically (temp file + fsync + rename). */
KT_API int kt_file_write_atomic(const char *path, const void *data, size_t len,
                                struct kt_error *err);

/* ---- errors and formatting --------------------------------------------- */

/* Lower-case hex of p[0..len) into out (2*len+1 bytes); returns out. */
KT_API char *kt_hex(const uint8_t *p, size_t len, char *out);

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

/* The one directory walker (scan, audit's modules, check-update): each
 * path in the order given, each directory in name order (strcmp), depth
 * first; symbolic links are followed when named as a path, and inside
 * directories only with follow_symlinks; directory cycles are reported,
 * never followed. */
enum kt_walk_kind {
    KT_WALK_FILE,       /* a regular file */
    KT_WALK_UNREADABLE, /* a directory or file that could not be read or stat'ed */
    KT_WALK_LOOP,       /* a directory cycle (symbolic link loop): not followed */
    KT_WALK_DANGLING,   /* a symbolic link to nothing */
};

struct kt_walk_entry {
    enum kt_walk_kind kind;
    const char *path;  /* the path given, then /name/name... */
    const char *name;  /* its last component */
    int depth;         /* 0: a path given; 1: in it; ... */
    uint64_t size;     /* FILE: its size */
    int error;         /* UNREADABLE: the errno */
    bool is_dir;       /* UNREADABLE: a directory that could not be read */
};

struct kt_walk_opts {
    bool follow_symlinks;
    unsigned max_depth;          /* 0: none; else directories deeper are not read */
    volatile sig_atomic_t *stop; /* NULL, or set non-zero to stop early */
};

/* fn gets every regular file and every problem met (directories, symbolic
 * links not followed and special files are not handed on); a non-zero
 * return stops the walk.  Returns 0 or what fn returned.  opts may be NULL. */
typedef int (*kt_walk_fn)(void *arg, const struct kt_walk_entry *e);
KT_API int kt_walk(const char *const *paths, size_t n_paths, const struct kt_walk_opts *opts,
                   kt_walk_fn fn, void *arg);

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

/* ---- the boot chain, efivars, audit, updates --------------------------- */

#ifdef __cplusplus
}
#endif
#endif
