/* sig_cache.h - "certificate C verifies under key K", remembered for the run
 * so that each certificate link is checked once however many files share it
 * (scan of a tree of binaries signed through the same chain).  Keyed by the
 * certificate's SHA-256 and the key's SPKI SHA-256 (contents, not pointers);
 * thread-safe; a fixed-size table where a newer entry replaces an older one. */
#ifndef KT_X509_SIG_CACHE_H
#define KT_X509_SIG_CACHE_H

#include <stdbool.h>
#include <stdint.h>

bool kt_sig_cache_get(const uint8_t cert_sha256[32], const uint8_t key_id[32], int *rc);
void kt_sig_cache_put(const uint8_t cert_sha256[32], const uint8_t key_id[32], int rc);

#endif
