/* ktrust/sys/result.h - the advanced tier: the details of a verification result (its signer tree, SBAT check, a signed variable update's payload).
 *
 * What the ktrust program needs beyond the stable API (ktrust.h), declared
 * and exported so that it (and any program that wants to do what it does)
 * needs no header from src/.  It may change between releases (a changed
 * signature is listed in the release notes, never changed silently), so a
 * program says that it accepts this by defining KT_ADVANCED_API before
 * including it (zstd's ZSTD_STATIC_LINKING_ONLY, libgit2's git2/sys/). */
#ifndef KTRUST_SYS_RESULT_H
#define KTRUST_SYS_RESULT_H

#ifndef KT_ADVANCED_API
#error "ktrust/sys/result.h is ktrust's advanced tier (it may change between releases): #define KT_ADVANCED_API before including it"
#endif

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
/* A Linux release as one number: KT_LINUX(6, 7); its parts are v >> 8 and
 * v & 255. */
#define KT_LINUX(major, minor) ((unsigned)(major) << 8 | (unsigned)(minor))

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
    unsigned linux_since;            /* KT_LINUX of the first kernel that takes
                                      * this signature's algorithms (SHA-3:
                                      * 6.7, ML-DSA: 7.0); 0: every one */
};

/* A result's top-level signatures (*n of them; the tree through nested). */
KT_API const struct kt_signer *kt_result_signers(const struct kt_result *res, size_t *n);
/* Modules: "xz", "zstd", "gzip", "none"; NULL for other types. */
KT_API const char *kt_result_compression(const struct kt_result *res);
/* A trusted result whose trusted signatures all use an algorithm only
 * recent kernels take (a sha3-256 module signature: 6.7, ML-DSA: 7.0): the
 * lowest such release (KT_LINUX), the kernel it is trusted from; 0 for
 * every kernel, and for a verdict other than trusted. */
KT_API unsigned kt_result_linux_since(const struct kt_result *res);
/* A module trusted only because the --kernel image is a distribution's
 * build whose mod_verify_sig also searches .platform (the UEFI db, MOK keys
 * not in .machine): that patch's name ("Debian's db-mok-keyring patch");
 * NULL for every other result (a mainline kernel refuses such a module). */
KT_API const char *kt_result_via(const struct kt_result *res);
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

/* Whether a PE result is a Unified Kernel Image (a .linux section systemd's
 * stub would take), told from the parse the verdict made. */
KT_API bool kt_result_uki(const struct kt_result *res);

/* A signed variable update's details (a result of type "variable"). */
struct kt_var_update {
    const char *name;          /* the variable: PK, KEK, db, dbx, dbt, dbr */
    bool parsed;               /* false: no EFI_VARIABLE_AUTHENTICATION_2 could be
                                * read (the fields below are 0) */
    uint32_t attributes;       /* the attribute set the signature covers (0: neither) */
    bool append;               /* it includes EFI_VARIABLE_APPEND_WRITE */
    int64_t timestamp;         /* the EFI_TIME, seconds since the epoch (UTC) */
    bool content_info_wrapped; /* a ContentInfo around the SignedData */
    const char *accepted_from; /* refused by the firmware modelled (EDK2 2022.11,
                                * Debian 12's OVMF) but accepted from this EDK2
                                * release on ("edk2-stable202302"), or NULL */
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

#ifdef __cplusplus
}
#endif
#endif
