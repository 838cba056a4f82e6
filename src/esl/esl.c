/* esl.c - EFI_SIGNATURE_LIST parsing and building (UEFI spec 2.x, 32.4.1).
 *
 * Layout of one list (all integers little-endian):
 *   GUID SignatureType; u32 SignatureListSize; u32 SignatureHeaderSize;
 *   u32 SignatureSize; u8 header[SignatureHeaderSize];
 *   { GUID SignatureOwner; u8 data[SignatureSize - 16]; } x N
 * with N = (ListSize - 28 - HeaderSize) / SignatureSize exactly.
 */
#include "esl/esl.h"
#include "util/le.h"

#include <stdlib.h>
#include <string.h>

#define ESL_HDR 28u
#define GUID_LEN 16u

const uint8_t kt_esl_guid_x509[16] = {0xa1, 0x59, 0xc0, 0xa5, 0xe4, 0x94, 0xa7, 0x4a,
                                      0x87, 0xb5, 0xab, 0x15, 0x5c, 0x2b, 0xf0, 0x72};
const uint8_t kt_esl_guid_sha256[16] = {0x26, 0x16, 0xc4, 0xc1, 0x4c, 0x50, 0x92, 0x40,
                                        0xac, 0xa9, 0x41, 0xf9, 0x36, 0x93, 0x43, 0x28};
const uint8_t kt_esl_guid_x509_sha256[16] = {0x92, 0xa4, 0xd2, 0x3b, 0xc0, 0x96, 0x79, 0x40,
                                             0xb4, 0x20, 0xfc, 0xf9, 0x8e, 0xf1, 0x03, 0xed};
const uint8_t kt_esl_guid_x509_sha384[16] = {0x6e, 0x87, 0x76, 0x70, 0xc2, 0x80, 0xe6, 0x4e,
                                             0xaa, 0xd2, 0x28, 0xb3, 0x49, 0xa6, 0x86, 0x5b};
const uint8_t kt_esl_guid_x509_sha512[16] = {0x63, 0xbf, 0x6d, 0x44, 0x02, 0x25, 0xda, 0x4c,
                                             0xbc, 0xfa, 0x24, 0x65, 0xd2, 0xb0, 0xfe, 0x9d};
/* EFI_CERT_TYPE_PKCS7_GUID 4aafd29d-68df-49ee-8aa9-347d375665a7 */
static const uint8_t guid_pkcs7[16] = {0x9d, 0xd2, 0xaf, 0x4a, 0xdf, 0x68, 0xee, 0x49,
                                       0x8a, 0xa9, 0x34, 0x7d, 0x37, 0x56, 0x65, 0xa7};

#define EFI_VARIABLE_ATTRIBUTES_MASK 0x7fu /* NV BS RT HR AW TBAW APPEND */
#define WIN_CERT_TYPE_EFI_GUID 0x0ef1u
#define EFI_TIME_LEN 16u


static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

const char *kt_esl_type_name(enum kt_esl_type t)
{
    switch (t) {
    case KT_ESL_X509: return "x509";
    case KT_ESL_SHA256: return "sha256";
    case KT_ESL_X509_SHA256: return "x509_sha256";
    case KT_ESL_X509_SHA384: return "x509_sha384";
    case KT_ESL_X509_SHA512: return "x509_sha512";
    default: return "other";
    }
}

static enum kt_esl_type type_of(const uint8_t *guid)
{
    if (!memcmp(guid, kt_esl_guid_x509, 16))
        return KT_ESL_X509;
    if (!memcmp(guid, kt_esl_guid_sha256, 16))
        return KT_ESL_SHA256;
    if (!memcmp(guid, kt_esl_guid_x509_sha256, 16))
        return KT_ESL_X509_SHA256;
    if (!memcmp(guid, kt_esl_guid_x509_sha384, 16))
        return KT_ESL_X509_SHA384;
    if (!memcmp(guid, kt_esl_guid_x509_sha512, 16))
        return KT_ESL_X509_SHA512;
    return KT_ESL_OTHER;
}

