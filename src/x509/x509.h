/* x509.h - X.509 certificates parsed in place, and the kernel's view of them
 * as asymmetric keys.
 *
 * kt_x509_parse() reads one DER certificate (strict DER) from a caller-owned
 * buffer that must outlive the result: every kt_span points into it.  The
 * few strings (names, description) are allocated and freed by kt_x509_free().
 */
#ifndef KT_X509_X509_H
#define KT_X509_X509_H

#include <stdbool.h>
#include <stdint.h>

#include "crypto/crypto.h"
#include "der/der.h"
#include "ktrust/x509.h"

/* extKeyUsage purposes we track (bit flags) */
enum {
    KT_EKU_ANY = 1u << 0,
    KT_EKU_SERVER_AUTH = 1u << 1,
    KT_EKU_CLIENT_AUTH = 1u << 2,
    KT_EKU_CODE_SIGNING = 1u << 3,
    KT_EKU_EMAIL = 1u << 4,
    KT_EKU_TIME_STAMPING = 1u << 5,
    KT_EKU_MS_KERNEL_MODE = 1u << 6,
    KT_EKU_MS_UEFI_CA = 1u << 7,
    KT_EKU_MS_WINDOWS = 1u << 8,
    KT_EKU_MODULE_SIGNING = 1u << 9,
    KT_EKU_OTHER = 1u << 31,
};

struct kt_x509 {
    kt_span der;            /* the whole certificate */
    kt_span tbs;            /* tbsCertificate TLV */
    uint8_t sha256[32];     /* of der */
    uint8_t tbs_sha256[32]; /* of tbs: the blacklist's "tbs:" hash */
    int version;            /* 1, 2 or 3 */
    kt_span serial;         /* INTEGER content bytes, as encoded (leading 00 kept) */
    struct kt_sigalg sig_alg;  /* unknown algorithms: unsupported set, oid 0 */
    kt_span sig_alg_raw;       /* signatureAlgorithm AlgorithmIdentifier TLV */
    kt_span sig;            /* signatureValue bits */
    kt_span issuer_raw;     /* Name TLV, for exact comparison */
    kt_span subject_raw;    /* Name TLV */
    char *issuer;           /* "CN=..., O=..." (RFC 4514-like, in encoded order) */
    char *subject;
    char *subject_cn, *subject_o, *subject_email; /* NULL when absent */
    int64_t not_before, not_after;                /* seconds since the epoch, UTC */
    kt_span spki;                                 /* SubjectPublicKeyInfo TLV */
    struct kt_pubkey *pub;                        /* NULL if the key type is unsupported */
    enum kt_pkey_algo key_algo;
    unsigned key_bits;
    /* extensions */
    kt_span skid;           /* subjectKeyIdentifier octets (len 0: absent) */
    kt_span akid_keyid;     /* authorityKeyIdentifier [0] (len 0: absent) */
    kt_span akid_issuer;    /* [1] GeneralNames: the directoryName's Name TLV */
    kt_span akid_serial;    /* [2] serial content bytes */
    bool has_basic_constraints, is_ca;
    int path_len;           /* -1 when absent */
    bool has_key_usage;
    uint16_t key_usage;     /* bit 0 = digitalSignature ... (X.509 bit order) */
    bool has_eku;
    uint32_t eku;           /* KT_EKU_* */
    bool unknown_critical;  /* an unrecognised critical extension was present */
    /* the kernel's view */
    bool self_signed;       /* subject == issuer (and AKID, if any, points at itself);
                             * its signature verified unless sig_unsupported */
    bool sig_unsupported;   /* self-signature could not be checked (algorithm) */
    char *description;      /* "O: CN: <hex id>" exactly as the kernel makes it */
};

/* kt_x509_parse, kt_x509_free and the accessors: ktrust/x509.h. */

/* Verify that `cert` is signed by `issuer_key`: 0, -EKEYREJECTED, -ENOPKG. */
int kt_x509_check_signature(const struct kt_x509 *cert, const struct kt_pubkey *issuer_key);

/* Does `issuer` plausibly sign `cert` (AKID keyid == issuer SKID, or AKID
 * issuer+serial == issuer's, or without AKID: issuer name == subject name)? */
bool kt_x509_is_issued_by(const struct kt_x509 *cert, const struct kt_x509 *issuer);

/* kt_x509_serial_hex (ktrust/x509.h) for a serial given as its INTEGER
 * content (a PKCS#7 signer's issuerAndSerialNumber): the one serial
 * formatter. */
void kt_x509_serial_hex_of(kt_span serial, char *out, size_t cap);

/* Length of the DER element at buf (for splitting concatenated certificate
 * lists by their outer SEQUENCE header, as the kernel does): 0 if none. */
size_t kt_x509_element_len(const uint8_t *buf, size_t len);

/* kt_certs_foreach (DER, PEM, a PEM bundle): ktrust/x509.h. */

/* kt_x509_peek_subject (a refused certificate's subject) and
 * kt_pem_encode_cert: ktrust/x509.h. */

#endif
