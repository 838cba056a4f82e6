/* ctx_msg.c - what a context says: its messages (the caller's callback),
 * and the errors of an option's file (the wrong kind of file, or what was
 * wrong with its content).  ctx.c and ctx_kernel.c both use it; it uses
 * neither. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "verify/verify_int.h"

void kt_ctx_say(const struct kt_ctx_opts *o, enum kt_ctx_msg kind, const char *fmt, ...)
{
    if (!o->msg)
        return;
    char line[4600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    o->msg(o->msg_arg, kind, line);
}

const char *kt_ctx_wrong_kind(const uint8_t *p, size_t n, const char *name)
{
    switch (kt_detect(p, n, name)) {
    case KT_FT_EMPTY: return "an empty file";
    case KT_FT_PE: return "a PE image";
    case KT_FT_MODULE: return "a kernel module";
    case KT_FT_PKCS7: return "a PKCS#7 message";
    case KT_FT_KERNEL: return "a kernel image without a builtin key list";
    case KT_FT_ESL: return NULL; /* the right kind, but broken: its own error */
    case KT_FT_X509:
        if (p[0] == 0x30 || !memchr(p, 0, n < 4096 ? n : 4096))
            return NULL; /* DER or PEM text */
        break;
    default: break;
    }
    if (n >= 4 && !memcmp(p, "\x7f" "ELF", 4))
        return "an ELF file";
    /* binary, and not DER: a PEM "BEGIN" inside it is an accident */
    if (n && p[0] != 0x30 && memchr(p, 0, n < 4096 ? n : 4096))
        return "a binary file of another kind";
    return NULL;
}

/* Errors in an option's file: an unreadable one keeps its errno (66); the
 * wrong kind of file is a usage error (-EMEDIUMTYPE); anything else wrong
 * with its content is malformed -- never unsigned, untrusted or refused,
 * which are verdicts about the inputs. */
int kt_ctx_option_error(int rc, const char *opt, const char *path, const uint8_t *p, size_t n,
                        const char *want, struct kt_error *err)
{
    const char *kind = p ? kt_ctx_wrong_kind(p, n, path) : NULL;
    if (kind)
        return kt_fail_over(err, -EMEDIUMTYPE, KT_NO_OFFSET, "%s %s: %s, not %s", opt, path, kind,
                            want);
    enum kt_verdict v = kt_verdict_of(rc);
    bool io = rc == -ENOENT || rc == -EACCES || rc == -EISDIR || rc == -EFBIG ||
              rc == -ENOTDIR || rc == -EIO;
    bool keep = io || rc == -ENOMEM || v == KT_UNSUPPORTED || v == KT_REJECTED || v == KT_MALFORMED;
    err->code = keep ? rc : -EBADMSG;
    return kt_error_prefix(err, "%s %s", opt, path);
}
