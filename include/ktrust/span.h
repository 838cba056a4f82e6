/* ktrust/span.h - a byte range inside a buffer the caller owns (parsed
 * objects point into their input; builders take ranges). */
#ifndef KTRUST_SPAN_H
#define KTRUST_SPAN_H

#include <stddef.h>
#include <stdint.h>

typedef struct kt_span {
    const uint8_t *p;
    size_t len;
} kt_span;

#endif
