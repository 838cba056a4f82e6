/* imasig.h - IMA signature blobs (security/integrity/: integrity.h's
 * signature_v2_hdr, digsig_asymmetric.c, ima_appraise.c's xattr_verify).
 *
 * The public entry points are in ktrust/ima.h; this is the parser and the
 * algorithm table they share with the file reader (imasig_file.c) and the
 * portable EVM check (imasig_evm.c).
 */
#ifndef KT_IMA_IMASIG_H
#define KT_IMA_IMASIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/crypto.h"
#include "ktrust/ima.h"
#include "util/err.h"

#define KT_IMA_SIG_HDR_LEN 9 /* type, version, hash_algo, keyid[4], sig_size[2] */

/* A signature blob, parsed: the header as it reads, and the signature bytes
 * (pointing into the caller's buffer). */
struct kt_ima_sig {
    uint8_t type, version, hash_algo;
    uint32_t keyid;
    uint16_t sig_size;
    const uint8_t *s;
    size_t s_len;
};

/* Parse a blob as asymmetric_verify reads it: at least the header and one
 * byte more, sig_size equal to what follows the header.  -EBADMSG with the
 * field and offset in err. */
int kt_ima_sig_parse(const uint8_t *buf, size_t len, struct kt_ima_sig *out, struct kt_error *err);

/* The kernel's enum hash_algo value as a ktrust digest (KT_HASH_NONE when
 * ktrust cannot compute it). */
enum kt_hash kt_ima_hash_kt(uint8_t algo);
/* The inverse: the enum hash_algo value of a ktrust digest, or -1. */
int kt_ima_hash_of_kt(enum kt_hash h);

/* The fs-verity digest of n bytes p with hash h (sha256 or sha512) and
 * blocks of 1 << log_bs bytes, no salt, into out (*out_len bytes).
 * -ENOPKG for another hash or block size, -ENOMEM. */
int kt_ima_verity_digest(const uint8_t *p, size_t n, enum kt_hash h, unsigned log_bs,
                         uint8_t *out, size_t *out_len);

/* A keyring by name, a leading dot ignored (".ima" is "ima"), or NULL. */
const struct kt_keyring *kt_ima_ring_find(const struct kt_keyrings *k, const char *name);

/* The key part of kt_ima_sig_verify: the key of o->keyring (NULL: "ima")
 * with s's key id, checked against the digest dg that the signature signs
 * (already the ima_file_id hash for v3), trust and blacklist.  Fills out's
 * verdict; returns 0 (-ENOMEM). */
int kt_ima_sig_check_key(const struct kt_keyrings *k, const struct kt_ima_sig_opts *o,
                         const struct kt_ima_sig *s, const uint8_t *dg, size_t dlen,
                         struct kt_ima_sig_check *out);

/* Fill out's header fields from s (header_ok, type ... hash_name). */
void kt_ima_check_header(struct kt_ima_sig_check *out, const struct kt_ima_sig *s);
/* Set out's verdict from a kernel result code and a reason (printf). */
int kt_ima_check_set(struct kt_ima_sig_check *out, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
