/* imalist_read.c - the measurement list's reader: which form (binary or
 * ASCII, told by the first bytes), then entry by entry, each counted
 * against KT_IMA_MAX_ENTRIES and marked a violation when its template
 * digest is all zeros. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eventlog/eventlog.h"
#include "ima/imalist.h"

int kt_ima_reader_init(struct kt_ima_reader *r, const uint8_t *buf, size_t len,
                       const struct kt_ima_opts *o, struct kt_error *err)
{
    memset(r, 0, sizeof(*r));
    kt_le_init(&r->c, buf, len, err);
    uint16_t alg = o && o->digest_alg ? o->digest_alg : KT_TPM_ALG_SHA1;
    r->digest_size = kt_hash_size(kt_evlog_hash(alg));
    if (!r->digest_size)
        return kt_fail(err, -ENOPKG, KT_NO_OFFSET, "template digest: unknown bank 0x%04x", alg);
    r->fmt = o ? o->format : KT_IMA_BINARY;
    if (!len) /* the kernel's list starts with boot_aggregate, even with no TPM */
        return kt_fail(err, -EBADMSG, 0, "list: empty (a measurement list starts with its "
                                         "boot_aggregate entry)");
    if (o && o->detect) {
        /* a binary list starts with a little-endian PCR index (0-23): one
         * byte and three zeros; an ASCII one with "%2d " */
        bool bin = len >= 4 && !buf[1] && !buf[2] && !buf[3];
        bool txt = buf[0] == ' ' || (buf[0] >= '0' && buf[0] <= '9');
        if (!bin && !txt)
            return kt_fail(err, -EBADMSG, 0, "list: neither the binary form (a PCR index "
                                             "0-23) nor the ASCII one (\"PCR DIGEST TEMPLATE ...\")");
        r->fmt = bin ? KT_IMA_BINARY : KT_IMA_ASCII;
    }
    return 0;
}

void kt_ima_reader_free(struct kt_ima_reader *r)
{
    free(r->scratch);
    r->scratch = NULL;
    r->cap = 0;
}

int kt_ima_reader_next(struct kt_ima_reader *r, struct kt_ima_entry *e, struct kt_error *err)
{
    r->c.err = err;
    if (!kt_le_left(&r->c))
        return 0;
    if (r->index == KT_IMA_MAX_ENTRIES)
        return kt_fail(err, -E2BIG, kt_le_offset(&r->c), "list: more than %zu entries",
                       KT_IMA_MAX_ENTRIES);
    memset(e, 0, sizeof(*e));
    e->index = r->index++;
    e->offset = kt_le_offset(&r->c);
    int rc = r->fmt == KT_IMA_ASCII ? kt_ima_ascii_next(r, e, err) : kt_ima_binary_next(r, e);
    if (rc < 0)
        return rc;
    bool zero = true;
    for (size_t k = 0; k < e->template_digest.len; k++)
        zero &= !e->template_digest.p[k];
    e->violation = zero;
    return 1;
}
