/* pkcs7.h - PKCS#7 / CMS SignedData: parse, verify, validate trust.
 *
 * The kernel's split (pkcs7_parser.c / pkcs7_verify.c / pkcs7_trust.c):
 *   kt_pkcs7_parse()          BER parse, zero-copy into the caller's buffer
 *   kt_pkcs7_verify()         digest the content, check authenticated
 *                             attributes, find each signer's certificate,
 *                             verify each signature, chain the certificates
 *   kt_pkcs7_verify_digests() the same with content digests the caller computed
 *                             (Authenticode: the PE image digest is not the
 *                             PKCS#7 content)
 *   kt_pkcs7_validate_trust_set() walk each signer's chain to a trusted key
 *                             of a search set (policy/verify.h's
 *                             kt_pkcs7_validate_trust resolves a purpose)
 *
 * Memory: struct kt_pkcs7 points into the buffer given to kt_pkcs7_parse(),
 * which must outlive it; the message owns its arrays, its parsed
 * certificates and (only for a constructed OCTET STRING content) a gathered
 * copy of the content.  One kt_pkcs7_free() releases everything.
 * Keys referenced by results (signer_key, trusted_by) belong to the
 * kt_keyrings passed in, which must outlive the results.
 */
#ifndef KT_PKCS7_PKCS7_H
#define KT_PKCS7_PKCS7_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/crypto.h"
#include "der/der.h"
#include "der/oid.h"
#include "keys/purpose.h"
#include "keys/trust.h"
#include "x509/x509.h"

#define KT_PKCS7_MAX_CHAIN 16

/* One Attribute ::= SEQUENCE { type OID, values SET OF ANY }. */
struct kt_pkcs7_attr {
    enum kt_oid oid;   /* KT_OID_UNKNOWN if not registered */
    kt_span oid_raw;   /* OID content bytes */
    kt_span values;    /* content of the SET OF values (the value TLVs back to back) */
    kt_span whole;     /* the Attribute TLV */
    size_t offset;     /* offset of the Attribute in the input */
};

struct kt_pkcs7_signer {
    int index;                  /* 0-based position in signerInfos */
    size_t offset;              /* offset of the SignerInfo in the input */
    int version;                /* 1 (issuer+serial) or 3 (SKID); 0 occurs in Windows files */
    /* signer identifier: issuer+serial, or [0] subjectKeyIdentifier */
    kt_span issuer_raw;         /* Name TLV (len 0 when identified by SKID) */
    kt_span serial;             /* INTEGER content bytes, as encoded */
    kt_span skid;               /* SKID octets (len 0 when issuer+serial) */
    /* digestAlgorithm */
    enum kt_hash digest_alg;
    kt_span digest_alg_tlv;     /* the AlgorithmIdentifier TLV */
    /* authenticatedAttributes [0] IMPLICIT SET OF Attribute */
    bool has_auth_attrs;
    kt_span auth_attrs;         /* the whole [0] TLV; the signature covers it with
                                 * its first byte (0xA0) replaced by a SET tag 0x31 */
    struct kt_pkcs7_attr *auth;
    size_t n_auth;
    enum kt_oid attr_content_type;   /* from the contentType attribute */
    kt_span attr_content_type_raw;
    kt_span message_digest;          /* messageDigest octets (len 0: absent) */
    bool has_signing_time;
    int64_t signing_time;            /* seconds since the epoch, UTC */
    /* digestEncryptionAlgorithm + encryptedDigest */
    struct kt_sigalg sig_alg;        /* hash filled from digest_alg when the OID names none */
    kt_span signature;
    /* unauthenticatedAttributes [1]: counter-signatures, RFC 3161 tokens,
     * nested signatures (msNestedSignature) ... */
    struct kt_pkcs7_attr *unauth;
    size_t n_unauth;

    /* ---- filled by kt_pkcs7_verify() / kt_pkcs7_verify_digests() ---- */
    uint8_t digest[KT_HASH_MAX_SIZE]; /* the content digest with digest_alg */
    size_t digest_len;                /* 0 until computed */
    uint8_t signed_digest[KT_HASH_MAX_SIZE]; /* what the signature covers: the
                                 * content digest, or with authenticated
                                 * attributes the digest of their SET form */
    const struct kt_x509 *signer_cert; /* in msg->certs, or a keyring key's cert */
    const struct kt_key *signer_key;  /* non-NULL when the cert came from a keyring */
    int verify_rc;                    /* 0, -EKEYREJECTED, -ENOPKG, -ENOKEY (no cert), -EBADMSG */
    bool unsupported_sig;             /* the signature could not be checked (algorithm) */

