/* uki_text.c - the text sections of a UKI: .osrel (os-release(5) syntax),
 * .uname, and the stub's own .sdmagic ("#### LoaderInfo: systemd-stub
 * VERSION ####"). */
#include <errno.h>
#include <string.h>

#include "uki/uki.h"

/* The raw bytes of the section named exactly name (the last one). */
static int exact(const struct kt_uki *u, const char *name, const uint8_t **p, size_t *len)
{
    int rc = -ENOENT;
    for (size_t i = 0; i < u->pe->n_sections; i++) {
        size_t zeros;
        if (strcmp(u->sections[i].name, name) != 0)
            continue;
        kt_uki_loaded(u, i, p, len, &zeros);
        rc = 0;
    }
    return rc;
}

/* Copy [p, p+n) into buf as text, dropping trailing NULs and newlines. */
static int copy_text(const uint8_t *p, size_t n, char *buf, size_t cap)
{
    while (n && (p[n - 1] == 0 || p[n - 1] == '\n' || p[n - 1] == '\r'))
        n--;
    if (!cap)
        return -EINVAL;
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, p, n);
    buf[n] = 0;
    buf[strcspn(buf, "\n")] = 0;
    return 0;
}

/* One os-release value: unquoted, backslash escapes resolved (a shell
 * fragment's rules, as os-release(5) gives them). */
static void osrel_value(const uint8_t *v, size_t n, char *buf, size_t cap)
{
    size_t o = 0;
    uint8_t quote = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        uint8_t c = v[i];
        if (!quote && (c == '"' || c == '\'')) {
            quote = c;
            continue;
        }
        if (quote && c == quote) {
            quote = 0;
            continue;
        }
        if (c == '\\' && quote != '\'' && i + 1 < n)
            c = v[++i];
        buf[o++] = (char)c;
    }
    buf[o] = 0;
}

int kt_uki_osrel(const struct kt_uki *u, const char *key, char *buf, size_t cap)
{
    const uint8_t *p;
    size_t len, klen = strlen(key);
    if (!cap || kt_uki_get(u, ".osrel", &p, &len) < 0)
        return -ENOENT;
    while (len) {
        const uint8_t *nl = memchr(p, '\n', len);
        size_t line = nl ? (size_t)(nl - p) : len;
        if (line > klen && memcmp(p, key, klen) == 0 && p[klen] == '=') {
            size_t vlen = line - klen - 1;
            while (vlen && (p[klen + 1 + vlen - 1] == '\r' || p[klen + 1 + vlen - 1] == 0))
                vlen--;
            osrel_value(p + klen + 1, vlen, buf, cap);
            return 0;
        }
        p += line + (nl ? 1 : 0);
        len -= line + (nl ? 1 : 0);
    }
    return -ENOENT;
}

int kt_uki_uname(const struct kt_uki *u, char *buf, size_t cap)
{
    const uint8_t *p;
    size_t len;
    if (exact(u, ".uname", &p, &len) < 0)
        return -ENOENT;
    return copy_text(p, len, buf, cap);
}

int kt_uki_stub_version(const struct kt_uki *u, char *buf, size_t cap)
{
    static const char head[] = "#### LoaderInfo: ";
    const uint8_t *p;
    size_t len;
    char text[128];
    if (exact(u, ".sdmagic", &p, &len) < 0 || copy_text(p, len, text, sizeof(text)) < 0 ||
        strncmp(text, head, sizeof(head) - 1) != 0)
        return -ENOENT;
    char *v = text + sizeof(head) - 1, *end = strstr(v, " ####");
    if (end)
        *end = 0;
    return copy_text((const uint8_t *)v, strlen(v), buf, cap);
}

unsigned kt_uki_flags(const struct kt_uki *u)
{
    char v[128];
    if (kt_uki_stub_version(u, v, sizeof(v)) == 0 && strncmp(v, "systemd-stub 252", 16) != 0)
        return u->flags | KT_UKI_OTHER_STUB;
    return u->flags;
}

int kt_uki_verdict(const struct kt_uki *u, int verdict, struct kt_error *err)
{
    if (!(kt_uki_flags(u) & KT_UKI_NO_LINUX))
        return verdict;
    kt_fail(err, -ELIBBAD, KT_NO_OFFSET,
            "no .linux section: systemd-stub has no kernel to start (not a UKI)");
    return kt_verdict_worse(verdict, -ELIBBAD);
}
