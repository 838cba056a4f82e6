/* distro.c - distribution kernels whose patches change a keyring rule
 * (distro.h says which, and where the facts come from). */
#include "policy/distro.h"

#include <string.h>

/* A Debian version "6.1.20-2", "6.1~rc3-1~exp1", "5.10.218-1+deb11u1" as
 * (major, minor, patch, revision); a "~" after the minor (a release
 * candidate) sorts before every patch: patch -1.  false if it does not parse. */
static bool debian_parse(const char *v, long out[4])
{
    int at = 0;
    memset(out, 0, 4 * sizeof(long));
    for (const char *p = v; at < 4;) {
        if (*p < '0' || *p > '9')
            return false;
        long n = 0;
        while (*p >= '0' && *p <= '9' && n < 100000)
            n = n * 10 + (*p++ - '0');
        out[at++] = n;
        if (at == 2 && *p == '~') { /* 6.1~rc3-1: before 6.1.0 */
            out[at++] = -1;
            p = strchr(p, '-');
            if (!p)
                return true;
            p++;
            continue;
        }
        if (at < 3 && *p == '.')
            p++;
        else if (at < 3 && *p == '-')
            out[at++] = 0, p++; /* no patch number: "6.1-1" */
        else if (at == 3 && *p == '-')
            p++;
        else
            return at >= 2;
    }
    return true;
}

static int cmp4(const long a[4], long b0, long b1, long b2, long b3)
{
    const long b[4] = {b0, b1, b2, b3};
    for (int i = 0; i < 4; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

const char *kt_distro_modules_platform(const struct kt_kimage_build *b)
{
    long v[4];
    if (!b || !b->debian_version[0] || !debian_parse(b->debian_version, v))
        return NULL;
    /* 5.3.9-1 .. before 6.1~rc3-1~exp1, and 6.1.20-2 on; not the 6.2 and
     * 6.3~rc experimental uploads, made before the patch came back in
     * 6.1.20-2 (#1030200) and not in the 6.1 changelog: unknown, so
     * mainline's rule (a module refused wrongly, never trusted wrongly) */
    bool first = cmp4(v, 5, 3, 9, 1) >= 0 && cmp4(v, 6, 1, -1, 0) < 0;
    bool again = cmp4(v, 6, 1, 20, 2) >= 0;
    bool unknown = cmp4(v, 6, 2, -1, 0) >= 0 && cmp4(v, 6, 3, 0, 0) < 0;
    return (first || again) && !unknown ? KT_DISTRO_DEBIAN_PLATFORM : NULL;
}

const char *kt_distro_modules_hash_check(const struct kt_kimage_build *b)
{
    /* every Debian build since 5.2.6-1 carries it: any Debian version, even
     * one this parser does not read (an epoch), gets the stricter rule */
    return b && b->debian_version[0] ? KT_DISTRO_DEBIAN_MODHASH : NULL;
}

void kt_trust_set_for_build(const struct kt_keyrings *k, enum kt_verify_purpose p,
                            const struct kt_kimage_build *b, struct kt_trust_set *out)
{
    kt_trust_set_for(k, p, out);
    if (p != KT_VERIFY_PURPOSE_MODULE && p != KT_VERIFY_PURPOSE_DEFAULT)
        return;
    out->hash_check_why = kt_distro_modules_hash_check(b);
    const char *why = kt_distro_modules_platform(b);
    const struct kt_keyring *plat = k ? kt_keyrings_default(k, KT_RING_PLATFORM) : NULL;
    if (why && plat && !kt_trust_set_has(out, plat)) {
        out->retry = plat;
        out->retry_why = why;
    }
}
