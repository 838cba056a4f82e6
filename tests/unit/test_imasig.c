/* test_imasig.c - kt_ima_sig_verify, the entry point the measurement list's
 * ima-sig verdicts share with verify-ima: the header rules (asymmetric_verify,
 * xattr_verify), ima_get_hash_algo, the algorithm names, and the verdicts
 * that need no key.  The signatures themselves are tested against evmctl
 * (tests/cli/verify_ima_*.sh). */
#include <string.h>

#include "ima/imasig.h"
#include "kt_test.h"

static size_t blob(uint8_t *b, uint8_t type, uint8_t ver, uint8_t algo, size_t sig, int size_delta)
{
    b[0] = type;
    b[1] = ver;
    b[2] = algo;
    b[3] = 0x12, b[4] = 0x34, b[5] = 0x56, b[6] = 0x78;
    unsigned sz = (unsigned)((int)sig + size_delta);
    b[7] = (uint8_t)(sz >> 8), b[8] = (uint8_t)sz;
    memset(b + 9, 0xab, sig);
    return 9 + sig;
}

static int verdict(const uint8_t *b, size_t n, uint8_t dalgo, bool verity, struct kt_ima_sig_check *c)
{
    static const uint8_t dg[64];
    struct kt_ima_digest d = {dalgo, verity, dg, 32};
    CHECK_EQ_INT(kt_ima_sig_verify(NULL, NULL, b, n, &d, c), 0, "returns 0 with a verdict");
    return c->error;
}