    /* ---- filled by kt_pkcs7_validate_trust() ---- */
    const struct kt_x509 *chain[KT_PKCS7_MAX_CHAIN]; /* signer cert first, then issuers */
    size_t chain_len;
    const struct kt_key *trusted_by;  /* the keyring key that vouched, or NULL */
    int verdict;                      /* 0 trusted, or -errno for this signer */
    bool time_invalid;                /* a chain cert is outside its validity (reported) */
    const struct kt_x509 *time_invalid_cert; /* the first such certificate */
    struct kt_error error;            /* why verify_rc / verdict is not 0 */
};

/* Verification policy; kt_pkcs7_parse() initialises it to the defaults
 * (SHA-1 refused, validity dates not enforced). */
struct kt_pkcs7_policy {
    bool allow_sha1;     /* accept SHA-1 digests/signatures (else -ENOPKG) */
    bool check_time;     /* enforce certificate validity at `at_time` */
    int64_t at_time;     /* seconds since the epoch; 0: now */
    bool no_signing_time; /* no signingTime-in-validity rule (firmware's
                           * Pkcs7Verify has none; the kernel's has it) */
    unsigned linux_version; /* KT_LINUX(major, minor) of the kernel that
                             * judges (--kernel's image); 0: any, then an
                             * algorithm a kernel added lately is only noted
                             * (kt_pkcs7_linux_since) */
};

struct kt_pkcs7 {
    kt_span der;                 /* the whole ContentInfo as parsed */
    int version;                 /* SignedData version */
    /* encapsulated content */
    enum kt_oid content_type;    /* data, msIndirectData, ... */
    kt_span content_type_raw;    /* OID content bytes */
    bool has_content;            /* false: detached (the caller supplies data) */
    kt_span content;             /* the bytes that get digested:
                                  *  OCTET STRING content (segments of a
                                  *  constructed one gathered into an owned copy);
                                  *  any other type (SpcIndirectDataContent):
                                  *  the inner element's content without its
                                  *  own tag and length */
    kt_span content_tlv;         /* the element inside [0] EXPLICIT, whole */
    /* certificates in message order (the parse of each is owned) */
    struct kt_x509 **certs;
    size_t n_certs;
    /* signers */
    struct kt_pkcs7_signer *signers;
    size_t n_signers;
    struct kt_pkcs7_policy policy;
    uint8_t *content_copy;       /* owned gathered content, or NULL */
};

/* Parse a DER/BER ContentInfo holding SignedData.  *out points into buf.
 * Authenticated attributes follow the kernel's parser (contentType and
 * messageDigest required, contentType equal to the content's type, repeated
 * or multivalued known attributes -EKEYREJECTED, Microsoft opus-info and
 * statement-type only in Authenticode) with one deliberate difference:
 * sMIMECapabilities, which the kernel refuses outside Authenticode, is
 * accepted, so that ordinary `openssl cms -sign` messages verify (module
 * signatures still refuse any authenticated attribute by purpose).
 * Returns 0, -EBADMSG (malformed; detail with offset), -ENOPKG (not
 * signedData, or an unknown digest algorithm), -EKEYREJECTED (an
 * Authenticode-only attribute outside Authenticode, as the kernel), -ENOMEM. */
int kt_pkcs7_parse(const uint8_t *buf, size_t len, struct kt_pkcs7 **out,
                   struct kt_error *err);
void kt_pkcs7_free(struct kt_pkcs7 *msg);

/* Verify every signer: digest the content (data/len: the detached content,
 * or NULL to use the message's own; content in the message and data given
 * must agree -> both are accepted, data wins), check messageDigest and
 * contentType when authenticated attributes exist, find each signer's cert
 * (message first, else `rings` via kt_keyrings_find_cert; rings may be NULL),
 * check the key algorithm matches, verify the signature, and build each
 * signer's chain from the message's certificates.
 * Result rules as the kernel's pkcs7_verify: a signer whose crypto is
 * unsupported is skipped (-ENOPKG only if all are); any other failure is
 * returned (-EKEYREJECTED preferred): -EKEYREJECTED (digest or signature
 * mismatch, data differs from the attached content), -EBADMSG (no content
 * and no data; bad messageDigest length).  A signer whose certificate is
 * found nowhere is not a failure here (verify_rc = -ENOKEY; trust decides).
 * Per-signer results are in msg->signers[]. */
