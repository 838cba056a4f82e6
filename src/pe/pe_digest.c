/* The Authenticode image digest (the kernel's pefile_digest_pe, with the
 * UPX header clip from REFERENCE.md and the kernel's trailing-data rule:
 * from SumOfBytesHashed). */
#include "pe/pe.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int cmp_sections(const void *a, const void *b)
{
    const struct kt_pe_section *x = *(const struct kt_pe_section *const *)a;
    const struct kt_pe_section *y = *(const struct kt_pe_section *const *)b;
    if (x->raw_off != y->raw_off)
        return x->raw_off < y->raw_off ? -1 : 1;
    if (x->vaddr != y->vaddr)
        return x->vaddr < y->vaddr ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    if (x->vsize != y->vsize)
        return x->vsize < y->vsize ? -1 : 1;
    if (x->raw_size != y->raw_size)
        return x->raw_size < y->raw_size ? -1 : 1;
    return 0;
}

/* The byte ranges the digest hashes, in the order it hashes them (which is
 * increasing file order, the ranges disjoint): fn(ctx, offset, length). */
typedef void (*range_fn)(void *ctx, const uint8_t *p, size_t off, size_t len);

static int digest_ranges(const struct kt_pe *pe, range_fn fn, void *ctx, struct kt_error *err)
{
    const struct kt_pe_section **v = malloc((pe->n_sections ? pe->n_sections : 1) * sizeof(*v));
    if (!v)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < pe->n_sections; i++)
        if (pe->sections[i].raw_size)
            v[k++] = &pe->sections[i];
    qsort(v, k, sizeof(*v), cmp_sections);

    size_t hdr_end = pe->header_size;
    if (k > 0 && v[0]->raw_off < hdr_end)
        hdr_end = v[0]->raw_off; /* UPX: do not hash the first section's bytes twice */
    const uint8_t *b = pe->buf;
    /* headers, skipping CheckSum and the certificate directory entry */
    size_t pos = 0;
    size_t skips[2][2] = {{pe->checksum_off, 4}, {pe->certdir_off, 8}};
    size_t nskip = pe->certdir_off ? 2 : 1;
    for (size_t s = 0; s < nskip; s++) {
        size_t at = skips[s][0], len = skips[s][1];
        if (at >= hdr_end)
            break;
        fn(ctx, b + pos, pos, at - pos);
        pos = at + len < hdr_end ? at + len : hdr_end;
    }
    if (pos < hdr_end)
        fn(ctx, b + pos, pos, hdr_end - pos);
    /* SumOfBytesHashed: the header range and the sections' sizes, counted
     * as bytes, not as a file position */
    size_t hashed = hdr_end;
    for (size_t i = 0; i < k; i++) {
        fn(ctx, b + v[i]->raw_off, v[i]->raw_off, v[i]->raw_size);
        hashed += v[i]->raw_size;
    }
    free(v);
    /* the rest of the file, minus the certificate table, from offset
     * SumOfBytesHashed (pefile_digest_pe_contents, shim's and EDK2's
     * HashPeImage): with gaps between sections that offset lies inside the
     * last section's data, whose end is then hashed twice, and the gaps are
     * never hashed.  A certificate table larger than what follows that
     * offset is refused, as EDK2 refuses it (the kernel would read past the
     * end of the file). */
    if (pe->len > hashed) {
        if (pe->len - hashed < pe->cert_len)
            return kt_fail(err, -EBADMSG, pe->cert_off,
                           "certificate table: %" PRIu32 " bytes, but only %zu follow the %zu "
                           "bytes the image digest hashes (overlapping sections)",
                           pe->cert_len, pe->len - hashed, hashed);
        if (pe->len - hashed > pe->cert_len)
            fn(ctx, b + hashed, hashed, pe->len - pe->cert_len - hashed);
    }
    return 0;
}

static void update(void *ctx, const uint8_t *p, size_t off, size_t len)
{
    (void)off;
    kt_digester_update(ctx, p, len);
}

int kt_pe_image_digest(const struct kt_pe *pe, const enum kt_hash *hashes, size_t n,
                       uint8_t out[][KT_HASH_MAX_SIZE], struct kt_error *err)
{
    struct kt_digester *dg;
    int rc = kt_digester_new(&dg, hashes, n);
    if (rc < 0)
        return kt_fail(err, rc, KT_NO_OFFSET, "image digest: cannot compute the requested hashes");
    rc = digest_ranges(pe, update, dg, err);
    if (rc == 0)
        rc = kt_digester_final(dg, out);
    kt_digester_free(dg);
    return rc;
}

struct cover {
    size_t pos, end; /* [pos, end): what is still to be found covered */
};

static void advance(void *ctx, const uint8_t *p, size_t off, size_t len)
{
    (void)p;
    struct cover *c = ctx;
    if (c->pos < c->end && off <= c->pos && c->pos < off + len)
        c->pos = off + len;
}

int kt_pe_digest_covers(const struct kt_pe *pe, size_t off, size_t len, struct kt_error *err)
{
    struct cover c = {off, off + len};
    if (len == 0)
        return 1;
    if (off > pe->len || len > pe->len - off)
        return 0;
    int rc = digest_ranges(pe, advance, &c, err);
    if (rc < 0)
        return rc;
    return c.pos >= c.end;
}