int main(void)
{
    uint8_t b[600];
    struct kt_ima_sig_check c;
    size_t n = blob(b, 3, 2, KT_IMA_HASH_SHA256, 256, 0);
    CHECK_EQ_INT(verdict(b, n, KT_IMA_HASH_SHA256, false, &c), -ENOKEY, "no keyrings: no key");
    CHECK(c.header_ok && c.keyid == 0x12345678 && c.sig_size == 256, "header parsed");
    CHECK_EQ_STR(c.hash_name, "sha256", "hash name");
    CHECK(strstr(c.reason, "12345678") != NULL, "reason names the key id: %s", c.reason);
    /* asymmetric_verify: sig_size exactly what follows, and more than the header */
    n = blob(b, 3, 2, KT_IMA_HASH_SHA256, 256, 1);
    CHECK_EQ_INT(verdict(b, n, KT_IMA_HASH_SHA256, false, &c), -EBADMSG, "sig_size past the blob");
    n = blob(b, 3, 2, KT_IMA_HASH_SHA256, 256, -1);
    CHECK_EQ_INT(verdict(b, n, KT_IMA_HASH_SHA256, false, &c), -EBADMSG, "sig_size short");
    n = blob(b, 3, 2, KT_IMA_HASH_SHA256, 0, 0);
    CHECK_EQ_INT(verdict(b, n, KT_IMA_HASH_SHA256, false, &c), -EBADMSG, "header alone");
    CHECK_EQ_INT(verdict(b, 5, KT_IMA_HASH_SHA256, false, &c), -EBADMSG, "truncated header");
    /* xattr_verify's versions and types */
    n = blob(b, 3, 3, KT_IMA_HASH_SHA256, 64, 0);
    CHECK_EQ_INT(verdict(b, n, KT_IMA_HASH_SHA256, false, &c), -EKEYREJECTED, "v3 in type 3");
    n = blob(b, 6, 2, KT_IMA_HASH_SHA256, 64, 0);
    CHECK_EQ_INT(verdict(b, n, KT_IMA_HASH_SHA256, true, &c), -EKEYREJECTED, "v2 in type 6");
    n = blob(b, 6, 3, KT_IMA_HASH_SHA256, 64, 0);
    CHECK_EQ_INT(verdict(b, n, KT_IMA_HASH_SHA256, false, &c), -ENOPKG, "v3 needs a verity digest");
    CHECK_EQ_INT(verdict(b, n, KT_IMA_HASH_SHA256, true, &c), -ENOKEY, "v3 with one: to the key");
    n = blob(b, 3, 1, KT_IMA_HASH_SHA256, 64, 0);
    CHECK_EQ_INT(verdict(b, n, KT_IMA_HASH_SHA256, false, &c), -ENOPKG, "v1 digsig");
    n = blob(b, 3, 2, 23, 64, 0);
    CHECK_EQ_INT(verdict(b, n, KT_IMA_HASH_SHA256, false, &c), -ENOPKG, "hash_algo past the table");
    n = blob(b, 3, 2, KT_IMA_HASH_SHA512, 64, 0);
    CHECK_EQ_INT(verdict(b, n, KT_IMA_HASH_SHA256, false, &c), -ENOPKG, "digest of another algorithm");
    n = blob(b, 5, 2, KT_IMA_HASH_SHA256, 64, 0);
    CHECK_EQ_INT(verdict(b, n, KT_IMA_HASH_SHA256, false, &c), -EBADMSG, "EVM type in security.ima");
    b[0] = 4, b[1] = 4;
    CHECK_EQ_INT(verdict(b, 34, KT_IMA_HASH_SHA256, false, &c), -ENODATA, "digest_ng: unsigned");
    CHECK_EQ_INT(verdict(b, 0, KT_IMA_HASH_SHA256, false, &c), -ENODATA, "empty");
    CHECK_EQ_INT(kt_ima_sig_verify(NULL, NULL, b, 10, NULL, &c), -EINVAL, "no digest");
    /* ima_get_hash_algo */
    n = blob(b, 3, 2, KT_IMA_HASH_SHA384, 64, 0);
    CHECK_EQ_INT(kt_ima_sig_hash_algo(b, n, 4), KT_IMA_HASH_SHA384, "v2 names its hash");
    CHECK_EQ_INT(kt_ima_sig_hash_algo(b, 9, 4), 4, "header alone: ima_hash");
    b[1] = 3;
    CHECK_EQ_INT(kt_ima_sig_hash_algo(b, n, 4), 4, "not v2: ima_hash");
    uint8_t ng[] = {4, KT_IMA_HASH_SHA512, 0};
    CHECK_EQ_INT(kt_ima_sig_hash_algo(ng, sizeof(ng), 4), KT_IMA_HASH_SHA512, "digest_ng");
    uint8_t old[21] = {1};
    CHECK_EQ_INT(kt_ima_sig_hash_algo(old, 21, 4), KT_IMA_HASH_SHA1, "old sha1 digest");
    CHECK_EQ_INT(kt_ima_sig_hash_algo(old, 17, 4), KT_IMA_HASH_MD5, "old md5 digest");
    /* the kernel's names */
    CHECK_EQ_STR(kt_ima_hash_name(20), "sha3-256", "sha3-256 is 20");
    CHECK_EQ_STR(kt_ima_hash_name(17), "sm3", "sm3 is 17");
    CHECK(kt_ima_hash_name(23) == NULL, "past the table");
    CHECK_EQ_INT(kt_ima_hash_from_name("sha384"), 5, "sha384");
    CHECK_EQ_INT(kt_ima_hash_from_name("sha999"), -1, "unknown name");
    /* the fs-verity digest of an empty file: fsverity-utils' constant */
    uint8_t vd[64];
    size_t vl = 0;
    CHECK_EQ_INT(kt_ima_verity_digest(NULL, 0, KT_HASH_SHA256, 12, vd, &vl), 0, "verity empty");
    static const uint8_t empty_verity[32] = {
        0x3d, 0x24, 0x8c, 0xa5, 0x42, 0xa2, 0x4f, 0xc6, 0x2d, 0x1c, 0x43, 0xb9, 0x16, 0xea, 0xe5, 0x01,
        0x68, 0x78, 0xe2, 0x53, 0x3c, 0x88, 0x23, 0x84, 0x80, 0xb2, 0x61, 0x28, 0xa1, 0xf1, 0xaf, 0x95};
    CHECK(vl == 32 && !memcmp(vd, empty_verity, 32), "verity digest of an empty file");
    CHECK_EQ_INT(kt_ima_verity_digest(NULL, 0, KT_HASH_SHA1, 12, vd, &vl), -ENOPKG, "verity sha1");
    KT_TEST_END();
}
