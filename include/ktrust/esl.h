/* ktrust/esl.h - EFI signature lists (db, dbx, KEK, PK, MokListRT,
 * MokListXRT, efivarfs files, signed updates): walk their entries, decode
 * dbx SVN records, build lists, and shim's .vendor_cert section.
 *
 * Parsing is in place: entries point into the caller's buffer, which must
 * outlive them.  Only the builders allocate.  Errors as in ktrust/error.h.
 */
#ifndef KTRUST_ESL_H
#define KTRUST_ESL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"
#include "ktrust/span.h"

#ifdef __cplusplus
extern "C" {
#endif

enum kt_esl_type {
    KT_ESL_X509,        /* EFI_CERT_X509_GUID: a DER certificate */
    KT_ESL_SHA256,      /* EFI_CERT_SHA256_GUID: an image (bin:) hash, 32 bytes */
    KT_ESL_X509_SHA256, /* EFI_CERT_X509_SHA256_GUID: a TBS (tbs:) hash + 16-byte revocation time */
    KT_ESL_X509_SHA384, /* ... 48-byte hash + 16-byte time */
    KT_ESL_X509_SHA512, /* ... 64-byte hash + 16-byte time */
    KT_ESL_OTHER,       /* any other SignatureType: data passed through as is */
};

struct kt_esl_entry {
    enum kt_esl_type type;
    const uint8_t *type_guid; /* the list's 16-byte SignatureType */
    const uint8_t *owner;     /* 16-byte SignatureOwner GUID */
    kt_span data;             /* SignatureData: for X509 the DER certificate
                                 (its own length; slot padding dropped), for
                                 SHA256 / X509_SHA* the hash only (without
                                 the X509_SHA* entries' trailing EFI_TIME) */
    size_t offset;            /* of data, absolute in the input buffer */
    size_t list_index;        /* 0-based index of the EFI_SIGNATURE_LIST */
    size_t entry_index;       /* 0-based index inside that list */
};

/* Called once per signature; a negative return stops the walk and is
 * returned by kt_esl_foreach. */
typedef int (*kt_esl_cb)(void *ctx, const struct kt_esl_entry *e);

/* Walk every EFI_SIGNATURE_LIST in buf (lists repeat to the end).  A 4-byte
 * efivarfs attribute prefix and an EFI_VARIABLE_AUTHENTICATION_2 header
 * (signed update) in front of the lists are recognised and skipped.  An
 * empty input (or one holding only the prefix) has no lists and returns 0.
 * Errors: -EBADMSG with the field and absolute offset (list size past the
 * end, header size odd / too large, SignatureSize 0 / <= 16 / not dividing
 * the list, an X509 entry not starting with a DER SEQUENCE that fits its
 * slot, a hash list whose SignatureSize is wrong for its type), or cb's
 * negative result.  Entries of lists before the bad one were delivered. */
KT_API int kt_esl_foreach(const uint8_t *buf, size_t len, kt_esl_cb cb, void *ctx,
                          struct kt_error *err);

/* Cheap sniff: does buf look like signature lists (optionally prefixed as
 * above), i.e. does it start with a known SignatureType GUID?  Sizes are
 * not checked, so a malformed list still goes to kt_esl_foreach, which names
 * the bad field. */
KT_API bool kt_esl_looks_like(const uint8_t *buf, size_t len);

/* "x509", "sha256", "x509_sha256", "x509_sha384", "x509_sha512", "other" */
KT_API const char *kt_esl_type_name(enum kt_esl_type t);

/* A 16-byte EFI_GUID (mixed-endian on disk) as "8be4df61-93ca-11d2-aa0d-
 * 00e098032b8c" into buf (>= 37 bytes).  Returns buf. */
KT_API char *kt_guid_str(const uint8_t g[16], char *buf);

/* dbx SVN records: in an EFI_CERT_SHA256 list whose SignatureOwner is
 * 9d132b6c-59d5-4388-ab1c-185cfcb2eb92, the 32 bytes are not an image hash
 * but {u8 version, 16-byte application GUID, u16 minor, u16 major, 11 zero
 * bytes} (Microsoft's dbx SVN data). */
struct kt_esl_svn {
    uint8_t version;
    uint8_t guid[16];  /* the application GUID, on-disk byte order */
    uint16_t minor, major;
    bool reserved_zero; /* the 11 trailing bytes are zero */
};

/* Is e an SVN record (a SHA256 entry owned by that GUID)? */
KT_API bool kt_esl_is_svn(const struct kt_esl_entry *e);
/* Decode an SVN record.  Returns 0, or -EINVAL when e is not one. */
KT_API int kt_esl_svn_parse(const struct kt_esl_entry *e, struct kt_esl_svn *out);

/* Build one EFI_SIGNATURE_LIST per certificate (the layout efitools'
 * cert-to-efi-sig-list writes), concatenated.  owner may be NULL (all-zero
 * GUID).  *out is malloc'd; the caller frees it.  n == 0 gives an empty
 * buffer (*out may be NULL, *len 0).  Errors: -EINVAL (a certificate too
 * large for a u32 list size), -ENOMEM. */
KT_API int kt_esl_build_x509(const kt_span *certs, size_t n, const uint8_t owner[16],
                             uint8_t **out, size_t *len);

/* Build one EFI_SIGNATURE_LIST of type t (KT_ESL_SHA256 or X509_SHA256/384/
 * 512) holding n digests (each of the type's hash size; the X509_SHA* time
 * of revocation is written as zero), as efitools' hash-to-efi-sig-list does.
 * owner may be NULL.  *out is malloc'd.  n == 0: empty output.  Errors:
 * -EINVAL (bad type), -ENOMEM. */
KT_API int kt_esl_build_hashes(enum kt_esl_type t, const uint8_t *const *digests, size_t n,
                               const uint8_t owner[16], uint8_t **out, size_t *len);

/* Build shim's .vendor_cert section: the 16-byte header (authorized size,
 * deauthorized size, authorized offset, deauthorized offset), then
 * authorized (a DER certificate or an ESL), then deauthorized (an ESL; may
 * be empty).  *out is malloc'd.  -EINVAL, -ENOMEM. */
KT_API int kt_vendor_cert_build(kt_span authorized, kt_span deauthorized, uint8_t **out,
                                size_t *len);

#ifdef __cplusplus
}
#endif
#endif
