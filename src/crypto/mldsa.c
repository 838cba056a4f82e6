/* ML-DSA (FIPS 204) through OpenSSL: the parameter sets, and whether the
 * libcrypto ktrust runs on has them.  OpenSSL has ML-DSA from 3.5; ktrust
 * builds against 3.0 too, so nothing here needs a 3.5 header: the algorithm
 * is asked for by name at run time (EVP_SIGNATURE_fetch), and keys are told
 * apart with EVP_PKEY_is_a.  An older libcrypto simply answers "no". */
#include "crypto/crypto.h"

#include <openssl/evp.h>
#include <pthread.h>

static const struct {
    enum kt_pkey_algo algo;
    const char *title; /* FIPS 204's name, OpenSSL's algorithm name */
    size_t pub_len;    /* FIPS 204 table 2: public key size */
} sets[] = {
    {KT_PKEY_MLDSA44, "ML-DSA-44", 1312},
    {KT_PKEY_MLDSA65, "ML-DSA-65", 1952},
    {KT_PKEY_MLDSA87, "ML-DSA-87", 2592},
};
#define N_SETS (sizeof(sets) / sizeof(sets[0]))

static bool have[N_SETS];
static pthread_once_t have_once = PTHREAD_ONCE_INIT;

void kt_crypto_init(void);

static void probe(void)
{
    kt_crypto_init();
    for (size_t i = 0; i < N_SETS; i++) {
        EVP_SIGNATURE *s = EVP_SIGNATURE_fetch(NULL, sets[i].title, NULL);
        have[i] = s != NULL;
        EVP_SIGNATURE_free(s);
    }
}

static int index_of(enum kt_pkey_algo a)
{
    for (size_t i = 0; i < N_SETS; i++)
        if (sets[i].algo == a)
            return (int)i;
    return -1;
}

const char *kt_mldsa_title(enum kt_pkey_algo a)
{
    int i = index_of(a);
    return i < 0 ? NULL : sets[i].title;
}

size_t kt_mldsa_pubkey_len(enum kt_pkey_algo a)
{
    int i = index_of(a);
    return i < 0 ? 0 : sets[i].pub_len;
}

bool kt_pkey_algo_available(enum kt_pkey_algo a)
{
    int i = index_of(a);
    if (i < 0)
        return a != KT_PKEY_UNKNOWN;
    pthread_once(&have_once, probe);
    return have[i];
}

/* The ML-DSA parameter set of an imported key (KT_PKEY_UNKNOWN: none). */
enum kt_pkey_algo kt_mldsa_of_pkey(const EVP_PKEY *pk); /* shared with pubkey.c */
enum kt_pkey_algo kt_mldsa_of_pkey(const EVP_PKEY *pk)
{
    for (size_t i = 0; i < N_SETS; i++)
        if (EVP_PKEY_is_a(pk, sets[i].title))
            return sets[i].algo;
    return KT_PKEY_UNKNOWN;
}
