/* release.c - the Linux release a bzImage says it is.  The setup header's
 * kernel_version field (boot protocol 2.00+, at 0x20e) points, less 0x200,
 * at the version string "6.1.0-57-amd64 (debian-kernel@...) #1 SMP ...";
 * its first two numbers are the release whose rules the kernel follows. */
#include "kimage/kimage.h"

#include <string.h>

#include "util/le.h"

static bool read_number(const uint8_t *p, size_t n, size_t *i, unsigned *v)
{
    size_t start = *i;
    *v = 0;
    while (*i < n && p[*i] >= '0' && p[*i] <= '9' && *i - start < 4)
        *v = *v * 10 + (unsigned)(p[(*i)++] - '0');
    return *i > start;
}

unsigned kt_kimage_linux_version(const uint8_t *img, size_t len)
{
    kt_le whole, hdr, str;
    uint16_t at;
    kt_le_init(&whole, img, len, NULL);
    if (kt_le_window(&whole, 0, 0x210, &hdr, NULL) < 0 || memcmp(hdr.p + 0x202, "HdrS", 4) != 0)
        return 0;
    if (kt_le_seek(&hdr, 0x20e, NULL) < 0 || kt_le_u16(&hdr, &at, NULL) < 0 || at == 0)
        return 0;
    size_t off = (size_t)at + 0x200, n = len > off ? len - off : 0;
    if (kt_le_window(&whole, off, n < 64 ? n : 64, &str, NULL) < 0)
        return 0;
    size_t i = 0;
    unsigned major, minor;
    if (!read_number(str.p, kt_le_left(&str), &i, &major) || i >= kt_le_left(&str) ||
        str.p[i++] != '.' || !read_number(str.p, kt_le_left(&str), &i, &minor) || minor > 255)
        return 0;
    return KT_LINUX(major, minor);
}
