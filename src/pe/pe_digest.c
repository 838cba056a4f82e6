/* The Authenticode image digest (the kernel's pefile_digest_pe, with the
 * UPX header clip and the trailing-data rule from REFERENCE.md). */
#include "pe/pe.h"

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

static int digest_ranges(const struct kt_pe *pe, range_fn fn, void *ctx)
{
    const struct kt_pe_section **v = malloc((pe->n_sections ? pe->n_sections : 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
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
    size_t end = hdr_end;
    for (size_t i = 0; i < k; i++) {
        fn(ctx, b + v[i]->raw_off, v[i]->raw_off, v[i]->raw_size);
        size_t e = (size_t)v[i]->raw_off + v[i]->raw_size;
        if (e > end)
            end = e;
    }
    size_t stop = pe->cert_len ? pe->cert_off : pe->len;
    if (stop > end)
        fn(ctx, b + end, end, stop - end);
    free(v);
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
    rc = digest_ranges(pe, update, dg);
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

int kt_pe_digest_covers(const struct kt_pe *pe, size_t off, size_t len)
{
    struct cover c = {off, off + len};
    if (len == 0)
        return 1;
    if (off > pe->len || len > pe->len - off)
        return 0;
    int rc = digest_ranges(pe, advance, &c);
    if (rc < 0)
        return rc;
    return c.pos >= c.end;
}
