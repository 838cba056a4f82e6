/* scan.c - find the builtin certificate list in a vmlinux without symbols.
 *
 * What the kernel build lays down (certs/system_certificates.S, since 4.x):
 *
 *   system_certificate_list:      DER certificates back to back
 *                                 (signing_key.x509, then CONFIG_SYSTEM_TRUSTED_KEYS)
 *   [system_extra_cert:           CONFIG_SYSTEM_EXTRA_CERTIFICATE_SIZE zero bytes,
 *    system_extra_cert_used:      u32 0 or 1]
 *   .align 8
 *   system_certificate_list_size: u64 (u32 on 32-bit) = bytes of certificates
 *   module_cert_size:             u64 (u32) = size of signing_key.x509 (5.13+)
 *
 * The heuristic:
 *  1. Scan the image (memchr for 0x30) for "30 82|83 .. .. 30 81|82|83" and
 *     keep only offsets where a structurally valid X.509 certificate starts
 *     (Certificate ::= SEQUENCE { tbs SEQUENCE { [0] version?, INTEGER serial,
 *     SEQUENCE sigalg, SEQUENCE issuer, SEQUENCE validity, SEQUENCE subject,
 *     SEQUENCE spki, ... }, SEQUENCE sigalg, BIT STRING } with exact lengths).
 *  2. Group certificates that follow each other with no gap into runs.
 *  3. A run is the builtin list only if, after it (skipping zero words and the
 *     extra-certificate area, at most 1 MiB, on 4-byte boundaries), the first
 *     non-zero word is a u64 or u32 equal to the run's byte length: the
 *     list-size variable.  Runs followed by a second word equal to 0 or to
 *     the first certificate's length (module_cert_size) are preferred; the
 *     first such run in the image wins (the revocation list, linked after it,
 *     has no module_cert_size).
 * Certificates elsewhere in the image (test vectors, EFI stub data, a
 * revocation list without module_cert_size when a better run exists) are
 * never reported: they are not followed by their own size.  Limits: a
 * kernel whose list is empty, or older than the size variable (3.x), yields
 * nothing; a certificate the kernel itself would reject as malformed breaks
 * the run and hides the list.
 */
#include "kimage/kimage.h"

#include <stdlib.h>
#include <string.h>

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Length of a structurally valid certificate at v[i], or 0. */
static size_t cert_at(const uint8_t *v, size_t len, size_t i)
{
    const uint8_t *p = v + i;
    size_t left = len - i;
    if (left < 16 || p[0] != 0x30 || (p[1] != 0x82 && p[1] != 0x83))
        return 0;
    size_t h = p[1] == 0x82 ? 4 : 5;
    if (p[h] != 0x30 || p[h + 1] < 0x81 || p[h + 1] > 0x83)
        return 0;
    kt_der d, cert, tbs;
    kt_span whole;
    kt_der_init(&d, p, left, KT_DER_STRICT, NULL);
    if (kt_der_get_element(&d, KT_TAG_SEQUENCE, &whole, NULL) < 0)
        return 0;
    kt_der_init(&d, whole.p, whole.len, KT_DER_STRICT, NULL);
    if (kt_der_get(&d, KT_TAG_SEQUENCE, &cert, NULL) < 0 ||
        kt_der_get(&cert, KT_TAG_SEQUENCE, &tbs, NULL) < 0 ||
        kt_der_skip_any(&cert, NULL) < 0 || !kt_der_peek(&cert, KT_TAG_BIT_STRING) ||
        kt_der_skip_any(&cert, NULL) < 0 || !kt_der_empty(&cert))
        return 0;
    /* tbsCertificate's first fields */
    if (kt_der_peek(&tbs, KT_CTX_CONS(0)) && kt_der_skip_any(&tbs, NULL) < 0)
        return 0;
    if (!kt_der_peek(&tbs, KT_TAG_INTEGER) || kt_der_skip_any(&tbs, NULL) < 0)
        return 0;
    for (int k = 0; k < 5; k++) /* signature, issuer, validity, subject, spki */
        if (!kt_der_peek(&tbs, KT_TAG_SEQUENCE) || kt_der_skip_any(&tbs, NULL) < 0)
            return 0;
    return whole.len;
}

/* Score of the run [start, end): 0 not the list, 1 followed by its size,
 * 2 also followed by module_cert_size. */
static int run_score(const uint8_t *v, size_t len, size_t start, size_t end, size_t first_len)
{
    uint64_t size = end - start;
    size_t limit = end + ((size_t)1 << 20);
    if (limit > len || limit < end)
        limit = len;
    for (size_t q = (end + 3) & ~(size_t)3; q + 4 <= limit; q += 4) {
        uint32_t w = le32(v + q);
        if (w == 0 || w == 1)
            continue;
        if (w != (uint32_t)size)
            return 0;
        /* u64 on an 8-byte boundary, then module_cert_size */
        if ((q & 7) == 0 && q + 16 <= len && le32(v + q + 4) == (uint32_t)(size >> 32)) {
            uint64_t m = le32(v + q + 8) | (uint64_t)le32(v + q + 12) << 32;
            return (m == 0 || m == first_len) ? 2 : 1;
        }
        if (q + 8 <= len) {
            uint32_t m = le32(v + q + 4);
            return (m == 0 || m == first_len) ? 2 : 1;
        }
        return 1;
    }
    return 0;
}

int kt_kimage_scan_vmlinux(const uint8_t *vmlinux, size_t len, kt_cert_cb cb, void *ctx,
                           struct kt_error *err)
{
    size_t best_start = 0, best_end = 0;
    int best = 0;
    size_t i = 0;
    while (i + 16 <= len) {
        const uint8_t *hit = memchr(vmlinux + i, 0x30, len - i);
        if (!hit)
            break;
        i = (size_t)(hit - vmlinux);
        size_t l = cert_at(vmlinux, len, i);
        if (!l) {
            i++;
            continue;
        }
        size_t start = i, end = i + l, first = l;
        while (end < len && (l = cert_at(vmlinux, len, end)) != 0)
            end += l;
        int s = run_score(vmlinux, len, start, end, first);
        if (s > best) {
            best = s;
            best_start = start;
            best_end = end;
            if (s == 2)
                break;
        }
        i = end;
    }
    if (!best)
        return 0;
    for (size_t p = best_start; p < best_end;) {
        size_t l = cert_at(vmlinux, len, p);
        int rc = cb ? cb(ctx, vmlinux + p, l, p) : 0;
        if (rc < 0)
            return rc;
        p += l;
    }
    (void)err;
    return 1;
}

int kt_kimage_foreach_cert(const uint8_t *img, size_t len, kt_cert_cb cb, void *ctx,
                           struct kt_error *err)
{
    const uint8_t *v;
    size_t vlen;
    uint8_t *owned;
    enum kt_kimage_comp comp;
    KT_TRY(kt_kimage_vmlinux(img, len, 0, &v, &vlen, &owned, &comp, err));
    int rc = kt_kimage_scan_vmlinux(v, vlen, cb, ctx, err);
    free(owned);
    if (rc == 0)
        return kt_fail(err, -ENODATA, KT_NO_OFFSET,
                       "no builtin certificate list found in the %zu-byte vmlinux (%s): no run "
                       "of certificates followed by its size",
                       vlen, kt_kimage_comp_name(comp));
    return rc < 0 ? rc : 0;
}
