/* fmt.c - kt_fmt, kt_hex. */
#include "util/fmt.h"

#include <stdarg.h>
#include <stdio.h>

void kt_fmt(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, cap, fmt, ap);
    va_end(ap);
}

char *kt_hex(const uint8_t *p, size_t len, char *out)
{
    static const char x[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = x[p[i] >> 4];
        out[2 * i + 1] = x[p[i] & 15];
    }
    out[2 * len] = 0;
    return out;
}

char *kt_thousands(unsigned long long v, char *out)
{
    char raw[24];
    int n = snprintf(raw, sizeof(raw), "%llu", v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = raw[i];
    }
    out[o] = 0;
    return out;
}
