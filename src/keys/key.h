/* key.h - the key model: a certificate held as a key, and the kernel's key
 * ids (asymmetric_type.c).
 *
 * A key is a certificate parsed by kt_x509_parse() over a DER copy the key
 * owns, with the kernel's description and a `trusted` flag.
 */
#ifndef KT_KEYS_KEY_H
#define KT_KEYS_KEY_H

#include <stdbool.h>
#include <stdint.h>

#include "crypto/crypto.h"
#include "ktrust/keyring.h"
#include "util/err.h"
#include "x509/x509.h"

/* The public accessors (kt_key_cert, kt_key_is_trusted, ...): ktrust/keyring.h. */
struct kt_key {
    struct kt_x509 *cert;    /* parsed over der */
    uint8_t *der;            /* owned copy */
    size_t der_len;
    bool trusted;
    char *source;            /* "file:/path", "esl:db.esl#3", "kernel:vmlinuz", "pe:shim.efi" */
    int64_t added;           /* seconds since the epoch */
    const struct kt_keyring *ring;
};

/* A new key over a copy of one DER certificate, in no keyring yet: not
 * trusted, added now.  Freed by kt_key_free unless a keyring took it
 * (kt_keyring_link). */
int kt_key_new(const uint8_t *der, size_t len, const char *source, struct kt_key **out,
               struct kt_error *err);
void kt_key_free(struct kt_key *key);

/* The kernel's key ids (asymmetric_type.c): id0 issuer+serial, id1 the
 * subjectKeyIdentifier, id2 the subject name.  A lookup by ids (the kernel's
 * find_asymmetric_key) searches by id0 when given, else id1, else id2; when
 * both id0 and id1 are given, the key found by id0 must carry id1 too. */
struct kt_key_ids {
    kt_span issuer, serial; /* id0 (both or neither) */
    kt_span skid;           /* id1 */
    kt_span subject;        /* id2: a Name TLV */
};
/* The ids a certificate is known by as a key (id0 its issuer+serial, id1
 * its SKID): "is this certificate itself a trusted key?" */
struct kt_key_ids kt_key_ids_of_cert(const struct kt_x509 *c);
/* The ids a certificate names its signer by: its AKID (id0 the AKID's
 * issuer+serial, id1 its keyIdentifier) and, with_issuer_name, id2 its
 * issuer name (the kernel's restrict_link_by_signature uses id2 when there
 * is no AKID; PKCS#7 trust does not). */
struct kt_key_ids kt_key_ids_of_signer(const struct kt_x509 *c, bool with_issuer_name);
bool kt_key_ids_empty(const struct kt_key_ids *ids);

/* kt_key_matches_id (a key against a user's id): ktrust/advanced.h. */

#endif
