/* SpcIndirectDataContent ::= SEQUENCE {
 *     data           SpcAttributeTypeAndOptionalValue,  -- SEQUENCE { type OID, value ANY OPTIONAL }
 *     messageDigest  DigestInfo }                        -- SEQUENCE { AlgorithmIdentifier, OCTET STRING }
 * SpcPeImageData ::= SEQUENCE { flags BIT STRING OPTIONAL, file [0] EXPLICIT SpcLink OPTIONAL }
 * SpcLink ::= CHOICE { url [0] IMPLICIT IA5String,
 *                      moniker [1] IMPLICIT SpcSerializedObject,
 *                      file [2] EXPLICIT SpcString }
 * SpcSerializedObject ::= SEQUENCE { classId OCTET STRING, serializedData OCTET STRING }
 *   page hashes: serializedData = SET OF SEQUENCE { OID (page hashes v1/v2), SET OF OCTET STRING }
 */
#include "pe/mscode.h"

#include <string.h>

static int parse_page_hashes(kt_der *ser, bool *found)
{
    kt_der set, attr, vals;
    KT_TRY(kt_der_get(ser, KT_TAG_SET, &set, "pageHashes"));
    while (!kt_der_empty(&set)) {
        enum kt_oid id;
        KT_TRY(kt_der_get(&set, KT_TAG_SEQUENCE, &attr, "pageHashes.attribute"));
        KT_TRY(kt_der_get_oid_id(&attr, &id, NULL, "pageHashes.type"));
        KT_TRY(kt_der_get(&attr, KT_TAG_SET, &vals, "pageHashes.values"));
        while (!kt_der_empty(&vals)) {
            kt_span h;
            KT_TRY(kt_der_get_octets(&vals, &h, "pageHashes.value"));
        }
        KT_TRY(kt_der_expect_end(&attr, "pageHashes.attribute"));
        if (id == KT_OID_MS_PAGE_HASH_V1 || id == KT_OID_MS_PAGE_HASH_V2)
            *found = true;
    }
    return kt_der_expect_end(ser, "serializedData");
}

static int parse_pe_image_data(kt_der *d, struct kt_mscode *mc)
{
    kt_der img, link, obj;
    bool present;
    KT_TRY(kt_der_get(d, KT_TAG_SEQUENCE, &img, "SpcPeImageData"));
    if (kt_der_peek(&img, KT_TAG_BIT_STRING)) {
        kt_span bits;
        unsigned unused;
        KT_TRY(kt_der_get_bitstring(&img, &bits, &unused, "SpcPeImageData.flags"));
    }
    KT_TRY(kt_der_get_optional(&img, KT_CTX_CONS(0), &link, &present, "SpcPeImageData.file"));
    if (present) {
        uint32_t tag;
        KT_TRY(kt_der_peek_tag(&link, &tag));
        if (tag == KT_CTX_CONS(1)) {
            kt_span cls, ser;
            KT_TRY(kt_der_get(&link, KT_CTX_CONS(1), &obj, "SpcLink.moniker"));
            KT_TRY(kt_der_get_octets(&obj, &cls, "SpcSerializedObject.classId"));
            KT_TRY(kt_der_get_octets(&obj, &ser, "SpcSerializedObject.serializedData"));
            KT_TRY(kt_der_expect_end(&obj, "SpcSerializedObject"));
            if (ser.len) {
                kt_der sd = *d;
                sd.p = ser.p;
                sd.len = ser.len;
                KT_TRY(parse_page_hashes(&sd, &mc->has_page_hashes));
            }
        } else {
            KT_TRY(kt_der_skip_any(&link, "SpcLink"));
        }
        KT_TRY(kt_der_expect_end(&link, "SpcPeImageData.file"));
    }
    return kt_der_expect_end(&img, "SpcPeImageData");
}

int kt_mscode_parse(const uint8_t *buf, size_t len, const uint8_t *base, struct kt_mscode *mc,
                    struct kt_error *err)
{
    memset(mc, 0, sizeof(*mc));
    kt_der d, data, dinfo;
    kt_der_init(&d, buf, len, KT_DER_BER, err);
    if (base && base <= buf)
        d.base = base;
    KT_TRY(kt_der_get(&d, KT_TAG_SEQUENCE, &data, "SpcIndirectDataContent.data"));
    size_t type_off = kt_der_offset(&data);
    KT_TRY(kt_der_get_oid_id(&data, &mc->data_type, NULL, "SpcAttributeTypeAndOptionalValue.type"));
    if (mc->data_type != KT_OID_MS_PE_IMAGE_DATA &&
        mc->data_type != KT_OID_MS_INDIVIDUAL_SP_KEY_PURPOSE)
        return kt_fail(err, -ENOPKG, type_off,
                       "SpcIndirectDataContent: data type is not SPC_PE_IMAGE_DATA");
    if (!kt_der_empty(&data)) {
        kt_der val = data;
        uint32_t tag;
        kt_span whole;
        KT_TRY(kt_der_get_any(&val, &tag, NULL, &whole));
        mc->data_value = whole;
        if (mc->data_type == KT_OID_MS_PE_IMAGE_DATA)
            KT_TRY(parse_pe_image_data(&data, mc));
        else
            data = val;
    }
    KT_TRY(kt_der_expect_end(&data, "SpcAttributeTypeAndOptionalValue"));

    KT_TRY(kt_der_get(&d, KT_TAG_SEQUENCE, &dinfo, "SpcIndirectDataContent.messageDigest"));
    KT_TRY(kt_hashalg_parse(&dinfo, &mc->digest_alg, "DigestInfo.digestAlgorithm"));
    if (mc->digest_alg == KT_HASH_MD2 || mc->digest_alg == KT_HASH_MD4)
        mc->digest_alg_unsupported = true;
    size_t dig_off = kt_der_offset(&dinfo);
    KT_TRY(kt_der_get_octets(&dinfo, &mc->digest, "DigestInfo.digest"));
    KT_TRY(kt_der_expect_end(&dinfo, "DigestInfo"));
    if (mc->digest.len != kt_hash_size(mc->digest_alg))
        return kt_fail(err, -EBADMSG, dig_off,
                       "DigestInfo.digest: %zu bytes, but %s digests are %zu bytes",
                       mc->digest.len, kt_hash_name(mc->digest_alg),
                       kt_hash_size(mc->digest_alg));
    return kt_der_expect_end(&d, "SpcIndirectDataContent");
}
