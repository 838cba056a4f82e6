/* authvar.h - signed EFI variable updates (EFI_VARIABLE_AUTHENTICATION_2),
 * checked as EDK2's AuthService.c checks a SetVariable() of db, dbx, dbt,
 * dbr, KEK or PK (REFERENCE.md "Revocation").
 *
 *   kt_authvar_parse()    EFI_TIME + WIN_CERTIFICATE_UEFI_GUID + PKCS#7 + payload
 *   kt_authvar_signed()   the bytes the signature covers (name, GUID,
 *                         attributes, timestamp, payload)
 *   kt_authvar_verify()   signature (append and replace attribute sets),
 *                         authority (PK / KEK certificates), payload format
 *
 * Parsed spans point into the caller's buffer.
 */
#ifndef KT_AUTHVAR_AUTHVAR_H
#define KT_AUTHVAR_AUTHVAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/vars.h"
#include "der/der.h"
#include "esl/esl.h"
#include "pkcs7/pkcs7.h"
#include "util/err.h"
#include "x509/x509.h"

/* KT_EFI_VAR_* (the attributes): boot/vars.h, the variable catalogue */

struct kt_efi_time {
    uint16_t year;
    uint8_t month, day, hour, minute, second, pad1;
    uint32_t nanosecond;
    int16_t timezone;
    uint8_t daylight, pad2;
};

struct kt_authvar {
    struct kt_efi_time time;
    kt_span time_raw;           /* the 16 bytes, as signed */
    int64_t timestamp;          /* seconds since the epoch (UTC) */
    uint32_t cert_len;          /* WIN_CERTIFICATE dwLength */
    kt_span pkcs7;              /* the PKCS#7 element (raw SignedData or ContentInfo) */
    size_t pkcs7_offset;
    bool content_info_wrapped;  /* a ContentInfo around SignedData (EDK2 refuses it) */
    kt_span payload;            /* what follows: EFI signature lists */
    size_t payload_offset;
};

/* Does buf start with an EFI_VARIABLE_AUTHENTICATION_2 header (a
 * WIN_CERTIFICATE_UEFI_GUID of revision 0x0200, type 0x0EF1 at byte 16)? */
bool kt_authvar_looks_like(const uint8_t *buf, size_t len);

/* Parse one signed update.  EFI_TIME: Pad1, Nanosecond, TimeZone, Daylight,
 * Pad2 must be 0 (firmware refuses others), month/day/time in range;
 * WIN_CERTIFICATE_UEFI_GUID: dwLength >= 24 and inside the file, revision
 * 0x0200, type 0x0EF1 (WIN_CERT_TYPE_EFI_GUID), CertType the PKCS#7 GUID;
 * the PKCS#7 DER element must fill CertData exactly.  Errors: -EBADMSG with
 * the field and offset; -ENODATA when buf has no such header. */
int kt_authvar_parse(const uint8_t *buf, size_t len, struct kt_authvar *out,
                     struct kt_error *err);

/* The standard vendor GUID of a secure-boot variable: EFI_GLOBAL_VARIABLE
 * for PK and KEK, EFI_IMAGE_SECURITY_DATABASE for db, dbx, dbt, dbr.
 * Returns NULL for another name. */
const uint8_t *kt_authvar_vendor(const char *name);

/* The signed bytes: name in UTF-16LE without its NUL, vendor GUID,
 * attributes (u32 LE), the EFI_TIME, the payload.  *out is malloc'd.
 * Errors: -EINVAL (name not ASCII), -ENOMEM. */
int kt_authvar_signed(const struct kt_authvar *v, const char *name, const uint8_t vendor[16],
                      uint32_t attributes, uint8_t **out, size_t *out_len);

/* Certificates that may authorise an update (--pk, --kek). */
struct kt_certset {
    struct kt_x509 **certs;
    uint8_t **ders;   /* owned copies the parses point into */
    size_t n, cap;
};
/* Add the certificates of a file's contents: DER/PEM certificates, or EFI
 * signature lists (efivarfs dump, signed update or plain; X509 entries only).
 * Errors: -EBADMSG (nothing usable, bad ESL), -ENOMEM. */
int kt_certset_add(struct kt_certset *s, const uint8_t *buf, size_t len, struct kt_error *err);
void kt_certset_free(struct kt_certset *s);

/* Payload counts, per entry type (SVN records counted apart from sha256). */
struct kt_authvar_counts {
    size_t x509, sha256, x509_sha256, sha384, sha512, svn, other;
};