static const uint8_t *guid_of(enum kt_esl_type t)
{
    switch (t) {
    case KT_ESL_X509: return kt_esl_guid_x509;
    case KT_ESL_SHA256: return kt_esl_guid_sha256;
    case KT_ESL_X509_SHA256: return kt_esl_guid_x509_sha256;
    case KT_ESL_X509_SHA384: return kt_esl_guid_x509_sha384;
    case KT_ESL_X509_SHA512: return kt_esl_guid_x509_sha512;
    default: return NULL;
    }
}

/* Hash size of a hash type (0 for others) and the bytes after the hash. */
static size_t hash_len(enum kt_esl_type t)
{
    switch (t) {
    case KT_ESL_SHA256:
    case KT_ESL_X509_SHA256: return 32;
    case KT_ESL_X509_SHA384: return 48;
    case KT_ESL_X509_SHA512: return 64;
    default: return 0;
    }
}

static size_t hash_trailer(enum kt_esl_type t)
{
    return (t == KT_ESL_X509_SHA256 || t == KT_ESL_X509_SHA384 || t == KT_ESL_X509_SHA512)
               ? EFI_TIME_LEN
               : 0;
}

/* Is there a consistent list header at the start of c?  (Without
 * reporting; c is a copy.) */
static bool header_ok(kt_le c)
{
    size_t len = kt_le_left(&c);
    uint32_t lsize, hsize, ssize;
    if (kt_le_skip(&c, GUID_LEN, NULL) < 0 || kt_le_u32(&c, &lsize, NULL) < 0 ||
        kt_le_u32(&c, &hsize, NULL) < 0 || kt_le_u32(&c, &ssize, NULL) < 0)
        return false;
    if (lsize < ESL_HDR || lsize > len || hsize > lsize - ESL_HDR || ssize <= GUID_LEN)
        return false;
    return (lsize - ESL_HDR - hsize) % ssize == 0;
}

/* Move c to where the lists start: past an efivarfs attribute word and/or
 * an EFI_VARIABLE_AUTHENTICATION_2 header. */
static void skip_var_headers(kt_le *c)
{
    kt_le w = *c;
    uint32_t attr, dwlen;
    if (kt_le_u32(&w, &attr, NULL) == 0 && !header_ok(*c) && attr != 0 &&
        (attr & ~EFI_VARIABLE_ATTRIBUTES_MASK) == 0)
        *c = w;
    /* EFI_TIME, then WIN_CERTIFICATE_UEFI_GUID {u32 dwLength, u16 wRevision,
     * u16 wCertificateType, GUID CertType, data}; dwLength covers the
     * WIN_CERTIFICATE_UEFI_GUID. */
    uint16_t revision, cert_type;
    const uint8_t *guid;
    w = *c;
    if (kt_le_skip(&w, EFI_TIME_LEN, NULL) < 0 || kt_le_u32(&w, &dwlen, NULL) < 0 ||
        kt_le_u16(&w, &revision, NULL) < 0 || kt_le_u16(&w, &cert_type, NULL) < 0 ||
        kt_le_bytes(&w, GUID_LEN, &guid, NULL) < 0)
        return;
    if (revision == 0x0200 && cert_type == WIN_CERT_TYPE_EFI_GUID &&
        !memcmp(guid, guid_pkcs7, 16) && dwlen >= 24 && dwlen <= kt_le_left(c) - EFI_TIME_LEN)
        kt_le_skip(c, EFI_TIME_LEN + dwlen, NULL);
}

bool kt_esl_looks_like(const uint8_t *buf, size_t len)
{
    if (!buf || len < 16)
        return false;
    /* A known SignatureType GUID is 128 bits no certificate, PEM or text
     * starts with; whether the sizes are right is kt_esl_foreach's to say
     * (with the precise field), so a broken list is still an ESL. */
    kt_le c;
    const uint8_t *type;
    kt_le_init(&c, buf, len, NULL);
    skip_var_headers(&c);
    return kt_le_bytes(&c, GUID_LEN, &type, NULL) == 0 && type_of(type) != KT_ESL_OTHER;
}

/* One list's header at the front of c: on success *list is the list's
 * signatures (after the header and SignatureHeader), *type_guid its
 * SignatureType and *ssize its SignatureSize, checked against the type. */
