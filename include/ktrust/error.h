/* ktrust/error.h - results, verdicts and error details.
 *
 * Functions return 0 or a negative errno with the kernel's meaning
 * (-EBADMSG, -ELIBBAD, -ENODATA, -ENOKEY, -EKEYREJECTED, -ENOPKG, -EPERM,
 * -ENOMEM ...).  A struct kt_error, when the caller passes one, receives a
 * one-line description of the first failure and the byte offset in the input
 * where it was found.
 */
#ifndef KTRUST_ERROR_H
#define KTRUST_ERROR_H

#include <stddef.h>

#include "ktrust/api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KT_NO_OFFSET ((size_t)-1)

struct kt_error {
    int code;          /* negative errno, 0 when nothing failed */
    size_t offset;     /* byte offset into the input, or KT_NO_OFFSET */
    char what[400];    /* "certificate: SEQUENCE length runs past the end" */
};

/* An error with nothing recorded: code 0, no offset, empty text.  Declare
 * errors with it (`struct kt_error e = KT_ERROR_INIT;`): a zero-filled one
 * would say "at offset 0". */
#define KT_ERROR_INIT {0, KT_NO_OFFSET, {0}}

/* Verdicts, numbered as the CLI's exit codes (see CONTRACT.md). */
enum kt_verdict {
    KT_TRUSTED = 0,
    KT_UNSIGNED = 1,
    KT_UNTRUSTED = 2,
    KT_UNSUPPORTED = 3,
    KT_MALFORMED = 4,
    KT_REJECTED = 5,
    KT_REFUSED = 6,
    KT_INTERNAL = 70,
};

/* Put "PREFIX: " (printf-style) before e's text, keeping its code and
 * offset: "--data x.bin" + "cannot open: ..." gives "--data x.bin: cannot
 * open: ...".  Returns e->code; does nothing with a NULL e. */
KT_API int kt_error_prefix(struct kt_error *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Map a kernel-style result (0 or -errno) to a verdict. */
KT_API enum kt_verdict kt_verdict_of(int rc);
/* "trusted", "unsigned", ... */
KT_API const char *kt_verdict_name(enum kt_verdict v);
/* "EKEYREJECTED", ... or NULL for 0. */
KT_API const char *kt_errno_name(int rc);

#ifdef __cplusplus
}
#endif
#endif
