/* release.c - the Linux release a bzImage says it is.  The setup header's
 * kernel_version field (boot protocol 2.00+, at 0x20e) points, less 0x200,
 * at the version string "6.1.0-57-amd64 (debian-kernel@...) #1 SMP ...";
 * its first two numbers are the release whose rules the kernel follows.
 * The rest is the build's banner: a Debian build ends it with "Debian
 * 6.1.192-3 (date)" (the package's version, Debian's version.patch). */
#include "kimage/kimage.h"

#include <string.h>

#include "uki/uki.h"
#include "util/le.h"

static bool read_number(const uint8_t *p, size_t n, size_t *i, unsigned *v)
{
    size_t start = *i;
    *v = 0;
    while (*i < n && p[*i] >= '0' && p[*i] <= '9' && *i - start < 4)
        *v = *v * 10 + (unsigned)(p[(*i)++] - '0');
    return *i > start;
}

/* The version string of a bzImage (or of a UKI's .linux): a window on it,
 * up to its NUL or KT_KIMAGE_BANNER_MAX bytes; 0 when there is none. */
static size_t version_string(const uint8_t *img, size_t len, const uint8_t **out)
{
    const uint8_t *lx;
    size_t nlx;
    if (len >= 2 && img[0] == 'M' && img[1] == 'Z' && kt_uki_linux(img, len, &lx, &nlx) == 0)
        img = lx, len = nlx; /* a UKI: the kernel inside */
    kt_le whole, hdr, str;
    uint16_t at;
    kt_le_init(&whole, img, len, NULL);
    if (kt_le_window(&whole, 0, 0x210, &hdr, NULL) < 0 || memcmp(hdr.p + 0x202, "HdrS", 4) != 0)
        return 0;
    if (kt_le_seek(&hdr, 0x20e, NULL) < 0 || kt_le_u16(&hdr, &at, NULL) < 0 || at == 0)
        return 0;
    size_t off = (size_t)at + 0x200, n = len > off ? len - off : 0;
    if (n > KT_KIMAGE_BANNER_MAX)
        n = KT_KIMAGE_BANNER_MAX;
    if (kt_le_window(&whole, off, n, &str, NULL) < 0)
        return 0;
    const uint8_t *nul = memchr(str.p, 0, n);
    *out = str.p;
    return nul ? (size_t)(nul - str.p) : n;
}

void kt_kimage_build_of(const uint8_t *img, size_t len, struct kt_kimage_build *b)
{
    memset(b, 0, sizeof(*b));
    const uint8_t *p;
    size_t n = version_string(img, len, &p), i = 0;
    unsigned major, minor;
    if (!n)
        return;
    memcpy(b->banner, p, n);
    for (size_t j = 0; j < n; j++) /* printable, for messages */
        if (b->banner[j] < 0x20 || b->banner[j] > 0x7e)
            b->banner[j] = '?';
    if (read_number(p, n, &i, &major) && i < n && p[i++] == '.' &&
        read_number(p, n, &i, &minor) && minor <= 255)
        b->linux_version = KT_LINUX(major, minor);
    /* Debian: its maintainers' address, then " Debian VERSION" */
    const char *d = strstr(b->banner, " Debian ");
    if (strstr(b->banner, "(debian-kernel@lists.debian.org)") && d) {
        d += strlen(" Debian ");
        size_t k = 0;
        while (d[k] && d[k] != ' ' && k + 1 < sizeof(b->debian_version))
            k++;
        memcpy(b->debian_version, d, k);
        b->debian_version[k] = '\0';
    }
}

unsigned kt_kimage_linux_version(const uint8_t *img, size_t len)
{
    struct kt_kimage_build b;
    kt_kimage_build_of(img, len, &b);
    return b.linux_version;
}
