/* One result convention for all of libktrust.
 *
 * Every fallible function returns int: 0 on success or a negative errno that
 * means what the kernel means by it:
 *   -EBADMSG       malformed message / certificate / signature blob
 *   -ELIBBAD       unparsable PE image or container
 *   -ENODATA       no signature present
 *   -ENOKEY        signatures check out but no trusted key vouches
 *   -EKEYREJECTED  a signature or digest does not match; blacklisted
 *   -ENOPKG        unsupported algorithm or format
 *   -EPERM         a keyring restriction refused a key
 *   -ENOMEM, -EIO, -ENOENT ... system errors
 * and, when the caller passed a kt_error, a detail: what failed and where
 * (a byte offset into the input, or KT_NO_OFFSET).
 */
#ifndef KT_UTIL_ERR_H
#define KT_UTIL_ERR_H

#include <errno.h>
#include <stddef.h>

#include "ktrust/error.h"

/* Record an error in e (may be NULL): the first one wins (a later call does
 * not overwrite a detail already set, so the innermost cause is kept).
 * Returns code (negative). */
int kt_fail(struct kt_error *e, int code, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Like kt_fail but always overwrites. */
int kt_fail_over(struct kt_error *e, int code, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The text registered for a hint (kt_hint_set, ktrust/error.h), or "";
 * kt_hint_or: or `dflt` (for the KT_HINT_NAME_* ones). */
const char *kt_hint_text(enum kt_hint hint);
const char *kt_hint_or(enum kt_hint hint, const char *dflt);

/* How bad a result code is, to fold several into the worst: the verdicts
 * in kt_verdict_of's order (trusted 0 ... refused 6), then an input that
 * cannot be read (-ENOENT, -EACCES, -EISDIR, -EFBIG, -ENOTDIR, -EIO), then
 * anything else.  kt_verdict_worse: the worse of two (a on a tie). */
int kt_verdict_rank(int rc);
int kt_verdict_worse(int a, int b);

#define KT_TRY(expr)                                                           \
    do {                                                                       \
        int kt_try_rc_ = (expr);                                               \
        if (kt_try_rc_ < 0)                                                    \
            return kt_try_rc_;                                                 \
    } while (0)

#endif
