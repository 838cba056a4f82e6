#include "verify/detect.h"

#include <string.h>

#include "der/der.h"
#include "der/oid.h"
#include "esl/esl.h"
#include "x509/x509.h"
#include "util/le.h"

static const char modsig_magic[] = "~Module signature appended~\n";

const char *kt_ftype_name(enum kt_ftype t)
{
    static const char *const names[] = {"unknown", "empty", "pe",     "module",  "pkcs7",
                                        "x509",    "esl",   "kernel", "variable"};
    return t <= KT_FT_VAR ? names[t] : "unknown";
}

static bool is_pe(const uint8_t *b, size_t len)
{
    kt_le c;
    uint32_t off;
    const uint8_t *sig;
    kt_le_init(&c, b, len, NULL);
    if (len < 0x40 || b[0] != 'M' || b[1] != 'Z' || kt_le_seek(&c, 0x3c, "e_lfanew") < 0 ||
        kt_le_u32(&c, &off, "e_lfanew") < 0 || off > len - 4)
        return false;
    kt_le_init(&c, b + off, len - off, NULL);
    return kt_le_bytes(&c, 4, &sig, "PE signature") == 0 && memcmp(sig, "PE\0\0", 4) == 0;
}

static bool has_suffix_part(const char *name, const char *part)
{
    return name && strstr(name, part) != NULL;
}

static bool is_compressed(const uint8_t *b, size_t len)
{
    static const uint8_t xz[] = {0xfd, '7', 'z', 'X', 'Z', 0};
    static const uint8_t zstd[] = {0x28, 0xb5, 0x2f, 0xfd};
    return (len >= 6 && !memcmp(b, xz, 6)) || (len >= 4 && !memcmp(b, zstd, 4)) ||
           (len >= 2 && b[0] == 0x1f && b[1] == 0x8b);
}

/* A SEQUENCE covering the whole input (allowing trailing whitespace): DER,
 * or with an indefinite outer length, as the kernel's BER decoder takes a
 * certificate (then the length includes the end-of-contents octets). */
static bool whole_der(const uint8_t *b, size_t len)
{
    size_t n = kt_x509_element_len(b, len);
    if (n == 0 && len >= 2 && b[1] == 0x80) {
        kt_der d;
        kt_span whole;
        kt_der_init(&d, b, len, KT_DER_BER, NULL);
        if (kt_der_get_element(&d, KT_TAG_SEQUENCE, &whole, NULL) == 0)
            n = whole.len;
    }
    if (n == 0 || n > len)
        return false;
    for (size_t i = n; i < len; i++)
        if (b[i] != '\n' && b[i] != '\r' && b[i] != ' ' && b[i] != 0)
            return false;
    return true;
}

/* ContentInfo { contentType signedData, ... } (BER allowed). */
static bool is_signed_data(const uint8_t *b, size_t len)
{
    kt_der d, seq;
    enum kt_oid oid;
    kt_der_init(&d, b, len, KT_DER_BER, NULL);
    return kt_der_get(&d, KT_TAG_SEQUENCE, &seq, NULL) == 0 &&
           kt_der_get_oid_id(&seq, &oid, NULL, NULL) == 0 && oid == KT_OID_SIGNED_DATA;
}

/* A certificate: SEQUENCE { SEQUENCE (tbs), SEQUENCE (alg), BIT STRING }. */
static bool is_certificate(const uint8_t *b, size_t len)
{
    kt_der d, cert;
    kt_der_init(&d, b, len, KT_DER_BER, NULL);
    return kt_der_get(&d, KT_TAG_SEQUENCE, &cert, NULL) == 0 &&
           kt_der_skip_any(&cert, NULL) == 0 && kt_der_peek(&cert, KT_TAG_SEQUENCE) &&
           kt_der_skip_any(&cert, NULL) == 0 && kt_der_peek(&cert, KT_TAG_BIT_STRING);
}

static bool starts_pem(const uint8_t *b, size_t len, const char *label)
{
    size_t scan = len < 4096 ? len : 4096;
    size_t n = strlen(label);
    for (size_t i = 0; i + n <= scan; i++)
        if (b[i] == '-' && !memcmp(b + i, label, n))
            return true;
    return false;
}

enum kt_ftype kt_detect(const uint8_t *b, size_t len, const char *name)
{
    if (len == 0)
        return KT_FT_EMPTY;
    if (is_pe(b, len))
        return KT_FT_PE;
    size_t m = sizeof(modsig_magic) - 1;
    if (len >= m && !memcmp(b + len - m, modsig_magic, m))
        return KT_FT_MODULE;
    if (is_compressed(b, len) && has_suffix_part(name, ".ko."))
        return KT_FT_MODULE;
    if (len >= 18 && !memcmp(b, "\x7f" "ELF", 4) && b[16] == 1 && b[17] == 0)
        return KT_FT_MODULE; /* ELF ET_REL (little-endian e_type 1): an unsigned module */
    if (len >= 0x206 && !memcmp(b + 0x202, "HdrS", 4))
        return KT_FT_KERNEL;
    if (starts_pem(b, len, "-----BEGIN CERTIFICATE-----") || starts_pem(b, len, "-----BEGIN X509 CERTIFICATE-----"))
        return KT_FT_X509;
    if (starts_pem(b, len, "-----BEGIN PKCS7-----") || starts_pem(b, len, "-----BEGIN CMS-----"))
        return KT_FT_PKCS7;
    if (b[0] == 0x30) {
        if (is_signed_data(b, len))
            return KT_FT_PKCS7;
        if (whole_der(b, len) && is_certificate(b, len))
            return KT_FT_X509;
    }
    if (kt_esl_looks_like(b, len))
        return KT_FT_ESL;
    return KT_FT_UNKNOWN;
}

enum kt_verify_purpose kt_ftype_purpose(enum kt_ftype t)
{
    return t == KT_FT_PE ? KT_VERIFY_PURPOSE_UEFI : KT_VERIFY_PURPOSE_MODULE;
}
