/* test_blacklist_index.c - hashes indexed where they lie (kt_blacklist_add_index,
 * #32): found by binary search whatever their order, a hash listed twice kept
 * once, listed after the per-entry hashes, counted for the TBS rule, and the
 * same answers as kt_blacklist_add_hash gives. */
#include "keys/blacklist.h"
#include "keys/keyring.h"
#include "kt_test.h"

#define N 1000

int main(void)
{
    static uint8_t buf[N * 40];
    uint32_t *offs = malloc(N * sizeof(*offs));
    struct kt_keyrings *k = NULL, *ref = NULL;
    CHECK(offs && kt_keyrings_new_empty(&k) == 0 && kt_keyrings_new_empty(&ref) == 0, "setup");
    for (size_t i = 0; i < N; i++) { /* 32-byte digests at a 40-byte stride, in no order */
        uint8_t *d = buf + i * 40;
        for (size_t j = 0; j < 32; j++)
            d[j] = (uint8_t)((i * 2654435761u) >> (j % 24));
        d[0] = (uint8_t)(i * 37);
        if (i == N - 1)
            memcpy(d, buf, 32); /* the first hash again */
        offs[i] = (uint32_t)(i * 40);
        kt_blacklist_add_hash(ref, "bin", KT_HASH_SHA256, d, "ref");
    }
    uint8_t extra[32] = {0xEE};
    CHECK_EQ_INT(kt_blacklist_add_hash(k, "bin", KT_HASH_SHA256, extra, "one"), 0, "one by one");
    CHECK_EQ_INT(kt_blacklist_add_index(k, "bin", KT_HASH_SHA256, buf, offs, N, "dbx:test"), 0,
                 "index");
    CHECK_EQ_INT(kt_blacklist_hash_count(k), kt_blacklist_hash_count(ref) + 1,
                 "the duplicate kept once, as add_hash does");
    size_t found = 0;
    for (size_t i = 0; i < N; i++)
        found += kt_blacklist_has_bin(k, KT_HASH_SHA256, buf + i * 40);
    CHECK_EQ_INT(found, N, "every indexed hash found");
    uint8_t absent[32] = {0x01, 0x02};
    CHECK(!kt_blacklist_has_bin(k, KT_HASH_SHA256, absent), "an absent hash");
    CHECK(!kt_blacklist_has_tbs(k, buf, 32), "a bin hash is no tbs hash");
    CHECK(kt_blacklist_has_bin(k, KT_HASH_SHA256, extra), "the per-entry hash");
    const struct kt_blacklist_hash *h0 = kt_blacklist_hash_at(k, 0);
    CHECK_EQ_STR(kt_blacklist_hash_source(h0), "one", "per-entry hashes listed first");
    const struct kt_blacklist_hash *h1 = kt_blacklist_hash_at(k, 1);
    size_t len = 0;
    const uint8_t *d1 = kt_blacklist_hash_digest(h1, &len);
    CHECK(len == 32 && kt_blacklist_has_bin(ref, KT_HASH_SHA256, d1), "an indexed hash listed");
    CHECK_EQ_STR(kt_blacklist_hash_kind(h1), "bin", "its kind");
    CHECK_EQ_STR(kt_blacklist_hash_source(h1), "dbx:test", "its source");
    CHECK(kt_blacklist_hash_at(k, kt_blacklist_hash_count(k)) == NULL, "past the end");
    enum kt_hash algs[KT_HASH__COUNT];
    CHECK_EQ_INT(kt_blacklist_bin_algs(k, algs), 1, "one algorithm among the bin hashes");
    /* tbs: SHA-384 digests, counted for the certificate rule */
    uint32_t *o2 = malloc(2 * sizeof(*o2));
    o2[0] = 0;
    o2[1] = 48;
    CHECK_EQ_INT(kt_blacklist_add_index(k, "tbs", KT_HASH_SHA384, buf, o2, 2, "dbx:tbs"), 0,
                 "tbs index");
    CHECK(kt_blacklist_has_tbs(k, buf + 48, 48), "a tbs hash found");
    CHECK_EQ_INT(kt_blacklist_add_index(k, "xyz", KT_HASH_SHA256, buf, malloc(4), 1, "x"),
                 -EINVAL, "bad kind (offs freed)");
    kt_keyrings_free(k);
    kt_keyrings_free(ref);
    KT_TEST_END();
}
