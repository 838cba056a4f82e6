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
 *
 * Streaming (kt_kimage_foreach_cert): the same scan runs over a window of the
 * vmlinux that the decoder fills as the scan asks for bytes (has() below):
 * the window keeps the bytes from the current run's start on (a run, then
 * up to 1 MiB + 16 bytes after it for the size words), so it stays a few MiB;
 * it is filled 1 MiB at a time.
 * Decoding stops as soon as a run scoring 2 is found: the first such run
 * wins anyway, so nothing after it can change the answer; a run scoring 1 is
 * copied aside while the scan goes on to the end.  Every rule reads the
 * window exactly as the whole-buffer scan reads the vmlinux, so both give
 * the same list.
 */
#include "kimage/internal.h"
#include "kimage/kimage.h"
#include "uki/uki.h"
#include "util/le.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW_START ((size_t)2 << 20) /* twice READ_CHUNK: the least that works */
/* Bytes decoded per read: how far decoding may run past the list. */
#define READ_CHUNK ((size_t)1 << 20)

/* Bytes [base, end) of the vmlinux: the whole of it (dec NULL, eof) or a
 * window the decoder fills on demand. */
struct view {
    const uint8_t *p;        /* byte base */
    size_t base, end;
    size_t keep;             /* the first byte still needed (>= base) */
    bool eof;                /* end is the vmlinux's length */
    struct kt_decoder *dec;  /* NULL: p is the whole vmlinux */
    uint8_t *buf;            /* the window (p == buf when streaming) */
    size_t cap;
    struct kt_error *err;
    int rc;                  /* a decoding error: the scan's answer */
};

static const uint8_t *at(const struct view *v, size_t x)
{
    return v->p + (x - v->base);
}

/* A cursor over the vmlinux bytes [x, end) the view holds; valid until the
 * next has(), which may move the window. */
static kt_le view_at(const struct view *v, size_t x)
{
    kt_le c;
    kt_le_init(&c, at(v, x), v->end - x, NULL);
    return c;
}

/* Decode the next piece into the window, dropping the bytes before keep or
 * growing the window when less than half of it is free. */
static int fill(struct view *v)
{
    size_t used = v->end - v->base, room = v->cap - used;
    if (room < v->cap / 2) {
        size_t drop = v->keep - v->base;
        if (drop > used)
            drop = used;
        if (drop) {
            memmove(v->buf, v->buf + drop, used - drop);
            v->base += drop;
            used -= drop;
            room += drop;
        }
        if (room < v->cap / 2) {
            size_t ncap = v->cap * 2;
            uint8_t *nb = ncap > v->cap ? realloc(v->buf, ncap) : NULL;
            if (!nb)
                return v->rc = kt_fail(v->err, -ENOMEM, KT_NO_OFFSET,
                                       "vmlinux: out of memory (a %zu-byte scan window)", ncap);
            v->buf = nb;
            v->cap = ncap;
            v->p = nb;
        }
    }
    size_t got, want = v->cap - used < READ_CHUNK ? v->cap - used : READ_CHUNK;
    int rc = kt_decoder_read(v->dec, v->buf + used, want, &got, v->err);
    if (rc < 0)
        return v->rc = rc;
    if (!got)
        v->eof = true;
    v->end += got;
    return 0;
}

/* x <= the vmlinux's length (decoding up to x as needed); false also after a
 * decoding error (v->rc). */
static bool has(struct view *v, size_t x)
{
    while (x > v->end && !v->eof && !v->rc)
        fill(v);
    return x <= v->end;
}

