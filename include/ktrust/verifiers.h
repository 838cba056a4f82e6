/* ktrust/verifiers.h - verify a module, a PE image or a PKCS#7 signature
 * against keyrings you built (ktrust/keyring.h), as the kernel does.
 *
 *     const struct kt_key *by;
 *     int rc = kt_verify_module(buf, len, rings, &by, &err);
 *     printf("%s\n", kt_verdict_name(kt_verdict_of(rc)));     "trusted"
 *
 * Each returns 0 (trusted) or the verdict as -errno: -ENODATA unsigned,
 * -ENOKEY no trusted key vouches, -EKEYREJECTED a bad signature or a
 * blacklisted key or image, -EBADMSG / -ELIBBAD malformed, -ENOPKG an
 * unsupported algorithm, -E2BIG a decompression bomb.  *by (may be NULL)
 * is the keyring key that vouched, or NULL.  The kernel's defaults apply:
 * no SHA-1, no validity periods.  For the verdict of each signer, a store,
 * run-only keys and one policy for every type, see ktrust/verify.h.
 */
#ifndef KTRUST_VERIFIERS_H
#define KTRUST_VERIFIERS_H

#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"
#include "ktrust/keyring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A kernel module, plain or compressed (.ko.xz, .ko.zst, .ko.gz), under the
 * module purpose (mod_verify_sig + verify_pkcs7_signature). */
KT_API int kt_verify_module(const uint8_t *buf, size_t len, const struct kt_keyrings *rings,
                            const struct kt_key **by, struct kt_error *err);
/* An Authenticode-signed PE image (EFI binary, bzImage) under purpose
 * (KT_PURPOSE_UEFI: firmware and shim, any signature may vouch;
 * KT_PURPOSE_KEXEC: the kernel's kexec rule, the first one only). */
KT_API int kt_verify_pe(const uint8_t *buf, size_t len, const struct kt_keyrings *rings,
                        enum kt_purpose purpose, const struct kt_key **by,
                        struct kt_error *err);
/* A PKCS#7 signature (DER or PEM) over data (detached; NULL when the
 * signature carries its content) under purpose. */
KT_API int kt_verify_pkcs7(const uint8_t *sig, size_t sig_len, const uint8_t *data,
                           size_t data_len, const struct kt_keyrings *rings,
                           enum kt_purpose purpose, const struct kt_key **by,
                           struct kt_error *err);

#ifdef __cplusplus
}
#endif
#endif
