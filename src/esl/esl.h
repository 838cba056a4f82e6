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
#include "ktrust/esl.h"
#include "util/err.h"
#include "x509/x509.h" /* kt_cert_cb */

/* ---- EFI_SIGNATURE_LIST ------------------------------------------------ */

/* enum kt_esl_type, struct kt_esl_entry, kt_esl_cb: ktrust/esl.h. */

/* The SignatureType GUIDs in on-disk (mixed-endian EFI_GUID) byte order. */
extern const uint8_t kt_esl_guid_x509[16];
extern const uint8_t kt_esl_guid_sha256[16];
extern const uint8_t kt_esl_guid_x509_sha256[16];
extern const uint8_t kt_esl_guid_x509_sha384[16];
extern const uint8_t kt_esl_guid_x509_sha512[16];

/* kt_esl_foreach, kt_esl_looks_like (used to pick a parser for "keyring
 * add FILE"), kt_esl_type_name, kt_esl_build_x509, kt_esl_build_hashes:
 * ktrust/esl.h. */

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

/* kt_vendor_cert_build (the inverse of kt_vendor_cert_parse): ktrust/esl.h. */

#endif
