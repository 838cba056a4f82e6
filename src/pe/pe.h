/* pe.h - PE/COFF images: parsing, the attribute certificate table, the
 * Authenticode image digest, and a minimal PE32+ writer for wrap-key.
 *
 * kt_pe_parse() reads a PE32 or PE32+ image in place: the caller's buffer
 * must outlive the result.  Every offset and size in the headers is checked
 * against the file; structural problems are -ELIBBAD (malformed, exit 4)
 * with a detail naming the field and its byte offset.
 *
 * Rules beyond the kernel's pefile_parse_binary (see REFERENCE.md, "Hard
 * cases"): sections whose raw data overlap each other or run past the end of
 * the file are malformed; the certificate table must start at or after the
 * end of all section raw data and end exactly at the end of the file.  A "/n"
 * long section name is resolved only from bytes the Authenticode digest
 * covers (the string table's size field and the name): one read from the
 * certificate table or a gap between sections, which can change after
 * signing, makes the image malformed.
 */
#ifndef KT_PE_PE_H
#define KT_PE_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/crypto.h"
#include "der/der.h"

/* enum kt_pe_machine: ktrust/advanced.h. */

struct kt_pe_section {
    char name[64];         /* NUL-terminated; "/n" long names resolved through the COFF
                            * string table (see kt_pe_parse) */
    uint32_t vaddr, vsize; /* VirtualAddress, VirtualSize */
    uint32_t raw_off;      /* PointerToRawData */
    uint32_t raw_size;     /* SizeOfRawData */
    uint32_t characteristics;
    size_t header_off;     /* file offset of this section header */
};

struct kt_pe {
    const uint8_t *buf;    /* the image (not owned) */
    size_t len;
    uint16_t machine;
    bool pe32plus;         /* PE32+ (magic 0x20b) vs PE32 (0x10b) */
    uint16_t subsystem;
    size_t pe_off;         /* offset of "PE\0\0" */
    size_t opt_off;        /* offset of the optional header */
    size_t checksum_off;   /* offset of the CheckSum field (4 bytes) */
    uint32_t checksum;
    uint32_t header_size;  /* SizeOfHeaders */
    uint32_t n_dirs;       /* NumberOfRvaAndSizes (as used: <= 16) */
    size_t dirs_off;       /* offset of data directory 0 */
    size_t certdir_off;    /* offset of directory entry 4 (8 bytes); 0 if n_dirs < 5 */
    uint32_t cert_off;     /* certificate table: a file offset */
    uint32_t cert_len;     /* 0: no table (unsigned) */
    size_t sections_end;   /* end of the last section's raw data (or of the headers) */
    size_t n_sections;
    struct kt_pe_section *sections; /* in header order */
};

/* Parse a PE image.  *out (free with kt_pe_free) points into buf.
 * Errors: -ELIBBAD with a detail (field, offset), -ENOMEM. */
int kt_pe_parse(const uint8_t *buf, size_t len, struct kt_pe **out, struct kt_error *err);
void kt_pe_free(struct kt_pe *pe);

/* Find a section by name (".keylist", ".vendor_cert") and return its raw
 * data, limited to min(VirtualSize, SizeOfRawData) when VirtualSize is set.
 * Returns 0, or -ENOENT if there is no such section. */
int kt_pe_find_section(const struct kt_pe *pe, const char *name, kt_span *data);

/* One WIN_CERTIFICATE entry of the attribute certificate table. */
struct kt_pe_cert {
    size_t offset;         /* file offset of the entry header */
    uint32_t length;       /* dwLength */
    uint16_t revision;     /* 0x0200 */
    uint16_t type;         /* 0x0002 WIN_CERT_TYPE_PKCS_SIGNED_DATA */
    kt_span pkcs7;         /* the PKCS#7 TLV, its length from its own ASN.1 header */
};

#define KT_PE_MAX_CERTS 64

/* Walk the certificate table: every entry must have revision 0x0200, type
 * PKCS_SIGNED_DATA, a length covering its header and a whole PKCS#7 element,
 * only zero padding after the PKCS#7 up to the 8-byte boundary, and the
 * rounded lengths must add up to the directory size.
 * certs: caller array of `cap` entries; *n receives the count (0: unsigned).
 * Errors: -ELIBBAD (malformed table), -EBADMSG (PKCS#7 header unreadable). */
int kt_pe_cert_table(const struct kt_pe *pe, struct kt_pe_cert *certs, size_t cap, size_t *n,
                     struct kt_error *err);

/* The Authenticode image digest with several hashes in one pass: headers
 * without the CheckSum and certificate-directory entry (header range clipped
 * at the lowest PointerToRawData of sections with data: the UPX rule), the
 * sections in file-offset order (empty ones skipped), then, as the kernel,
 * shim and EDK2 do, the bytes from offset SumOfBytesHashed (the header
 * range's and the sections' sizes added up) up to the certificate table (or
 * the end of the file when there is none).  Gaps between sections are not
 * hashed; with gaps, the end of the last section is hashed twice.
 * out[i] receives hashes[i]'s digest.  Errors: -ENOPKG, -ENOMEM, -EBADMSG
 * (a certificate table larger than what follows SumOfBytesHashed:
 * overlapping sections, refused as EDK2 refuses it). */
int kt_pe_image_digest(const struct kt_pe *pe, const enum kt_hash *hashes, size_t n,
                       uint8_t out[][KT_HASH_MAX_SIZE], struct kt_error *err);

/* Does the Authenticode image digest (kt_pe_image_digest's ranges) cover
 * every byte of [off, off+len)?  1 yes, 0 no, or kt_pe_image_digest's
 * errors.  The certificate table, the CheckSum and certificate-directory
 * fields, and gaps between sections (but the part of them the trailing range
 * may hash) are not covered: their bytes can change after signing. */
int kt_pe_digest_covers(const struct kt_pe *pe, size_t off, size_t len, struct kt_error *err);

/* The PE checksum (as in the CheckSum field) computed over the image. */
uint32_t kt_pe_compute_checksum(const uint8_t *buf, size_t len, size_t checksum_off);

/* kt_pe_build_keylist, kt_pe_build_section (wrap-key's images):
 * ktrust/advanced.h. */

#endif
