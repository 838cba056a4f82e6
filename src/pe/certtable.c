/* The attribute certificate table: a sequence of WIN_CERTIFICATE entries. */
#include "pe/pe.h"
#include "util/le.h"

#include <string.h>

#define WIN_CERT_REVISION_2_0 0x0200
#define WIN_CERT_TYPE_PKCS_SIGNED_DATA 0x0002

static inline size_t round8(size_t x) { return (x + 7) & ~(size_t)7; }

int kt_pe_cert_table(const struct kt_pe *pe, struct kt_pe_cert *certs, size_t cap, size_t *n,
                     struct kt_error *err)
{
    *n = 0;
    if (pe->cert_len == 0)
        return 0;
    kt_le file, table;
    kt_le_init(&file, pe->buf, pe->len, NULL);
    if (kt_le_window(&file, pe->cert_off, pe->cert_len, &table, NULL) < 0)
        return kt_fail(err, -ELIBBAD, pe->certdir_off,
                       "certificate table (%u bytes at %u) runs past the end of the file (%zu)",
                       pe->cert_len, pe->cert_off, pe->len);
    while (kt_le_left(&table)) {
        size_t off = kt_le_offset(&table), left = kt_le_left(&table);
        struct kt_pe_cert c = {.offset = off};
        kt_le h = table;
        if (kt_le_u32(&h, &c.length, NULL) < 0 || kt_le_u16(&h, &c.revision, NULL) < 0 ||
            kt_le_u16(&h, &c.type, NULL) < 0)
            return kt_fail(err, -ELIBBAD, off,
                           "certificate table: %zu stray bytes where an entry header should be",
                           left);
        if (c.length < 8)
            return kt_fail(err, -ELIBBAD, off, "WIN_CERTIFICATE: dwLength %u is too short",
                           c.length);
        if (c.length > left)
            return kt_fail(err, -ELIBBAD, off,
                           "WIN_CERTIFICATE: dwLength %u runs past the certificate table "
                           "(%zu bytes left)",
                           c.length, left);
        if (c.revision != WIN_CERT_REVISION_2_0)
            return kt_fail(err, -ELIBBAD, off + 4,
                           "WIN_CERTIFICATE: wRevision 0x%04x, want 0x0200", c.revision);
        if (c.type != WIN_CERT_TYPE_PKCS_SIGNED_DATA)
            return kt_fail(err, -ELIBBAD, off + 6,
                           "WIN_CERTIFICATE: wCertificateType 0x%04x, want 0x0002 "
                           "(PKCS_SIGNED_DATA)",
                           c.type);
        kt_der d;
        kt_der_init(&d, h.p, c.length - 8, KT_DER_BER, err);
        d.base = pe->buf;
        uint32_t tag;
        int rc = kt_der_get_any(&d, &tag, NULL, &c.pkcs7);
        if (rc < 0)
            return kt_fail(err, -ELIBBAD, off + 8,
                           "WIN_CERTIFICATE: PKCS#7 element does not fit in dwLength %u",
                           c.length);
        if (tag != KT_TAG_SEQUENCE)
            return kt_fail(err, -ELIBBAD, off + 8,
                           "WIN_CERTIFICATE: content is not a PKCS#7 SEQUENCE");
        size_t used = 8 + c.pkcs7.len;
        size_t padded = round8(c.length);
        if (round8(used) != padded)
            return kt_fail(err, -ELIBBAD, off + used,
                           "WIN_CERTIFICATE: %zu bytes after the PKCS#7 (%zu bytes) in an entry "
                           "of %u: data stuffed past the signature",
                           (size_t)c.length - used, c.pkcs7.len, c.length);
        kt_le entry;
        if (kt_le_sub(&table, padded, &entry, NULL) < 0)
            return kt_fail(err, -ELIBBAD, off,
                           "WIN_CERTIFICATE: padded length %zu runs past the certificate table",
                           padded);
        for (size_t i = used; i < padded; i++)
            if (entry.p[i] != 0)
                return kt_fail(err, -ELIBBAD, off + i,
                               "WIN_CERTIFICATE: non-zero padding byte after the PKCS#7 "
                               "(data stuffed into the signature)");
        if (*n >= cap)
            return kt_fail(err, -ELIBBAD, off, "certificate table: more than %zu entries", cap);
        certs[(*n)++] = c;
    }
    return 0;
}
