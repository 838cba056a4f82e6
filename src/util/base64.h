/* base64.h - RFC 4648 base64 for PEM armour. */
#ifndef KT_UTIL_BASE64_H
#define KT_UTIL_BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* Decode [p, end), skipping whitespace, into out (room for
 * (end - p) / 4 * 3 + 3 bytes).  Returns 0 and *outlen, or -EBADMSG with
 * *bad_at pointing at the first bad character (or at end when the input
 * stops mid-group). */
int kt_base64_decode(const uint8_t *p, const uint8_t *end, uint8_t *out, size_t *outlen,
                     const uint8_t **bad_at);

/* Encode len bytes as base64 lines of 64 columns, each ending in '\n', into
 * out (room for kt_base64_encoded_size(len) bytes, including a final NUL).
 * Returns the number of characters written (without the NUL). */
size_t kt_base64_encode_lines(const uint8_t *in, size_t len, char *out);
size_t kt_base64_encoded_size(size_t len);

/* The first PEM block with one of the labels ("PKCS7", "PUBLIC KEY") in
 * buf, decoded: *der is malloc'd (caller frees).  -ENODATA when buf has no
 * such block, -EBADMSG (no END line, bad base64; err: the offset),
 * -ENOMEM. */
int kt_pem_decode(const uint8_t *buf, size_t len, const char *const *labels, size_t n,
                  uint8_t **der, size_t *der_len, struct kt_error *err);

#endif
