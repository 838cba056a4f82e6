/* pe_verify.h - Authenticode verification of a PE image against keyrings.
 *
 * kt_pe_verify() parses the image, walks every WIN_CERTIFICATE entry, parses
 * each PKCS#7 and its SpcIndirectDataContent, computes in one pass every
 * image digest the signatures (and their nested signatures) need and one
 * for every algorithm among the blacklist's bin: entries (firmware and shim
 * hash with each algorithm the dbx holds), checks each signature (digest,
 * messageDigest, signer, EKU, hash policy), validates trust with a
 * search set (keys/trust.h; policy/verify.h's kt_pe_verify resolves the
 * purpose's keyrings), and verifies timestamps (RFC 3161 tokens and legacy
 * countersignatures) offline.  An image whose digest, with any algorithm, is
 * a bin: entry is rejected whatever its signatures say; each signature is
 * then rejected too, with its signer still resolved (for the report).
 *
 * The file's verdict: trusted (0) when at least one signature that may vouch
 * is trusted and none is rejected.  Which may vouch: for the UEFI purpose any
 * top-level entry (firmware's rule), for kexec only the first (the kernel
 * reads no other); a nested signature never does (no kernel, shim or
 * firmware path trusts one), though it is verified and shown, and a rejected
 * one still rejects the file; -EKEYREJECTED when any signature (or nested one) is
 * rejected or the image hash is blacklisted; -ENODATA when unsigned;
 * -ELIBBAD / -EBADMSG when malformed; else -ENOPKG if an unsupported
 * algorithm stood in the way, else -ENOKEY.
 */
#ifndef KT_PE_PE_VERIFY_H
#define KT_PE_PE_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "keys/purpose.h"
#include "keys/trust.h"
#include "pe/mscode.h"
#include "pe/pe.h"
#include "pkcs7/pkcs7.h"

struct kt_pe_verify_opts {
    enum kt_verify_purpose purpose; /* KT_VERIFY_PURPOSE_UEFI (default when opts is NULL) or _KEXEC */
    bool allow_sha1;         /* accept SHA-1 image digests and signatures */
    bool check_time;         /* enforce the chain's validity periods at at_time (the
                              * Authenticode timestamp is not used for it) */
    int64_t at_time;         /* seconds since the epoch; 0: now */
};

enum kt_pe_ts_kind { KT_PE_TS_NONE = 0, KT_PE_TS_RFC3161, KT_PE_TS_COUNTERSIG };

struct kt_pe_timestamp {
    enum kt_pe_ts_kind kind;
    int64_t time;                    /* genTime / signingTime (seconds, UTC) */
    const struct kt_x509 *signer;    /* the TSA / countersigner certificate, or NULL */
    const struct kt_key *trusted_by; /* keyring key vouching for the TSA chain, or NULL */
    int verify_rc;                   /* 0: the timestamp covers this signature, verified */
    int trust_rc;                    /* 0, -ENOKEY, ... (validate_trust of the TSA) */
    struct kt_error error;           /* why verify_rc is not 0 */
};

struct kt_pe_signature {
    int index;                       /* position: entry index (top level) or nested index */
    size_t offset;                   /* file offset of the PKCS#7 */
    enum kt_hash digest_alg;         /* the SpcIndirectDataContent's algorithm */
    uint8_t image_digest[KT_HASH_MAX_SIZE]; /* Authenticode digest with that algorithm */
    size_t digest_len;               /* 0 when it could not be computed */
    bool digest_match;               /* the signed digest equals the image digest */
    struct kt_mscode mscode;
    const struct kt_x509 *signer;    /* signer certificate, or NULL */
    const struct kt_x509 *chain[KT_PKCS7_MAX_CHAIN];
    size_t chain_len;
    const struct kt_key *trusted_by;
    int verdict;                     /* 0 or -errno for this signature */
    bool vouches;                    /* trusted, and a signature that may vouch
                                      * for the file (see above) */
    struct kt_error error;           /* the reason when verdict != 0 */
    struct kt_pe_timestamp timestamp;
    struct kt_pe_signature *nested;  /* nested signatures (msNestedSignature) */
    size_t n_nested;
    /* owned */
    struct kt_pkcs7 *msg;
    struct kt_pkcs7 *ts_msg;
};

struct kt_pe_result {
    int verdict;                     /* same as kt_pe_verify's return */
    struct kt_error error;           /* the file-level reason */
    bool blacklisted;                /* an image digest is in the blacklist */
    struct kt_pe_signature *sigs;    /* one per WIN_CERTIFICATE entry */
    size_t n_sigs;
    struct kt_pe *pe;                /* the parsed image (points into the caller's buffer) */
    /* the Authenticode digests computed in the one pass: each signature's
     * algorithm and each the blacklist's image hashes use */
    enum kt_hash hashes[KT_HASH__COUNT];
    uint8_t digests[KT_HASH__COUNT][KT_HASH_MAX_SIZE];
    size_t n_hashes;
};

/* Verify buf (which must outlive *out) against the search set trust (may
 * be NULL: nothing trusted); opts->purpose is for the content rules only.
 * Returns the file's verdict (0 / -errno) and, unless the image could not be
 * parsed at all, a result in *out (free with kt_pe_result_free; certificate
 * and key pointers in it belong to the result / to the keyrings). */
int kt_pe_verify_set(const uint8_t *buf, size_t len, const struct kt_trust_set *trust,
                     const struct kt_pe_verify_opts *opts, struct kt_pe_result **out,
                     struct kt_error *err);
void kt_pe_result_free(struct kt_pe_result *r);

#endif
