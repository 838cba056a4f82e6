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
