/* esl.h - key sources made of certificate blobs: EFI signature lists (db,
 * dbx, KEK, PK, MokListRT, MokListXRT), the kernel's compiled-in list of
 * concatenated DER certificates, and shim's .vendor_cert section.
 *
 * Everything here parses in place: entries and spans point into the caller's
 * buffer, which must outlive them.  Nothing allocates except the builders.
 */
#ifndef KT_ESL_ESL_H
#define KT_ESL_ESL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "der/der.h"
#include "util/err.h"
#include "x509/x509.h" /* kt_cert_cb */

/* ---- EFI_SIGNATURE_LIST ------------------------------------------------ */

enum kt_esl_type {
    KT_ESL_X509,        /* EFI_CERT_X509_GUID: a DER certificate */
    KT_ESL_SHA256,      /* EFI_CERT_SHA256_GUID: an image (bin:) hash, 32 bytes */
    KT_ESL_X509_SHA256, /* EFI_CERT_X509_SHA256_GUID: a TBS (tbs:) hash + 16-byte revocation time */
    KT_ESL_X509_SHA384, /* ... 48-byte hash + 16-byte time */
    KT_ESL_X509_SHA512, /* ... 64-byte hash + 16-byte time */
    KT_ESL_OTHER,       /* any other SignatureType: data passed through as is */
};

/* The SignatureType GUIDs in on-disk (mixed-endian EFI_GUID) byte order. */
extern const uint8_t kt_esl_guid_x509[16];
extern const uint8_t kt_esl_guid_sha256[16];
extern const uint8_t kt_esl_guid_x509_sha256[16];
extern const uint8_t kt_esl_guid_x509_sha384[16];
extern const uint8_t kt_esl_guid_x509_sha512[16];

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
int kt_esl_foreach(const uint8_t *buf, size_t len, kt_esl_cb cb, void *ctx,
                   struct kt_error *err);

/* Cheap sniff: does buf look like signature lists (optionally prefixed as
 * above), i.e. does it start with a known SignatureType GUID?  Sizes are
 * not checked, so a malformed list still goes to kt_esl_foreach, which names
 * the bad field.  Used to pick a parser for "keyring add FILE". */
bool kt_esl_looks_like(const uint8_t *buf, size_t len);

/* "x509", "sha256", "x509_sha256", "x509_sha384", "x509_sha512", "other" */
const char *kt_esl_type_name(enum kt_esl_type t);

/* Build one EFI_SIGNATURE_LIST per certificate (the layout efitools'
 * cert-to-efi-sig-list writes), concatenated.  owner may be NULL (all-zero
 * GUID).  *out is malloc'd; the caller frees it.  n == 0 gives an empty
 * buffer (*out may be NULL, *len 0).  Errors: -EINVAL (a certificate too
 * large for a u32 list size), -ENOMEM. */
int kt_esl_build_x509(const kt_span *certs, size_t n, const uint8_t owner[16],
                      uint8_t **out, size_t *len);

/* Build one EFI_SIGNATURE_LIST of type t (KT_ESL_SHA256 or X509_SHA256/384/
 * 512) holding n digests (each of the type's hash size; the X509_SHA* time
 * of revocation is written as zero), as efitools' hash-to-efi-sig-list does.
 * owner may be NULL.  *out is malloc'd.  n == 0: empty output.  Errors:
 * -EINVAL (bad type), -ENOMEM. */
int kt_esl_build_hashes(enum kt_esl_type t, const uint8_t *const *digests, size_t n,
                        const uint8_t owner[16], uint8_t **out, size_t *len);

/* ---- the kernel's compiled-in certificate list ------------------------- */

/* Split concatenated DER certificates as the kernel's
 * load_certificate_list() does: each element's length comes from its outer
 * SEQUENCE header; fn gets (der, len, offset-in-buf) for each.  Zero padding
 * after the last certificate is ignored (the build aligns the list).
 * Errors: -EBADMSG with the offset for something that is not a SEQUENCE or a
 * length running past the end; fn's negative result.  An empty buffer gives 0
 * and no call. */
int kt_certlist_foreach(const uint8_t *buf, size_t len, kt_cert_cb cb, void *ctx,
                        struct kt_error *err);

/* ---- shim's .vendor_cert section --------------------------------------- */

struct kt_vendor_cert {
    kt_span authorized;      /* a DER certificate, or an ESL (see below); may be empty */
    kt_span deauthorized;    /* an ESL (vendor dbx); may be empty */
    bool authorized_is_esl;  /* true when `authorized` is signature lists */
    size_t authorized_offset, deauthorized_offset; /* absolute file offsets */
};

/* Parse a .vendor_cert section: four little-endian u32 (authorized size,
 * deauthorized size, authorized offset, deauthorized offset; offsets from the
 * section start), each part bounds-checked.  section_file_offset is where the
 * section's raw data lives in the file, for error offsets and the
 * *_offset fields.  Errors: -EBADMSG (short header, part outside the
 * section, authorized part neither DER certificate nor ESL). */
int kt_vendor_cert_parse(kt_span section, size_t section_file_offset,
                         struct kt_vendor_cert *out, struct kt_error *err);

/* Build a .vendor_cert section (the inverse of kt_vendor_cert_parse): the
 * 16-byte header, then authorized (a DER certificate or an ESL), then
 * deauthorized (an ESL; may be empty).  *out is malloc'd.  -EINVAL, -ENOMEM. */
int kt_vendor_cert_build(kt_span authorized, kt_span deauthorized, uint8_t **out, size_t *len);

#endif
