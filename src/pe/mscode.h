/* mscode.h - Microsoft's SpcIndirectDataContent (the content of an
 * Authenticode PKCS#7): what is signed is the digest of the PE image. */
#ifndef KT_PE_MSCODE_H
#define KT_PE_MSCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/crypto.h"
#include "der/der.h"
#include "der/oid.h"

struct kt_mscode {
    enum kt_oid data_type;     /* KT_OID_MS_PE_IMAGE_DATA or ..._INDIVIDUAL_SP_KEY_PURPOSE */
    kt_span data_value;        /* the SpcPeImageData TLV (len 0: absent) */
    bool has_page_hashes;      /* a page-hash moniker (v1 or v2) was present and parsed */
    enum kt_hash digest_alg;   /* the image digest's algorithm */
    bool digest_alg_unsupported; /* MD2/MD4 named: refused (-ENOPKG) by the caller */
    kt_span digest;            /* its length equals kt_hash_size(digest_alg) */
};

/* Parse SpcIndirectDataContent.  buf/len: the content of the SEQUENCE
 * (the PKCS#7 content without its own tag and length, as struct kt_pkcs7
 * gives it); base: the start of the whole input, for error offsets (NULL:
 * offsets relative to buf).  Spans point into buf.
 * Errors: -EBADMSG (malformed; digest length not the algorithm's size),
 * -ENOPKG (a data type other than the two accepted, unknown digest OID). */
int kt_mscode_parse(const uint8_t *buf, size_t len, const uint8_t *base, struct kt_mscode *mc,
                    struct kt_error *err);

#endif
