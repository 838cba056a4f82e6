/* ktrust/x509.h - X.509 certificates, parsed in place.
 *
 *     struct kt_x509 *c;
 *     if (kt_x509_parse(der, len, &c, &err) == 0) {
 *         puts(kt_x509_description(c));   "Acme: Vendor Key: 9f3c..."
 *         kt_x509_free(c);
 *     }
 *
 * The parser is the kernel's x509_cert_parse: strict DER, and it refuses what
 * the kernel refuses.  A parsed certificate points into the caller's buffer,
 * which must outlive it.
 */
#ifndef KTRUST_X509_H
#define KTRUST_X509_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A parsed certificate (opaque). */
struct kt_x509;

/* Parse one DER certificate.  *out (freed with kt_x509_free) points into der.
 * Returns 0, -EBADMSG (malformed, with the offset in err), -EKEYREJECTED (a
 * self-signed certificate whose signature does not verify), -ENOMEM.  An
 * unsupported key or signature algorithm is not an error here. */
KT_API int kt_x509_parse(const uint8_t *der, size_t len, struct kt_x509 **out,
                         struct kt_error *err);
KT_API void kt_x509_free(struct kt_x509 *c);

/* The kernel's key description: "O: CN: <hex key id>". */
KT_API const char *kt_x509_description(const struct kt_x509 *c);
/* Subject and issuer as "CN=..., O=..." (in encoded order). */
KT_API const char *kt_x509_subject(const struct kt_x509 *c);
KT_API const char *kt_x509_issuer(const struct kt_x509 *c);
/* The serial as lowercase hex without leading zeros ("-" and the magnitude
 * for a negative serial), NUL-terminated in out (cap bytes). */
KT_API void kt_x509_serial_hex(const struct kt_x509 *c, char *out, size_t cap);
/* Validity, in seconds since the epoch (UTC). */
KT_API int64_t kt_x509_not_before(const struct kt_x509 *c);
KT_API int64_t kt_x509_not_after(const struct kt_x509 *c);
/* The SHA-256 of the whole certificate (32 bytes). */
KT_API const uint8_t *kt_x509_sha256(const struct kt_x509 *c);
/* The certificate's own DER bytes (inside the caller's buffer). */
KT_API const uint8_t *kt_x509_der(const struct kt_x509 *c, size_t *len);
/* basicConstraints cA; subject == issuer (and its signature verified). */
KT_API bool kt_x509_is_ca(const struct kt_x509 *c);
KT_API bool kt_x509_is_self_signed(const struct kt_x509 *c);
/* A self-signed certificate whose own signature could not be checked
 * (its algorithm is unsupported). */
KT_API bool kt_x509_self_signature_unchecked(const struct kt_x509 *c);
/* The SHA-256 of tbsCertificate (32 bytes): the blacklist's "tbs:" hash. */
KT_API const uint8_t *kt_x509_tbs_sha256(const struct kt_x509 *c);
/* subjectKeyIdentifier, and authorityKeyIdentifier's keyIdentifier: the
 * octets (*len 0 when absent). */
KT_API const uint8_t *kt_x509_skid(const struct kt_x509 *c, size_t *len);
KT_API const uint8_t *kt_x509_akid(const struct kt_x509 *c, size_t *len);
/* The public key's algorithm ("rsa", "ecdsa", "ed25519", "mldsa65": the
 * kernel's pkey_algo) and size in bits (0 for ML-DSA, whose parameter set
 * is its size), or NULL and 0 for a key type ktrust does not know. */
KT_API const char *kt_x509_key_algorithm(const struct kt_x509 *c);
KT_API unsigned kt_x509_key_bits(const struct kt_x509 *c);
/* An ML-DSA key in words, into buf: "ML-DSA-65, 1952-byte public key", and
 * "; ML-DSA-65 needs OpenSSL 3.5 or later" when this libcrypto cannot check
 * its signatures; NULL for other keys. */
KT_API const char *kt_x509_key_note(const struct kt_x509 *c, char *buf, size_t cap);
/* Whether ktrust can check signatures with the public key (its type,
 * curve and size are supported). */
KT_API bool kt_x509_key_supported(const struct kt_x509 *c);
/* The signature algorithm's name, or its dotted OID when ktrust does not
 * know it (written into buf; cap >= 96), or "unknown". */
KT_API const char *kt_x509_sig_algorithm(const struct kt_x509 *c, char *buf, size_t cap);
/* Whether signatures with that algorithm cannot be checked. */
KT_API bool kt_x509_sig_algorithm_unsupported(const struct kt_x509 *c);
/* basicConstraints: false when absent; else *ca and *path_len (-1: no
 * pathLenConstraint).  Either pointer may be NULL. */
KT_API bool kt_x509_basic_constraints(const struct kt_x509 *c, bool *ca, int *path_len);
/* extendedKeyUsage: false when absent; else the names of the purposes it
 * lists that ktrust knows ("any", "serverAuth", "clientAuth",
 * "codeSigning", "emailProtection", "timeStamping",
 * "msKernelModeCodeSigning", "msUefiCa", "msWindows", "moduleSigning", in
 * that order) into names[0..*n) (cap entries at most; 10 hold all), and
 * *other: whether it lists others.  names, n, other may be NULL. */
KT_API bool kt_x509_eku(const struct kt_x509 *c, const char **names, size_t cap, size_t *n,
                        bool *other);
/* An unrecognised critical extension was present. */
KT_API bool kt_x509_has_unknown_critical(const struct kt_x509 *c);

/* The subject ("CN=..., O=...") of a certificate read leniently (BER, no
 * checks past the subject), for naming one kt_x509_parse refused; "?"
 * when even that fails.  Returns buf. */
KT_API char *kt_x509_peek_subject(const uint8_t *der, size_t len, char *buf, size_t cap);
/* One certificate as PEM ("-----BEGIN CERTIFICATE-----", 64 columns).
 * Returns a malloc'd NUL-terminated string (length in *out_len; free()),
 * or NULL. */
KT_API char *kt_pem_encode_cert(const uint8_t *der, size_t len, size_t *out_len);

/* Call fn for each certificate in buf: one DER certificate, a PEM or a PEM
 * bundle.  Decoded PEM bytes are temporary: fn copies what it keeps.
 * Returns 0, fn's negative result, -EBADMSG (bad PEM, with an offset) or
 * -ENODATA (no certificate). */
typedef int (*kt_cert_cb)(void *ctx, const uint8_t *der, size_t len, size_t file_offset);
KT_API int kt_certs_foreach(const uint8_t *buf, size_t len, kt_cert_cb fn, void *ctx,
                            struct kt_error *err);

#ifdef __cplusplus
}
#endif
#endif
