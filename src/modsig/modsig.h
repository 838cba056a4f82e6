/* modsig.h - kernel module appended signatures (kernel/module/signing.c,
 * include/linux/module_signature.h), and compressed modules.
 *
 * A signed module is: the module bytes, the PKCS#7 (sig_len bytes, detached:
 * its content is the module bytes), a 12-byte struct module_signature
 * { u8 algo, hash, id_type, signer_len, key_id_len, pad[3]; be32 sig_len },
 * then the magic "~Module signature appended~\n".  Build systems sign, then
 * compress (.ko.xz, .ko.zst, .ko.gz), so the signature is inside the payload.
 */
#ifndef KT_MODSIG_MODSIG_H
#define KT_MODSIG_MODSIG_H

#include <stddef.h>
#include <stdint.h>

#include "compress/compress.h"
#include "der/der.h"
#include "keys/trust.h"
#include "pkcs7/pkcs7.h"

#define KT_MODSIG_MAGIC "~Module signature appended~\n"
#define KT_MODSIG_MAGIC_LEN 28
#define KT_MODSIG_STRUCT_LEN 12
#define KT_MODSIG_PKEY_ID_PKCS7 2
/* Upper bound for a decompressed module (decompression bombs fail -E2BIG). */
#define KT_MODSIG_MAX_DECOMPRESSED ((size_t)256 << 20)
/* Memory bounds for a compressed module, whatever it holds: it is held whole
 * up to KT_MODSIG_WHOLE_MAX decoded bytes; a larger one is read in pieces,
 * keeping its last KT_MODSIG_TAIL_MAX bytes (the trailer: a signature may not
 * be larger), then decoded again to digest the signed content.  The decoder's
 * own memory (xz dictionary, zstd window) is at most KT_MODSIG_DECODER_MEM:
 * the kernel's build compresses modules with a 1 MiB (xz) or 2 MiB (zstd -3)
 * window, xz -7 and zstd -19 fit. */
#define KT_MODSIG_WHOLE_MAX ((size_t)8 << 20)
#define KT_MODSIG_TAIL_MAX (KT_MODSIG_WHOLE_MAX / 2)
#define KT_MODSIG_DECODER_MEM ((uint64_t)32 << 20)

/* The module compressions: a subset of the shared enum kt_comp, same values. */
enum kt_modsig_comp {
    KT_MODSIG_NONE = KT_COMP_NONE,
    KT_MODSIG_XZ = KT_COMP_XZ,
    KT_MODSIG_ZSTD = KT_COMP_ZSTD,
    KT_MODSIG_GZIP = KT_COMP_GZIP,
};
/* "none", "xz", "zstd", "gzip" (kt_comp_name) */
const char *kt_modsig_comp_name(enum kt_modsig_comp c);

/* The parsed trailer. */
struct kt_modsig_info {
    uint8_t algo, hash, id_type, signer_len, key_id_len;
    uint32_t sig_len;
    size_t module_len;   /* bytes the signature covers (from 0) */
    kt_span sig;         /* the PKCS#7 DER */
    size_t sig_offset;   /* offset of the PKCS#7 in the (decompressed) module */
};

/* Parse the appended signature of an uncompressed module.  Returns 0,
 * -ENODATA (no magic: unsigned), -EBADMSG (the struct does not fit, sig_len
 * out of range, non-zero fields), -ENOPKG (id_type is not PKCS#7). */
int kt_modsig_parse(const uint8_t *buf, size_t len, struct kt_modsig_info *info,
                    struct kt_error *err);

/* Why a module has no marker at its end, in words (kt_modsig_parse's
 * -ENODATA reason): "empty file", "the file ends after N bytes, inside the
 * marker ...", "... inside the ELF section header table ...", "the ELF file
 * ends with its section header table ...: never signed", "not an ELF file". */
void kt_modsig_describe_missing(const uint8_t *buf, size_t len, char *out, size_t cap);

/* Detect compression by magic bytes (xz, zstd, gzip; other kt_comp_sniff
 * formats are not module formats: KT_MODSIG_NONE). */
enum kt_modsig_comp kt_modsig_detect(const uint8_t *buf, size_t len);

/* Decompress buf if it is compressed (streaming; at most max bytes, 0 means
 * KT_MODSIG_MAX_DECOMPRESSED).  *out and *out_len: buf itself when not
 * compressed, else the malloc'd *owned (caller frees *owned).  xz and zstd
 * decode concatenated streams, gzip its first member (kt_decompress_ex).
 * Errors: -EBADMSG corrupt stream (with offset), -E2BIG over the limit (a
 * decompression bomb), -ENOPKG unsupported xz options, -ENOMEM. */
int kt_modsig_decompress(const uint8_t *buf, size_t len, size_t max, const uint8_t **out,
                         size_t *out_len, uint8_t **owned, enum kt_modsig_comp *comp,
                         struct kt_error *err);

/* A module's payload as kt_modsig_load read it: whole (len == total), or
 * its last len bytes. */
struct kt_modsig_payload {
    const uint8_t *p;
    size_t len;
    size_t total;    /* the payload's size (decompressed) */
    uint8_t *owned;  /* what p points into when it is not the caller's buf */
};

/* Read a module file's payload within the bounds above: buf itself when not
 * compressed, else the decoded bytes whole or their tail (pl->owned, the
 * caller frees it).  Errors as kt_modsig_decompress. */
int kt_modsig_load(const uint8_t *buf, size_t len, struct kt_modsig_payload *pl,
                   enum kt_modsig_comp *comp, struct kt_error *err);

/* The whole file's digest wanted besides the signed content's: hashes[i]
 * over the content followed by tail (the signature, struct and marker),
 * into out (kt_hash_size bytes). */
