/* fmt.h - snprintf into a fixed buffer where truncation is acceptable
 * (paths and reasons in reports), without -Wformat-truncation noise. */
#ifndef KT_UTIL_FMT_H
#define KT_UTIL_FMT_H

#include <stddef.h>
#include <stdint.h>

/* Format into out (cap bytes, always NUL-terminated; may truncate). */
void kt_fmt(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Lower-case hex of p[0..len) into out (2*len+1 bytes); returns out. */
char *kt_hex(const uint8_t *p, size_t len, char *out);

/* v in decimal with thousands separated by commas ("34,112") into out (at
 * least 27 bytes); returns out. */
char *kt_thousands(unsigned long long v, char *out);

#endif
