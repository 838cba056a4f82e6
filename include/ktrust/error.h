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

/* Hints: advice an application adds to a library message, in its own
 * words (the ktrust program names its options: " (use --allow-sha1 to
 * accept it)").  The library states only the condition ("SHA-1 image
 * digest refused") and puts the text registered for the hint where the
 * advice belongs; with none registered (the default) it adds nothing.
 * The KT_HINT_NAME_* ones are how the application names a context's
 * inputs in messages ("--kernel"); unregistered, the library says
 * "trust file", "kernel", "keyring". */
enum kt_hint {
    KT_HINT_ALLOW_SHA1,       /* after a refused SHA-1 image digest or signature */
    KT_HINT_ALLOW_SHA1_BRIEF, /* after a refused SHA-1 digest in a PKCS#7 message */
    KT_HINT_DETACHED_DATA,    /* after "the signed data is needed" */
    KT_HINT_SUPPLY_KEY,       /* after "no trusted key matching its id, ..." */
    KT_HINT_SUPPLY_ROOT,      /* after "chain ends at the self-signed ..." */
    KT_HINT_SUPPLY_ISSUER,    /* after "chain ends at ..., issued by ..." */
    KT_HINT_PLATFORM_VOUCH,   /* after "platform keys vouch for boot images, never ..." */
    KT_HINT_PK,               /* after "PK" in "no PK given" (verify-var) */
    KT_HINT_PK_KEK,           /* after "PK or KEK" in "no PK or KEK given" */
    KT_HINT_NO_STORE,         /* after "no store at PATH" (verifying) */
    KT_HINT_NO_STORE_KEYRING, /* after "no store at PATH" (keyring commands) */
    KT_HINT_NO_KEYRING,       /* after "no such keyring in the store" */
    KT_HINT_STORE_NONE,       /* after "store: none" (a context without a store) */
    KT_HINT_NAME_TRUST,       /* a run-only certificate file (kt_ctx_trust.option unset) */
    KT_HINT_NAME_KERNEL,      /* the kernel image of kt_ctx_opts.kernel */
    KT_HINT_NAME_KEYRING,     /* a keyring named in kt_ctx_opts.vouch */
    KT_HINT_COUNT
};

/* Register the text for a hint (NULL: none), copied by reference: it must
 * stay valid.  Process-wide; set it once, before verifying. */
KT_API void kt_hint_set(enum kt_hint hint, const char *text);

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
