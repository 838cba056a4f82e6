/* authvar.c - EFI_VARIABLE_AUTHENTICATION_2: parse, the signed bytes, the
 * vendor GUIDs, entry type names. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "authvar/authvar.h"
#include "boot/vars.h"
#include "util/le.h"
#include "esl/esl_svn.h"

static const uint8_t guid_pkcs7[16] = {0x9d, 0xd2, 0xaf, 0x4a, 0xdf, 0x68, 0xee, 0x49,
                                       0x8a, 0xa9, 0x34, 0x7d, 0x37, 0x56, 0x65, 0xa7};
bool kt_authvar_looks_like(const uint8_t *buf, size_t len)
{
    return len >= 40 && memcmp(buf + 24, guid_pkcs7, 16) == 0;
}

const uint8_t *kt_authvar_vendor(const char *name)
{
    const struct kt_var_info *v = kt_var_find(name);
    return kt_var_authenticated(v) ? kt_var_vendor_guid(v->vendor) : NULL;
}

/* EFI_TIME from the 16 bytes of c. */
static int parse_time(kt_le *c, struct kt_authvar *v, struct kt_error *err)
{
    struct kt_efi_time *t = &v->time;
    uint16_t tz;
    kt_le_u16(c, &t->year, NULL);
    kt_le_u8(c, &t->month, NULL);
    kt_le_u8(c, &t->day, NULL);
    kt_le_u8(c, &t->hour, NULL);
    kt_le_u8(c, &t->minute, NULL);
    kt_le_u8(c, &t->second, NULL);
    kt_le_u8(c, &t->pad1, NULL);
    kt_le_u32(c, &t->nanosecond, NULL);
    kt_le_u16(c, &tz, NULL);
    t->timezone = (int16_t)tz;
    kt_le_u8(c, &t->daylight, NULL);
    kt_le_u8(c, &t->pad2, NULL);
    if (t->pad1)
        return kt_fail(err, -EBADMSG, 7, "EFI_TIME.Pad1 is %u, must be 0", t->pad1);
    if (t->nanosecond)
        return kt_fail(err, -EBADMSG, 8, "EFI_TIME.Nanosecond is %u, must be 0", t->nanosecond);
    if (t->timezone)
        return kt_fail(err, -EBADMSG, 12, "EFI_TIME.TimeZone is %d, must be 0", t->timezone);
    if (t->daylight)
        return kt_fail(err, -EBADMSG, 14, "EFI_TIME.Daylight is %u, must be 0", t->daylight);
    if (t->pad2)
        return kt_fail(err, -EBADMSG, 15, "EFI_TIME.Pad2 is %u, must be 0", t->pad2);
    /* an all-zero time is what some tools write; otherwise a real date */
    bool zero = !t->year && !t->month && !t->day && !t->hour && !t->minute && !t->second;
    if (!zero && (t->year < 1900 || t->year > 9999 || t->month < 1 || t->month > 12 ||
                  t->day < 1 || t->day > 31 || t->hour > 23 || t->minute > 59 || t->second > 59))
        return kt_fail(err, -EBADMSG, 0, "EFI_TIME %04u-%02u-%02u %02u:%02u:%02u is not a time",
                       t->year, t->month, t->day, t->hour, t->minute, t->second);
    /* not timegm: it reads the host's /etc/localtime, and UTC needs no zone */
    v->timestamp = kt_days_from_civil(zero ? 1970 : t->year, zero ? 1 : t->month,
                                      zero ? 1 : t->day) * 86400 +
                   t->hour * 3600 + t->minute * 60 + t->second;
    return 0;
}

int kt_authvar_parse(const uint8_t *buf, size_t len, struct kt_authvar *out,
                     struct kt_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!kt_authvar_looks_like(buf, len))
        return kt_fail(err, -ENODATA, KT_NO_OFFSET,
                       "no EFI_VARIABLE_AUTHENTICATION_2 header (not a signed update)");
    /* EFI_TIME, then WIN_CERTIFICATE_UEFI_GUID {u32 dwLength, u16 wRevision,
     * u16 wCertificateType, GUID CertType (checked above), CertData} */
    kt_le c, time, cert_data;
    uint32_t dwlen;
    uint16_t revision, cert_type;
    kt_le_init(&c, buf, len, NULL);
    kt_le_sub(&c, 16, &time, NULL); /* 40 bytes: checked */
    kt_le_u32(&c, &dwlen, NULL);
    kt_le_u16(&c, &revision, NULL);
    kt_le_u16(&c, &cert_type, NULL);
    kt_le_skip(&c, 16, NULL);
    if (revision != 0x0200)
        return kt_fail(err, -EBADMSG, 20, "WIN_CERTIFICATE.wRevision is 0x%04x, must be 0x0200",
                       revision);
    if (cert_type != 0x0ef1)
        return kt_fail(err, -EBADMSG, 22,
                       "WIN_CERTIFICATE.wCertificateType is 0x%04x, must be 0x0EF1", cert_type);
    KT_TRY(parse_time(&time, out, err));
    out->time_raw.p = buf;
    out->time_raw.len = 16;
    out->cert_len = dwlen;
    if (out->cert_len < 24)
        return kt_fail(err, -EBADMSG, 16, "WIN_CERTIFICATE.dwLength %u is below its header (24)",
                       out->cert_len);
    if (out->cert_len > len - 16)
        return kt_fail(err, -EBADMSG, 16,
                       "WIN_CERTIFICATE.dwLength %u runs past the end of the file (%zu)",
                       out->cert_len, len);
    kt_le_sub(&c, out->cert_len - 24, &cert_data, NULL); /* within the file: checked */
    const uint8_t *p7 = cert_data.p;
    size_t p7cap = cert_data.len;
    size_t el = kt_x509_element_len(p7, p7cap);
    if (p7cap == 0 || p7[0] != 0x30 || el == 0)
        return kt_fail(err, -EBADMSG, 40, "CertData: not a DER SEQUENCE inside dwLength");
    if (el != p7cap)
        return kt_fail(err, -EBADMSG, 40 + el,
                       "CertData: %zu bytes after the PKCS#7 inside dwLength", p7cap - el);
    out->pkcs7.p = p7;
    out->pkcs7.len = el;
    out->pkcs7_offset = 40;
    /* ContentInfo: SEQUENCE { OID signedData, [0] ... }; raw SignedData
     * starts with its INTEGER version */
    kt_der d, seq;
    kt_der_init(&d, p7, el, KT_DER_BER, NULL);
    if (kt_der_get(&d, KT_TAG_SEQUENCE, &seq, "CertData") < 0 || seq.len < 1)
        return kt_fail(err, -EBADMSG, 40, "CertData: not a PKCS#7 SEQUENCE");
    out->content_info_wrapped = seq.p[0] == 0x06;
    out->payload.p = c.p;
    out->payload.len = kt_le_left(&c);
    out->payload_offset = kt_le_offset(&c);
    return 0;
}