static int read_list_header(kt_le *c, size_t list_index, kt_le *list, const uint8_t **type_guid,
                            uint32_t *ssize, struct kt_error *err)
{
    size_t off = kt_le_offset(c);
    uint32_t lsize, hsize;
    kt_le hdr = *c;
    if (kt_le_bytes(&hdr, GUID_LEN, type_guid, NULL) < 0 || kt_le_u32(&hdr, &lsize, NULL) < 0 ||
        kt_le_u32(&hdr, &hsize, NULL) < 0 || kt_le_u32(&hdr, ssize, NULL) < 0)
        return kt_fail(err, -EBADMSG, off,
                       "EFI_SIGNATURE_LIST %zu: header truncated (%zu bytes left, need 28)",
                       list_index, kt_le_left(c));
    if (lsize < ESL_HDR)
        return kt_fail(err, -EBADMSG, off + 16,
                       "EFI_SIGNATURE_LIST %zu: SignatureListSize %zu is smaller than "
                       "the 28-byte header",
                       list_index, (size_t)lsize);
    if (kt_le_sub(c, lsize, list, NULL) < 0)
        return kt_fail(err, -EBADMSG, off + 16,
                       "EFI_SIGNATURE_LIST %zu: SignatureListSize %zu runs past the end "
                       "(%zu bytes left)",
                       list_index, (size_t)lsize, kt_le_left(c));
    if (hsize & 1)
        return kt_fail(err, -EBADMSG, off + 20,
                       "EFI_SIGNATURE_LIST %zu: SignatureHeaderSize %zu is odd", list_index,
                       (size_t)hsize);
    if (kt_le_skip(list, ESL_HDR, NULL) < 0 || kt_le_skip(list, hsize, NULL) < 0)
        return kt_fail(err, -EBADMSG, off + 20,
                       "EFI_SIGNATURE_LIST %zu: SignatureHeaderSize %zu exceeds the list",
                       list_index, (size_t)hsize);
    if (*ssize == 0)
        return kt_fail(err, -EBADMSG, off + 24, "EFI_SIGNATURE_LIST %zu: SignatureSize is 0",
                       list_index);
    if (*ssize <= GUID_LEN)
        return kt_fail(err, -EBADMSG, off + 24,
                       "EFI_SIGNATURE_LIST %zu: SignatureSize %zu leaves no room for data "
                       "after the owner GUID",
                       list_index, (size_t)*ssize);
    size_t body = kt_le_left(list);
    if (body % *ssize != 0)
        return kt_fail(err, -EBADMSG, off + 24,
                       "EFI_SIGNATURE_LIST %zu: SignatureSize %zu does not divide the "
                       "%zu bytes of signatures",
                       list_index, (size_t)*ssize, body);
    enum kt_esl_type t = type_of(*type_guid);
    if (hash_len(t) && *ssize - GUID_LEN != hash_len(t) + hash_trailer(t))
        return kt_fail(err, -EBADMSG, off + 24,
                       "EFI_SIGNATURE_LIST %zu: SignatureSize %zu is wrong for %s entries "
                       "(want %zu)",
                       list_index, (size_t)*ssize, kt_esl_type_name(t),
                       GUID_LEN + hash_len(t) + hash_trailer(t));
    return 0;
}

/* Each signature of one list (the slots of ssize bytes in list) to cb. */
static int list_entries(kt_le *list, size_t list_index, const uint8_t *type_guid, uint32_t ssize,
                        kt_esl_cb cb, void *ctx, struct kt_error *err)
{
    enum kt_esl_type t = type_of(type_guid);
    size_t dlen = ssize - GUID_LEN;
    kt_le slot;
    for (size_t i = 0; kt_le_sub(list, ssize, &slot, NULL) == 0; i++) {
        const uint8_t *owner;
        kt_le_bytes(&slot, GUID_LEN, &owner, NULL); /* ssize > GUID_LEN */
        struct kt_esl_entry e = {
            .type = t,
            .type_guid = type_guid,
            .owner = owner,
            .data = {slot.p, dlen},
            .offset = kt_le_offset(&slot),
            .list_index = list_index,
            .entry_index = i,
        };
        if (hash_len(t)) {
            e.data.len = hash_len(t);
        } else if (t == KT_ESL_X509) {
            /* One DER certificate; some tools pad the slot, so the
             * certificate's own length decides. */
            kt_der d;
            kt_span whole;
            kt_der_init(&d, e.data.p, e.data.len, KT_DER_STRICT, NULL);
            if (!kt_der_peek(&d, KT_TAG_SEQUENCE) ||
                kt_der_get_element(&d, KT_TAG_SEQUENCE, &whole, "certificate") < 0)
                return kt_fail(err, -EBADMSG, e.offset,
                               "EFI_SIGNATURE_LIST %zu entry %zu: X509 data is not a "
                               "DER certificate SEQUENCE within the %zu-byte slot",
                               list_index, i, dlen);
            e.data = whole;
        }
        if (cb)
            KT_TRY(cb(ctx, &e));
    }
    return 0;
}