/* Length of a structurally valid certificate at p[0..left), or 0. */
static size_t cert_len(const uint8_t *p, size_t left)
{
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

/* The header of a DER element at x: *end = its end; false when unsure
 * (the vmlinux ends, an unusual length form). */
static bool header(struct view *v, size_t x, uint8_t *tag, size_t *end)
{
    if (!has(v, x + 6))
        return false;
    const uint8_t *p = at(v, x);
    size_t n = p[1] & 0x7f, len = 0;
    if (!(p[1] & 0x80)) {
        len = p[1];
        n = 0;
    } else if (n == 0 || n > 4) {
        return false;
    } else {
        for (size_t k = 0; k < n; k++)
            len = len << 8 | p[2 + k];
    }
    *tag = p[0];
    *end = x + 2 + n + len;
    return true;
}

/* Whether the long (0x83) candidate at i, total bytes, may be a certificate:
 * the headers of tbsCertificate's first fields (walked without decoding all
 * their content) have the tags cert_len wants and fit in their parents.
 * false only when cert_len would certainly fail; so random 30 83 bytes do
 * not make the window decode and hold up to 16 MiB for nothing. */
static bool plausible(struct view *v, size_t i, size_t total, size_t h)
{
    uint8_t tag;
    size_t tbs_end, end;
    if (!header(v, i + h, &tag, &tbs_end))
        return true;
    if (tbs_end > i + total)
        return false;
    size_t x = i + h + 2 + (at(v, i + h)[1] & 0x7f);
    if (!header(v, x, &tag, &end))
        return true;
    if (tag == 0xa0) { /* [0] version */
        if (end > tbs_end)
            return false;
        x = end;
        if (!header(v, x, &tag, &end))
            return true;
    }
    if (tag != 0x02 || end > tbs_end) /* serialNumber */
        return false;
    x = end;
    for (int k = 0; k < 5; k++) { /* signature, issuer, validity, subject, spki */
        if (!header(v, x, &tag, &end))
            return true;
        if (tag != 0x30 || end > tbs_end)
            return false;
        x = end;
    }
    return true;
}

/* Length of a structurally valid certificate at vmlinux offset i, or 0: the
 * bytes its header announces are decoded first, so cert_len sees all the
 * element it parses (or the vmlinux's end), as over the whole vmlinux. */
static size_t cert_at(struct view *v, size_t i)
{
    if (!has(v, i + 16))
        return 0;
    const uint8_t *p = at(v, i);
    if (p[0] != 0x30 || (p[1] != 0x82 && p[1] != 0x83))
        return 0;
    size_t h = p[1] == 0x82 ? 4 : 5;
    if (p[h] != 0x30 || p[h + 1] < 0x81 || p[h + 1] > 0x83)
        return 0;
    size_t total = h == 4 ? 4 + ((size_t)p[2] << 8 | p[3])
                          : 5 + ((size_t)p[2] << 16 | (size_t)p[3] << 8 | p[4]);
    if (total > ((size_t)64 << 10) + 4 && !plausible(v, i, total, h))
        return 0;
    has(v, i + total);
    return cert_len(at(v, i), v->end - i);
}

/* Score of the run [start, end): 0 not the list, 1 followed by its size,
 * 2 also followed by module_cert_size. */
static int run_score(struct view *v, size_t start, size_t end, size_t first_len)
{
    uint64_t size = end - start;
    size_t limit = end + ((size_t)1 << 20); /* and the vmlinux's end: has() */
    if (limit < end)
        limit = SIZE_MAX;
    for (size_t q = (end + 3) & ~(size_t)3; q + 4 <= limit && has(v, q + 4); q += 4) {
        kt_le words = view_at(v, q); /* 4 bytes at least: has() */
        uint32_t w, hi, m32;
        uint64_t m;
        kt_le_u32(&words, &w, NULL);
        if (w == 0 || w == 1)
            continue;
        if (w != (uint32_t)size)
            return 0;
        /* u64 on an 8-byte boundary, then module_cert_size */
        if ((q & 7) == 0 && has(v, q + 16)) {
            words = view_at(v, q + 4);
            kt_le_u32(&words, &hi, NULL);
            if (hi == (uint32_t)(size >> 32)) {
                kt_le_u64(&words, &m, NULL);
                return (m == 0 || m == first_len) ? 2 : 1;
            }
        }
        if (has(v, q + 8)) {
            words = view_at(v, q + 4);
            kt_le_u32(&words, &m32, NULL);
            return (m32 == 0 || m32 == first_len) ? 2 : 1;
        }
        return 1;
    }
    return 0;
}

/* The scan over a view: 1 (fn called for each certificate of the list), 0
 * (no list), a decoding error or fn's negative result. */
static int scan(struct view *v, kt_cert_cb cb, void *ctx)
{
    size_t best_start = 0, best_end = 0;
    int best = 0;
    uint8_t *saved = NULL; /* streaming: a copy of the best run (score 1) */
    size_t i = 0;
    for (;;) {
        v->keep = i;
        if (!has(v, i + 16))
            break;
        const uint8_t *hit = memchr(at(v, i), 0x30, v->end - i);
        if (!hit) {
            i = v->end;
            continue;
        }
        i = v->base + (size_t)(hit - v->p);
        v->keep = i;
        size_t l = cert_at(v, i);
        if (!l) {
            i++;
            continue;
        }
        size_t start = i, end = i + l, first = l;
        while (has(v, end + 1) && (l = cert_at(v, end)) != 0)
            end += l;
        int s = run_score(v, start, end, first);
        if (v->rc)
            break;
        if (s > best) {
            best = s;
            best_start = start;
            best_end = end;
            if (s == 2)
                break;
            if (v->dec) {
                uint8_t *copy = malloc(end - start);
                if (!copy) {
                    v->rc = kt_fail(v->err, -ENOMEM, KT_NO_OFFSET, "vmlinux: out of memory");
                    break;
                }
                memcpy(copy, at(v, start), end - start);
                free(saved);
                saved = copy;
            }
        }
        i = end;
    }
    int rc = v->rc;
    if (rc == 0 && best) {
        rc = 1;
        /* a run scoring 2 is in the window (keep <= its start); a run
         * scoring 1 in saved when streaming */
        const uint8_t *run = best == 1 && saved ? saved : at(v, best_start);
        for (size_t p = best_start; p < best_end;) {
            size_t l = cert_len(run + (p - best_start), best_end - p);
            if (!l)
                break;
            int r = cb ? cb(ctx, run + (p - best_start), l, p) : 0;
            if (r < 0) {
                rc = r;
                break;
            }
            p += l;
        }
    }
    free(saved);
    return rc;
}

int kt_kimage_scan_vmlinux(const uint8_t *vmlinux, size_t len, kt_cert_cb cb, void *ctx,
                           struct kt_error *err)
{
    struct view v = {.p = vmlinux, .end = vmlinux ? len : 0, .eof = true, .err = err};
    return scan(&v, cb, ctx);
}

int kt_kimage_foreach_cert_ex(const uint8_t *img, size_t len, size_t max_out, kt_cert_cb cb,
                              void *ctx, enum kt_kimage_comp *comp, struct kt_error *err)
{
    const uint8_t *pl;
    size_t pl_len, pl_off;
    bool container;
    enum kt_comp c;
    if (comp)
        *comp = KT_KIMAGE_NONE;
    /* a UKI: the kernel in its .linux (the one systemd-stub starts); one
     * level only */
    if (kt_uki_linux(img, len, &pl, &pl_len) == 0) {
        img = pl;
        len = pl_len;
    }
    KT_TRY(kt_kimage_locate(img, len, &pl, &pl_len, &pl_off, &container, &c, err));
    if (comp)
        *comp = (enum kt_kimage_comp)c;
    (void)container;
    int rc;
    size_t vlen;
    if (c == KT_COMP_NONE) {
        rc = kt_kimage_scan_vmlinux(pl, pl_len, cb, ctx, err);
        vlen = pl_len;
    } else {
        struct kt_decompress_opts o = {.what = "vmlinux"};
        struct view v = {.err = err};
        KT_TRY(kt_decoder_new(c, pl, pl_len, pl_off, max_out ? max_out : KT_KIMAGE_MAX_VMLINUX,
                              &o, &v.dec, err));
        v.buf = malloc(WINDOW_START);
        if (!v.buf) {
            kt_decoder_free(v.dec);
            return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "vmlinux: out of memory");
        }
        v.p = v.buf;
        v.cap = WINDOW_START;
        rc = scan(&v, cb, ctx);
        vlen = kt_decoder_total(v.dec);
        kt_decoder_free(v.dec);
        free(v.buf);
    }
    if (rc == 0)
        return kt_fail(err, -ENODATA, KT_NO_OFFSET,
                       "no builtin certificate list found in the %zu-byte vmlinux (%s): no run "
                       "of certificates followed by its size",
                       vlen, kt_kimage_comp_name((enum kt_kimage_comp)c));
    return rc < 0 ? rc : 0;
}

int kt_kimage_foreach_cert(const uint8_t *img, size_t len, kt_cert_cb cb, void *ctx,
                           struct kt_error *err)
{
    return kt_kimage_foreach_cert_ex(img, len, 0, cb, ctx, NULL, err);
}