int kt_authvar_signed(const struct kt_authvar *v, const char *name, const uint8_t vendor[16],
                      uint32_t attributes, uint8_t **out, size_t *out_len)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < nl; i++)
        if ((unsigned char)name[i] >= 0x80)
            return -EINVAL;
    size_t n = 2 * nl + 16 + 4 + 16 + v->payload.len;
    uint8_t *b = malloc(n ? n : 1);
    if (!b)
        return -ENOMEM;
    size_t o = 0;
    for (size_t i = 0; i < nl; i++) {
        b[o++] = (uint8_t)name[i];
        b[o++] = 0;
    }
    memcpy(b + o, vendor, 16);
    o += 16;
    for (int i = 0; i < 4; i++)
        b[o++] = (uint8_t)(attributes >> (8 * i));
    memcpy(b + o, v->time_raw.p, 16);
    o += 16;
    if (v->payload.len)
        memcpy(b + o, v->payload.p, v->payload.len);
    *out = b;
    *out_len = n;
    return 0;
}

static const struct {
    const char *name;
    uint8_t guid[16];
    size_t size; /* SignatureData size; 0: variable (X509) */
} other_types[] = {
    {"sha1", {0x12, 0xa5, 0x6c, 0x82, 0x10, 0xcf, 0xc9, 0x4a, 0xb1, 0x87, 0xbe, 0x01, 0x49, 0x66, 0x31, 0xbd}, 20},
    {"sha224", {0x33, 0x52, 0x6e, 0x0b, 0x5c, 0xa6, 0xc9, 0x44, 0x94, 0x07, 0xd9, 0xab, 0x83, 0xbf, 0xc8, 0xbd}, 28},
    {"sha384", {0x07, 0x53, 0x3e, 0xff, 0xd0, 0x9f, 0xc9, 0x48, 0x85, 0xf1, 0x8a, 0xd5, 0x6c, 0x70, 0x1e, 0x01}, 48},
    {"sha512", {0xae, 0x0f, 0x3e, 0x09, 0xc4, 0xa6, 0x50, 0x4f, 0x9f, 0x1b, 0xd4, 0x1e, 0x2b, 0x89, 0xc1, 0x9a}, 64},
    {"rsa2048", {0xe8, 0x66, 0x57, 0x3c, 0x9c, 0x26, 0x34, 0x4e, 0xaa, 0x14, 0xed, 0x77, 0x6e, 0x85, 0xb3, 0xb6}, 256},
    {"rsa2048_sha256", {0x90, 0x61, 0xb3, 0xe2, 0x9b, 0x87, 0x3d, 0x4a, 0xad, 0x8d, 0xf2, 0xe7, 0xbb, 0xa3, 0x27, 0x84}, 32},
    {"rsa2048_sha1", {0x4f, 0x44, 0xf8, 0x67, 0x43, 0x87, 0xf1, 0x48, 0xa3, 0x28, 0x1e, 0xaa, 0xb8, 0x73, 0x60, 0x80}, 20},
};

/* The known type of an OTHER entry, or -1; *size its SignatureData size. */
int kt_authvar_other_type(const struct kt_esl_entry *e, size_t *size)
{
    for (size_t i = 0; i < sizeof(other_types) / sizeof(other_types[0]); i++)
        if (!memcmp(e->type_guid, other_types[i].guid, 16)) {
            if (size)
                *size = other_types[i].size;
            return (int)i;
        }
    return -1;
}

const char *kt_authvar_entry_type(const struct kt_esl_entry *e)
{
    if (kt_esl_is_svn(e))
        return "svn";
    if (e->type != KT_ESL_OTHER)
        return kt_esl_type_name(e->type);
    int i = kt_authvar_other_type(e, NULL);
    return i < 0 ? "other" : other_types[i].name;
}
