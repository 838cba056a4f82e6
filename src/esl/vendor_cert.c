/* vendor_cert.c - shim's .vendor_cert section (shim's cert table):
 *   u32 vendor_authorized_size, vendor_deauthorized_size,
 *       vendor_authorized_offset, vendor_deauthorized_offset
 * (little-endian; offsets from the start of the section), then the data.
 * The authorized part is one DER certificate (VENDOR_CERT_FILE) or EFI
 * signature lists (VENDOR_DB_FILE); the deauthorized part is a vendor dbx
 * in EFI signature lists. */
#include "esl/esl.h"
#include "util/le.h"

#include <stdlib.h>
#include <string.h>

static int part(const kt_le *sec, size_t base, const char *name, size_t size_field,
                uint32_t size, uint32_t off, kt_span *out, size_t *abs, struct kt_error *err)
{
    *out = (kt_span){NULL, 0};
    *abs = base + off;
    if (size == 0)
        return 0;
    kt_le w;
    if (kt_le_window(sec, off, size, &w, NULL) < 0)
        return kt_fail(err, -EBADMSG, base + size_field,
                       ".vendor_cert: %s part (offset %u, size %u) lies outside the "
                       "%zu-byte section",
                       name, off, size, kt_le_offset(sec) + kt_le_left(sec));
    if (off < 16)
        return kt_fail(err, -EBADMSG, base + size_field,
                       ".vendor_cert: %s part (offset %u) overlaps the 16-byte header", name,
                       off);
    *out = (kt_span){w.p, w.len};
    return 0;
}

int kt_vendor_cert_parse(kt_span section, size_t section_file_offset,
                         struct kt_vendor_cert *out, struct kt_error *err)
{
    memset(out, 0, sizeof(*out));
    kt_le sec, h;
    kt_le_init(&sec, section.p, section.len, NULL);
    uint32_t asize, dsize, aoff, doff;
    h = sec;
    if (kt_le_u32(&h, &asize, NULL) < 0 || kt_le_u32(&h, &dsize, NULL) < 0 ||
        kt_le_u32(&h, &aoff, NULL) < 0 || kt_le_u32(&h, &doff, NULL) < 0)
        return kt_fail(err, -EBADMSG, section_file_offset,
                       ".vendor_cert: section too short for its 16-byte header (%zu bytes)",
                       section.len);
    KT_TRY(part(&sec, section_file_offset, "authorized", 0, asize, aoff, &out->authorized,
                &out->authorized_offset, err));
    KT_TRY(part(&sec, section_file_offset, "deauthorized", 4, dsize, doff,
                &out->deauthorized, &out->deauthorized_offset, err));
    if (out->authorized.len) {
        /* One DER certificate filling the part, else signature lists. */
        kt_der d;
        kt_span whole;
        kt_der_init(&d, out->authorized.p, out->authorized.len, KT_DER_STRICT, NULL);
        if (kt_der_peek(&d, KT_TAG_SEQUENCE) &&
            kt_der_get_element(&d, KT_TAG_SEQUENCE, &whole, NULL) == 0 &&
            whole.len == out->authorized.len) {
            out->authorized_is_esl = false;
        } else {
            struct kt_error e2 = KT_ERROR_INIT;
            if (kt_esl_foreach(out->authorized.p, out->authorized.len, NULL, NULL, &e2) < 0 ||
                out->authorized.len < 28)
                return kt_fail(err, -EBADMSG, out->authorized_offset,
                               ".vendor_cert: the authorized part is neither one DER "
                               "certificate nor EFI signature lists");
            out->authorized_is_esl = true;
        }
    }
    if (out->deauthorized.len) {
        struct kt_error e2 = KT_ERROR_INIT;
        if (kt_esl_foreach(out->deauthorized.p, out->deauthorized.len, NULL, NULL, &e2) < 0)
            return kt_fail(err, -EBADMSG,
                           out->deauthorized_offset +
                               (e2.offset == KT_NO_OFFSET ? 0 : e2.offset),
                           ".vendor_cert: deauthorized part: %s", e2.what);
    }
    return 0;
}

int kt_vendor_cert_build(kt_span authorized, kt_span deauthorized, uint8_t **out, size_t *len)
{
    if (authorized.len > 0x10000000 || deauthorized.len > 0x10000000)
        return -EINVAL;
    size_t total = 16 + authorized.len + deauthorized.len;
    uint8_t *b = malloc(total);
    if (!b)
        return -ENOMEM;
    uint32_t hdr[4] = {(uint32_t)authorized.len, (uint32_t)deauthorized.len, 16,
                       (uint32_t)(16 + authorized.len)};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++)
            b[4 * i + k] = (uint8_t)(hdr[i] >> (8 * k));
    if (authorized.len)
        memcpy(b + 16, authorized.p, authorized.len);
    if (deauthorized.len)
        memcpy(b + 16 + authorized.len, deauthorized.p, deauthorized.len);
    *out = b;
    *len = total;
    return 0;
}
