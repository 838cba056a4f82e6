/* libFuzzer target: IMA signature blobs (src/ima/imasig.c).  Input: a
 * big-endian u16 length, that many bytes of a DER certificate put in the
 * `ima` keyring (trusted), a flags byte (bit 0: the digest is an fs-verity
 * one), then the blob as security.ima would hold it.  The digest is the
 * blob's own algorithm's size of zeros (a wrong one: every path up to the
 * signature check runs). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ima/imasig.h"
#include "keys/keyring.h"

static struct kt_keyrings *rings_with(const uint8_t *der, size_t len)
{
    struct kt_keyrings *k = NULL;
    struct kt_keyring *r = NULL;
    if (kt_keyrings_new_empty(&k) < 0)
        return NULL;
    if (kt_keyrings_add_ring(k, "ima", KT_RESTRICT_NONE, NULL, 0, false, &r) < 0)
        return k;
    struct kt_key *key = NULL;
    if (kt_key_new(der, len, "fuzz", &key, NULL) == 0) {
        key->trusted = true;
        if (kt_keyring_link(r, key) < 0)
            kt_key_free(key);
    }
    return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    size_t cl = (size_t)data[0] << 8 | data[1];
    if (cl > size - 3)
        cl = size - 3;
    struct kt_keyrings *k = rings_with(data + 2, cl);
    uint8_t flags = data[2 + cl];
    const uint8_t *sig = data + 3 + cl;
    size_t sl = size - 3 - cl;
    static const uint8_t zeros[64];
    uint8_t algo = kt_ima_sig_hash_algo(sig, sl, KT_IMA_HASH_SHA256);
    enum kt_hash h = kt_ima_hash_kt(algo);
    struct kt_ima_digest d = {algo, flags & 1, zeros, h != KT_HASH_NONE ? kt_hash_size(h) : 32};
    struct kt_ima_sig_check c;
    kt_ima_sig_verify(k, NULL, sig, sl, &d, &c);
    struct kt_ima_sig_opts o = {.keyring = ".ima", .allow_sha1 = true};
    kt_ima_sig_verify(k, &o, sig, sl, &d, &c);
    kt_keyrings_free(k);
    return 0;
}
