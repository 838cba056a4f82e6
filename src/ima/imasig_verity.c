/* imasig_verity.c - a file's fs-verity digest (Documentation/filesystems/
 * fsverity.rst): the Merkle tree over the file's blocks, then the hash of
 * struct fsverity_descriptor; what a v3 IMA_VERITY_DIGSIG signs (through
 * struct ima_file_id).  No salt, the block size and hash fsverity enable
 * uses by default unless the caller names others. */
#include <stdlib.h>
#include <string.h>

#include "ima/imasig.h"

#define VERITY_DESC_LEN 256

/* One level up: the hashes in `in` (n of them, hs bytes each) packed into
 * zero-padded blocks of bs bytes, each block hashed into out. */
static int level_up(enum kt_hash h, size_t hs, size_t bs, const uint8_t *in, size_t n,
                    uint8_t *out, size_t *n_out, uint8_t *block)
{
    size_t per = bs / hs, k = 0;
    for (size_t i = 0; i < n; i += per, k++) {
        size_t take = n - i < per ? n - i : per;
        memset(block, 0, bs);
        memcpy(block, in + i * hs, take * hs);
        KT_TRY(kt_digest(h, block, bs, out + k * hs));
    }
    *n_out = k;
    return 0;
}

int kt_ima_verity_digest(const uint8_t *p, size_t n, enum kt_hash h, unsigned log_bs,
                         uint8_t *out, size_t *out_len)
{
    size_t hs = kt_hash_size(h), bs = (size_t)1 << log_bs;
    if ((h != KT_HASH_SHA256 && h != KT_HASH_SHA512) || log_bs < 10 || log_bs > 16)
        return -ENOPKG;
    uint8_t root[64] = {0};
    if (n) {
        size_t nb = n / bs + (n % bs != 0);
        uint8_t *hashes = malloc(nb * hs), *block = malloc(bs);
        int rc = hashes && block ? 0 : -ENOMEM;
        for (size_t i = 0; rc == 0 && i < nb; i++) {
            size_t take = n - i * bs < bs ? n - i * bs : bs;
            memset(block, 0, bs);
            memcpy(block, p + i * bs, take);
            rc = kt_digest(h, block, bs, hashes + i * hs);
        }
        while (rc == 0 && nb > 1) /* in place: a level is never longer than the one below */
            rc = level_up(h, hs, bs, hashes, nb, hashes, &nb, block);
        if (rc == 0)
            memcpy(root, hashes, hs);
        free(hashes);
        free(block);
        KT_TRY(rc);
    }
    uint8_t d[VERITY_DESC_LEN] = {0};
    uint64_t size = n;
    d[0] = 1;                              /* version */
    d[1] = h == KT_HASH_SHA256 ? 1 : 2;    /* FS_VERITY_HASH_ALG_SHA256 / _SHA512 */
    d[2] = (uint8_t)log_bs;
    d[3] = 0;                              /* salt_size */
    for (int i = 0; i < 8; i++)            /* __le64 data_size at 8 */
        d[8 + i] = (uint8_t)(size >> (8 * i));
    memcpy(d + 16, root, 64);              /* root_hash */
    *out_len = hs;
    return kt_digest(h, d, sizeof(d), out);
}