int kt_esl_foreach(const uint8_t *buf, size_t len, kt_esl_cb cb, void *ctx,
                   struct kt_error *err)
{
    kt_le c, list;
    kt_le_init(&c, buf, len, NULL);
    skip_var_headers(&c);
    for (size_t list_index = 0; kt_le_left(&c); list_index++) {
        const uint8_t *type_guid;
        uint32_t ssize;
        KT_TRY(read_list_header(&c, list_index, &list, &type_guid, &ssize, err));
        KT_TRY(list_entries(&list, list_index, type_guid, ssize, cb, ctx, err));
    }
    return 0;
}

static int build(const uint8_t *type, const kt_span *items, size_t n, size_t per_list,
                 size_t pad, const uint8_t owner[16], uint8_t **out, size_t *len)
{
    /* per_list: items per list (SIZE_MAX = all in one list); pad: zero bytes
     * after each item (EFI_TIME of X509_SHA* entries). */
    static const uint8_t zero_guid[16];
    *out = NULL;
    *len = 0;
    if (n == 0)
        return 0;
    if (!owner)
        owner = zero_guid;
    size_t total = 0, nlists = per_list == 1 ? n : 1;
    for (size_t i = 0; i < n; i++) {
        if (items[i].len > UINT32_MAX - ESL_HDR - GUID_LEN - pad)
            return -EINVAL;
        total += GUID_LEN + items[i].len + pad;
        if (total > UINT32_MAX - ESL_HDR * nlists)
            return -EINVAL;
    }
    total += ESL_HDR * nlists;
    uint8_t *b = malloc(total);
    if (!b)
        return -ENOMEM;
    uint8_t *w = b;
    for (size_t i = 0; i < n; i++) {
        if (per_list == 1 || i == 0) {
            size_t ssize = GUID_LEN + items[i].len + pad;
            size_t lsize = ESL_HDR + (per_list == 1 ? ssize : ssize * n);
            memcpy(w, type, 16);
            put32(w + 16, (uint32_t)lsize);
            put32(w + 20, 0);
            put32(w + 24, (uint32_t)ssize);
            w += ESL_HDR;
        }
        memcpy(w, owner, GUID_LEN);
        w += GUID_LEN;
        if (items[i].len)
            memcpy(w, items[i].p, items[i].len);
        w += items[i].len;
        memset(w, 0, pad);
        w += pad;
    }
    *out = b;
    *len = total;
    return 0;
}

int kt_esl_build_x509(const kt_span *certs, size_t n, const uint8_t owner[16], uint8_t **out,
                      size_t *len)
{
    return build(kt_esl_guid_x509, certs, n, 1, 0, owner, out, len);
}

int kt_esl_build_hashes(enum kt_esl_type t, const uint8_t *const *digests, size_t n,
                        const uint8_t owner[16], uint8_t **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    size_t hl = hash_len(t);
    if (!hl)
        return -EINVAL;
    if (n == 0)
        return 0;
    if (n > (UINT32_MAX - ESL_HDR) / (GUID_LEN + hl + hash_trailer(t)))
        return -EINVAL;
    kt_span *items = malloc(n * sizeof(*items));
    if (!items)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        items[i] = (kt_span){digests[i], hl};
    int rc = build(guid_of(t), items, n, SIZE_MAX, hash_trailer(t), owner, out, len);
    free(items);
    return rc;
}