int kt_pkcs7_verify(struct kt_pkcs7 *msg, const uint8_t *data, size_t data_len,
                    const struct kt_keyrings *rings, struct kt_error *err);

/* A content digest computed by the caller. */
struct kt_pkcs7_digest {
    enum kt_hash hash;
    const uint8_t *digest;  /* kt_hash_size(hash) bytes */
};
/* kt_pkcs7_verify() with the content digests supplied instead of computed
 * (digests of the PKCS#7 content -- for Authenticode the
 * SpcIndirectDataContent in msg->content, not the PE image: the image digest
 * is compared with the one inside that blob by the PE code).  Each signer
 * uses the entry matching its digest algorithm (-ENOPKG when none does);
 * n = 0 hashes msg->content.  Same returns as kt_pkcs7_verify(). */
int kt_pkcs7_verify_digests(struct kt_pkcs7 *msg, const struct kt_pkcs7_digest *digests,
                            size_t n, const struct kt_keyrings *rings, struct kt_error *err);

/* Purpose checks the kernel makes before trusting (pkcs7_verify usage):
 * KT_VERIFY_PURPOSE_MODULE: content type data, no authenticated attributes;
 * KT_VERIFY_PURPOSE_UEFI/KEXEC: content type msIndirectData.  -EKEYREJECTED. */
int kt_pkcs7_check_purpose(const struct kt_pkcs7 *msg, enum kt_verify_purpose purpose,
                           struct kt_error *err);

/* Trust (pkcs7_validate_trust): for each signer that verified, walk its chain;
 * a cert that is itself a key in the search set's keyrings, or whose
 * issuer's key is, vouches once that link's signature checks.  Blacklisted
 * certificates reject.  Fills chain/trusted_by/verdict per signer.
 * Returns the message verdict: any -EKEYREJECTED wins; else 0 if some
 * signer's chain met a trusted key; else -ENOPKG if an unsupported algorithm
 * stood in the way; else -ENOKEY.  Call after kt_pkcs7_verify*(); signers
 * whose verification failed keep their verify_rc as verdict. */
int kt_pkcs7_validate_trust_set(struct kt_pkcs7 *msg, const struct kt_trust_set *trust,
                                struct kt_error *err);

/* Check a signer's signature (over si->signed_digest, set by verify) with
 * `key`: 0, -EKEYREJECTED, -ENOPKG. */
int kt_pkcs7_check_signer_sig(const struct kt_pkcs7_signer *si, const struct kt_pubkey *key);

/* pkcs7_kernel.c: the kernel's algorithm rules by Linux version. */
/* The first Linux release whose PKCS#7 parser takes this signer's digest and
 * signature algorithms (KT_LINUX(6, 7) for SHA-3, KT_LINUX(7, 0) for
 * ML-DSA), 0 for algorithms every modelled kernel takes. */
unsigned kt_pkcs7_linux_since(const struct kt_pkcs7_signer *si);
/* Whether si's signature algorithm can be checked here and now: -ENOPKG
 * when this libcrypto lacks it (ML-DSA before OpenSSL 3.5) or when the
 * policy's kernel (linux_version) predates it, 0 otherwise. */
int kt_pkcs7_sig_allowed(const struct kt_pkcs7 *msg, const struct kt_pkcs7_signer *si,
                         struct kt_error *err);
/* A module signature with authenticated attributes is waived when every
 * signer that has them is ML-DSA (Linux 7.0, pkcs7_check_authattrs under
 * CONFIG_PKCS7_WAIVE_AUTHATTRS_REJECTION_FOR_MLDSA), unless the policy's
 * kernel predates it. */
bool kt_pkcs7_attrs_waived(const struct kt_pkcs7 *msg);

/* PEM-armoured PKCS#7 (labels PKCS7, CMS, "PKCS #7 SIGNED DATA") to DER:
 * *der is malloc'd (caller frees).  -ENODATA when buf has no such PEM block
 * (treat it as DER), -EBADMSG for bad base64, -ENOMEM. */
int kt_pkcs7_pem_decode(const uint8_t *buf, size_t len, uint8_t **der, size_t *der_len,
                        struct kt_error *err);

/* First attribute with this OID in a list, or NULL. */
const struct kt_pkcs7_attr *kt_pkcs7_find_attr(const struct kt_pkcs7_attr *attrs, size_t n,
                                               enum kt_oid oid);

/* The issuer name of a signer identifier rendered "CN=..., O=..." into buf
 * (for signers whose certificate is not at hand).  Returns buf. */
char *kt_pkcs7_name_string(kt_span name_tlv, char *buf, size_t cap);

#endif
