#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int vfail(struct kt_error *e, int code, size_t offset, const char *fmt, va_list ap)
{
    if (e) {
        e->code = code;
        e->offset = offset;
        vsnprintf(e->what, sizeof(e->what), fmt, ap);
    }
    return code;
}

int kt_fail(struct kt_error *e, int code, size_t offset, const char *fmt, ...)
{
    if (e && e->code != 0)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vfail(e, code, offset, fmt, ap);
    va_end(ap);
    return code;
}

int kt_fail_over(struct kt_error *e, int code, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(e, code, offset, fmt, ap);
    va_end(ap);
    return code;
}

int kt_error_prefix(struct kt_error *e, const char *fmt, ...)
{
    if (!e)
        return 0;
    char old[sizeof(e->what)];
    memcpy(old, e->what, sizeof(old));
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->what, sizeof(e->what), fmt, ap);
    va_end(ap);
    size_t at = n < 0 ? 0 : (size_t)n < sizeof(e->what) ? (size_t)n : sizeof(e->what) - 1;
    const char *parts[2] = {": ", old};
    for (int i = 0; i < 2; i++) {
        size_t len = strlen(parts[i]), room = sizeof(e->what) - 1 - at;
        if (len > room)
            len = room;
        memcpy(e->what + at, parts[i], len);
        at += len;
    }
    e->what[at] = 0;
    return e->code;
}

static const char *hint_texts[KT_HINT_COUNT];

void kt_hint_set(enum kt_hint hint, const char *text)
{
    if ((unsigned)hint < KT_HINT_COUNT)
        hint_texts[hint] = text;
}

const char *kt_hint_or(enum kt_hint hint, const char *dflt)
{
    return (unsigned)hint < KT_HINT_COUNT && hint_texts[hint] ? hint_texts[hint] : dflt;
}

const char *kt_hint_text(enum kt_hint hint)
{
    return kt_hint_or(hint, "");
}

enum kt_verdict kt_verdict_of(int rc)
{
    switch (rc) {
    case 0: return KT_TRUSTED;
    case -ENODATA: return KT_UNSIGNED;
    case -ENOKEY: return KT_UNTRUSTED;
    case -ENOPKG: return KT_UNSUPPORTED;
    case -EBADMSG:
    case -ELIBBAD:
    case -EINVAL:
    case -E2BIG:
    case -EOVERFLOW: return KT_MALFORMED;
    case -EKEYREJECTED: return KT_REJECTED;
    case -EPERM: return KT_REFUSED;
    default: return KT_INTERNAL;
    }
}

int kt_verdict_rank(int rc)
{
    switch (rc) {
    case -ENOENT: case -EACCES: case -EISDIR: case -EFBIG: case -ENOTDIR: case -EIO:
        return KT_REFUSED + 1; /* an input that cannot be read */
    default: break;
    }
    enum kt_verdict v = kt_verdict_of(rc);
    return v == KT_INTERNAL ? KT_REFUSED + 2 : (int)v;
}

int kt_verdict_worse(int a, int b)
{
    return kt_verdict_rank(b) > kt_verdict_rank(a) ? b : a;
}

const char *kt_verdict_name(enum kt_verdict v)
{
    switch (v) {
    case KT_TRUSTED: return "trusted";
    case KT_UNSIGNED: return "unsigned";
    case KT_UNTRUSTED: return "untrusted";
    case KT_UNSUPPORTED: return "unsupported";
    case KT_MALFORMED: return "malformed";
    case KT_REJECTED: return "rejected";
    case KT_REFUSED: return "refused";
    case KT_INTERNAL: return "error";
    }
    return "error";
}

const char *kt_errno_name(int rc)
{
    switch (rc) {
    case 0: return NULL;
    case -ENODATA: return "ENODATA";
    case -ENOKEY: return "ENOKEY";
    case -ENOPKG: return "ENOPKG";
    case -EBADMSG: return "EBADMSG";
    case -ELIBBAD: return "ELIBBAD";
    case -EINVAL: return "EINVAL";
    case -E2BIG: return "E2BIG";
    case -EOVERFLOW: return "EOVERFLOW";
    case -EKEYREJECTED: return "EKEYREJECTED";
    case -EPERM: return "EPERM";
    case -ENOMEM: return "ENOMEM";
    case -ENOENT: return "ENOENT";
    case -EIO: return "EIO";
    case -EACCES: return "EACCES";
    case -EISDIR: return "EISDIR";
    case -EFBIG: return "EFBIG";
    case -ELOOP: return "ELOOP";
    case -ENOTDIR: return "ENOTDIR";
    case -EMEDIUMTYPE: return "EMEDIUMTYPE";
    default: return "EIO";
    }
}
