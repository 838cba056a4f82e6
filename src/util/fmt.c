/* fmt.c - kt_fmt. */
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
