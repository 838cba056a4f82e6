/* ktrust/api.h - KT_API marks a function as part of libktrust's public API.
 *
 * The library is built with hidden visibility: only functions declared with
 * KT_API in a header under include/ are exported from libktrust.so.
 */
#ifndef KTRUST_API_H
#define KTRUST_API_H

#if defined(__GNUC__) || defined(__clang__)
#define KT_API __attribute__((visibility("default")))
#else
#define KT_API
#endif

#endif
