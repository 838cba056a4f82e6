#include "x509/sig_cache.h"

#include <pthread.h>
#include <string.h>

#define SLOTS 4096 /* power of two */

struct slot {
    uint8_t key[64]; /* cert sha256 || key id */
    int rc;
    bool used;
};

static struct slot table[SLOTS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static size_t index_of(const uint8_t key[64])
{
    uint64_t h;
    memcpy(&h, key, sizeof(h)); /* the bytes are SHA-256 output: already uniform */
    return (size_t)((h ^ ((uint64_t)key[32] << 32 | key[33])) & (SLOTS - 1));
}

static void make_key(uint8_t key[64], const uint8_t a[32], const uint8_t b[32])
{
    memcpy(key, a, 32);
    memcpy(key + 32, b, 32);
}

bool kt_sig_cache_get(const uint8_t cert_sha256[32], const uint8_t key_id[32], int *rc)
{
    uint8_t key[64];
    make_key(key, cert_sha256, key_id);
    struct slot *s = &table[index_of(key)];
    bool hit = false;
    pthread_mutex_lock(&mu);
    if (s->used && memcmp(s->key, key, 64) == 0) {
        *rc = s->rc;
        hit = true;
    }
    pthread_mutex_unlock(&mu);
    return hit;
}

void kt_sig_cache_put(const uint8_t cert_sha256[32], const uint8_t key_id[32], int rc)
{
    uint8_t key[64];
    make_key(key, cert_sha256, key_id);
    struct slot *s = &table[index_of(key)];
    pthread_mutex_lock(&mu);
    memcpy(s->key, key, 64);
    s->rc = rc;
    s->used = true;
    pthread_mutex_unlock(&mu);
}