struct kt_authvar_result {
    int verdict;                 /* 0 trusted, -ENOKEY, -EKEYREJECTED, -ENOPKG, -EBADMSG */
    struct kt_error error;
    uint32_t attributes;         /* the set the signature covers (0: neither) */
    bool append;                 /* covered attributes include APPEND_WRITE */
    struct kt_pkcs7 *msg;        /* owned: the parsed message */
    uint8_t *wrapped;            /* owned: a ContentInfo built around raw SignedData */
    const struct kt_x509 **authority; /* owned, one per signer of msg: the PK/KEK
                                       * certificate that vouched (the same
                                       * one for all), or NULL */
    struct kt_authvar_counts counts;
    const char *accepted_from;   /* refused by EDK2 2022.11 but accepted from this EDK2
                                  * release on ("edk2-stable202302", boot/edk2.h), or NULL */
    int parse_rc;                /* the message's parse (name-independent): 0 or why not */
    struct kt_error parse_error;
    /* the set whose signed bytes the signers' messageDigest matches, even
     * when the signature itself does not verify (0: none): the write's
     * name and attributes without a valid signature, which is all setup
     * mode needs (EDK2 checks no signature there) */
    uint32_t matched_attributes;
    int payload_rc;              /* the payload's format check: 0 or -EBADMSG (error says
                                  * why when it is the verdict) */
};

/* Verify update v of variable `name` (PK, KEK, db, dbx, dbt, dbr) with
 * vendor GUID `vendor` (NULL: the standard one).  The signature is tried
 * over the append (0x67) and the replace (0x27) attribute sets; every signer
 * must verify (digest SHA-256 only, as firmware: others -ENOPKG); the
 * SignedData must pass AuthService.c's fixed-offset SHA-256 check (else
 * -EKEYREJECTED).  Authority, one certificate for every signer: PK and KEK
 * updates need the last signer's own certificate byte-identical to a `pk`
 * certificate; db/dbx/dbt/dbr accept that or one `kek` certificate every
 * signer's chain contains or reaches, each issuer a CA (partial chains;
 * dates ignored).  No authority given or none vouching: -ENOKEY.  The payload must be well-formed signature lists (known types,
 * their sizes; PK exactly one X509), else -EBADMSG; for PK, KEK, db, dbx
 * and dbt the first entry of each X509 list must be a certificate with an
 * RSA key (EDK2's CheckSignatureListFormat), else -EBADMSG (not a
 * certificate) or -ENOPKG (another key).
 * *res is filled in every case once the header parsed (free with
 * kt_authvar_result_free).  Returns res->verdict. */
int kt_authvar_verify(const struct kt_authvar *v, const char *name, const uint8_t *vendor,
                      const struct kt_certset *pk, const struct kt_certset *kek,
                      struct kt_authvar_result *res);
/* kt_authvar_verify of the same update as another variable, reusing the
 * PKCS#7 res already holds (parsed once per update, whatever the names
 * tried: efivars_apply.c asks db, dbx, KEK... in turn).  res is a result
 * of kt_authvar_verify on v; it is refilled.  Returns res->verdict. */
int kt_authvar_verify_again(const struct kt_authvar *v, const char *name,
                            const uint8_t *vendor, const struct kt_certset *pk,
                            const struct kt_certset *kek, struct kt_authvar_result *res);
void kt_authvar_result_free(struct kt_authvar_result *res);

/* The payload's format alone, as firmware checks it whoever signed (the
 * payload rules of kt_authvar_verify, for `name`).  Returns 0, -EBADMSG,
 * -ENOPKG (an X509 list's first entry not RSA) or -ENOMEM, err says where. */
int kt_authvar_check_format(const struct kt_authvar *v, const char *name, struct kt_error *err);

/* Walk the payload's entries for listing: type names "x509", "sha256",
 * "x509_sha256", "x509_sha384", "x509_sha512", "sha1", "sha224", "sha384",
 * "sha512", "rsa2048", "rsa2048_sha256", "rsa2048_sha1", "svn", "other". */
const char *kt_authvar_entry_type(const struct kt_esl_entry *e);

/* For a KT_ESL_OTHER entry: the index of its known type (sha1, sha224,
 * sha384, sha512, rsa2048, rsa2048_sha256, rsa2048_sha1) or -1; *size gets
 * that type's SignatureData size. */
int kt_authvar_other_type(const struct kt_esl_entry *e, size_t *size);

#endif
