/* revoke.h - would a dbx and/or SbatLevel update revoke a boot binary?
 * (check-update).  Firmware's rule (EDK2 DxeImageVerificationLib): an image
 * is forbidden when its Authenticode hash, in any algorithm dbx holds,
 * is an image entry, or when a certificate of any of its top-level
 * signatures (nested ones play no part) is an X509 entry (whole DER) or an
 * X509_SHA256/384/512 entry (hash of its TBSCertificate).  An X509 entry is
 * a trust anchor for denial (IsForbiddenByDbx verifies the signature with
 * it as the root; shim's check_denylist the same on dbx, vendor dbx and
 * MokListX): a certificate of the signature that the entry issued (its
 * signature verifies with the entry's key) revokes as well, so a dbx
 * holding a CA revokes what its leaves signed although the signatures
 * carry only the leaf (keys/blacklist.h, kt_cert_denied_by).  shim adds the
 * SbatLevel rule (sbat/sbat.h).  fwupd compares SHA-256 image hashes only
 * and skips 32-bit and unparsable images; this checks PE32 and PE32+ and
 * reports what it cannot parse.
 */
#ifndef KT_REVOKE_REVOKE_H
#define KT_REVOKE_REVOKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/crypto.h"
#include "ktrust/update.h"
#include "sbat/sbat.h"
#include "util/err.h"
#include "authvar/authvar.h" /* struct kt_certset */

struct kt_dbx_hash {
    enum kt_hash alg;
    uint8_t v[KT_HASH_MAX_SIZE];
    bool tbs;              /* an X509_SHA* entry (TBS hash), else an image hash */
    const char *source;    /* the --dbx file it came from (not owned) */
};

struct kt_dbx_cert {
    uint8_t *der;          /* owned copy */
    size_t len;
    uint8_t sha1[20];      /* Microsoft's "thumbprint" */
    const char *source;
    struct kt_x509 *x;     /* parsed over der (owned), or NULL when it does not
                            * parse: then it can only match a certificate whole */
};

/* The revocations of one or more dbx inputs, combined. */
struct kt_dbx {
    struct kt_dbx_hash *hashes;
    size_t n_hashes, cap_hashes;
    struct kt_dbx_cert *certs;
    size_t n_certs, cap_certs;
    size_t n_svn;          /* SVN records seen (not image hashes: ignored here) */
    bool alg_used[KT_HASH__COUNT]; /* image-hash algorithms present */
};

/* Add the entries of a dbx input: a signed update, an ESL, or an efivarfs
 * dump (kt_esl_foreach).  SVN records are counted, never used as hashes.
 * source is kept by pointer.  Errors: the ESL walker's -EBADMSG, -ENOMEM. */
int kt_dbx_add(struct kt_dbx *d, const uint8_t *buf, size_t len, const char *source,
               struct kt_error *err);
void kt_dbx_free(struct kt_dbx *d);

/* enum kt_revoke_by, kt_revoke_by_name and the public form of what follows
 * (struct kt_update_check): ktrust/update.h */

struct kt_revoke_reason {
    enum kt_revoke_by by;
    enum kt_hash alg;                 /* image hash / TBS hash algorithm */
    uint8_t hash[KT_HASH_MAX_SIZE];   /* the matching value (image or TBS hash, or
                                         for a certificate its SHA-1 thumbprint) */
    size_t hash_len;
    char detail[400];                 /* "sha256 image hash 80b4...", "certificate CN=...", "grub 4 < 5 (level ...)" */
    char subject[200];                /* certificates: the subject */
};

struct kt_revoke_result {
    struct kt_revoke_reason *reasons;
    size_t n;
    bool sbat_missing;                /* a level was given and the image has no .sbat */
    bool pe32plus;
    uint16_t machine;
};

/* Check one image.  dbx and level may be NULL.  Returns 0 (see res->n for
 * revocations), or the parse error of an image that cannot be checked
 * (-ELIBBAD, -EBADMSG with a detail; res->n stays 0) or -ENOMEM.  An image
 * whose hash is revoked stays revoked when its signatures cannot be parsed.
 * Free with kt_revoke_result_free. */
int kt_revoke_check(const uint8_t *buf, size_t len, const struct kt_dbx *dbx,
                    const struct kt_sbat_level *level, struct kt_revoke_result *res,
                    struct kt_error *err);
void kt_revoke_result_free(struct kt_revoke_result *res);

/* What a struct kt_update_check holds (update.c), for arch.c: the dbx
 * inputs combined (NULL when none), Microsoft's dbx_info (NULL). */
struct kt_json;
const struct kt_dbx *kt_update_check_dbx(const struct kt_update_check *u);
const struct kt_json *kt_update_check_info(const struct kt_update_check *u);

/* Does a db certificate vouch for the image?  A top-level signature whose
 * digest and signature check out and whose chain holds a certificate of db
 * or one issued by it (dates ignored, as firmware).  Returns 1 (and *by the
 * db certificate, which belongs to db) or 0. */
struct kt_certset;
int kt_revoke_db_vouches(const uint8_t *buf, size_t len, const struct kt_certset *db,
                         const struct kt_x509 **by);

#endif