struct kt_modsig_whole {
    size_t i;
    const uint8_t *tail;
    size_t tail_len;
    uint8_t *out;
};

/* Digest the first n decoded bytes of the compressed module buf with each
 * of hashes[0..nh) (out[i]: hashes[i]'s digest), decoding it again in
 * pieces; whole (may be NULL) in the same pass.  Errors as
 * kt_modsig_decompress; -EBADMSG when it is shorter. */
int kt_modsig_digest_stream(const uint8_t *buf, size_t len, enum kt_modsig_comp comp, size_t n,
                            const enum kt_hash *hashes, size_t nh,
                            uint8_t out[][KT_HASH_MAX_SIZE], const struct kt_modsig_whole *whole,
                            struct kt_error *err);

/* The saved form's first line, and the most its header may take. */
#define KT_MODSIG_COMPACT_HEAD "ktrust-module-signature 1\n"
#define KT_MODSIG_COMPACT_MAX_HEADER 4096

/* A module saved as what verifying it needs (compact.c, `audit
 * --save-root`): its compression and sizes, the digests of its signed
 * content, its bytes from the signature on (pointing into the caller's). */
struct kt_modsig_compact {
    enum kt_modsig_comp comp;
    size_t size, signed_len;
    size_t n;
    enum kt_hash hash[KT_HASH__COUNT];
    uint8_t digest[KT_HASH__COUNT][KT_HASH_MAX_SIZE];
    const uint8_t *trailer;
    size_t trailer_len;
    bool has_file_sha256;          /* a "file sha256" line: the whole file's */
    uint8_t file_sha256[32];
};

/* Parse a saved module: 0, -ENOENT (not one: no error recorded), -EBADMSG. */
int kt_modsig_compact_parse(const uint8_t *buf, size_t len, struct kt_modsig_compact *cm,
                            struct kt_error *err);

/* A module file's bytes (compressed or not) as a saved module (*out
 * malloc'd, the caller frees it), verified later with the same verdicts:
 * kt_modsig_prepare reads either (with saved_ok); a saved module is
 * returned as it is.  -EOPNOTSUPP when it cannot be (unsigned,
 * malformed, a signature carrying its content: keep the file whole),
 * -ENOMEM. */
int kt_modsig_compact_make(const uint8_t *buf, size_t len, uint8_t **out, size_t *out_len,
                           struct kt_error *err);

/* The result of verifying one module.  Zero it, optionally set `policy`
 * (SHA-1, --check-time), call kt_modsig_verify(_set), then kt_modsig_result_free. */
struct kt_modsig_result {
    struct kt_pkcs7_policy policy; /* in */
    bool saved_ok;                 /* in: buf may be a saved module (compact.c) */
    enum kt_modsig_comp comp;
    size_t module_size;            /* decompressed size */
    bool has_sig;                  /* the trailer parsed */
    struct kt_modsig_info info;
    struct kt_pkcs7 *msg;          /* the parsed signature with per-signer results
                                    * (signer id, digest, signer_key, trusted_by,
                                    * verdict), or NULL if parsing failed */
    uint8_t *owned;                /* bytes msg points into when not the caller's:
                                    * the decompressed module, or (prepared with
                                    * keep) a copy of the signature */
    int rc;                        /* the verdict, as returned */
    /* trusted only through the trust set's retry keyring: its why (the
     * kernel's patch that searches it), else NULL */
    const char *via;
    /* kt_modsig_prepare: the module's digest for each signer's algorithm */
    struct kt_pkcs7_digest digests[KT_HASH__COUNT];
    uint8_t digest_bytes[KT_HASH__COUNT][KT_HASH_MAX_SIZE];
    size_t n_digests;
    /* kt_modsig_prepare: the SHA-256 of the whole (decompressed) file, its
     * signature and marker included, as Debian's module hash check computes
     * it (kt_modsig_finish, trust->hash_check_why); false: not known (a
     * saved module from before it was recorded) */
    bool has_file_sha256;
    uint8_t file_sha256[32];
};

/* Verify a module file's bytes (compressed or not) as the kernel does
 * (mod_verify_sig + verify_pkcs7_signature, module content rules) against
 * the search set trust (may be NULL: nothing trusted; policy/verify.h's
 * kt_modsig_verify uses the module purpose's keyrings).  Returns 0 trusted,
 * -ENODATA unsigned, -EBADMSG malformed, -ENOPKG unsupported,
 * -EKEYREJECTED bad signature/blacklisted, -ENOKEY no trusted key,
 * -E2BIG decompression limit, -ENOMEM.  res is filled in every case.
 * It is kt_modsig_prepare then kt_modsig_finish. */
int kt_modsig_verify_set(const uint8_t *buf, size_t len, const struct kt_trust_set *trust,
                         struct kt_modsig_result *res, struct kt_error *err);

/* The two halves of kt_modsig_verify_set, for a caller that reads modules
 * before it has the keys (scan while a kernel image is decoded):
 * kt_modsig_prepare needs no key: it decompresses, parses the trailer and
 * the PKCS#7, applies the module content rules and digests the module for
 * each signer's algorithm.  With keep, res holds a copy of the signature and
 * nothing of buf, which may then be reused.  Returns res->rc: 0 when the
 * signatures are ready to check, else the final verdict (err says why).
 * kt_modsig_finish checks the signatures against trust; called after a
 * failed prepare it returns that result unchanged. */
int kt_modsig_prepare(const uint8_t *buf, size_t len, bool keep, struct kt_modsig_result *res,
                      struct kt_error *err);
int kt_modsig_finish(struct kt_modsig_result *res, const struct kt_trust_set *trust,
                     struct kt_error *err);
void kt_modsig_result_free(struct kt_modsig_result *res);

#endif
