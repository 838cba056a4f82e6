/* ktrust/sys/wrap.h - the advanced tier: PE-wrapped keys (wrap-key's builders, load-pe-key).
 *
 * What the ktrust program needs beyond the stable API (ktrust.h), declared
 * and exported so that it (and any program that wants to do what it does)
 * needs no header from src/.  It may change between releases (a changed
 * signature is listed in the release notes, never changed silently), so a
 * program says that it accepts this by defining KT_ADVANCED_API before
 * including it (zstd's ZSTD_STATIC_LINKING_ONLY, libgit2's git2/sys/). */
#ifndef KTRUST_SYS_WRAP_H
#define KTRUST_SYS_WRAP_H

#ifndef KT_ADVANCED_API
#error "ktrust/sys/wrap.h is ktrust's advanced tier (it may change between releases): #define KT_ADVANCED_API before including it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"
#include "ktrust/keyring.h"
#include "ktrust/span.h"
#include "ktrust/verify.h"
#include "ktrust/x509.h"

#ifdef __cplusplus
extern "C" {
#endif

/* wrap-key: a minimal unsigned PE32+ EFI application (subsystem 10) for
 * machine m (X64 or AA64) whose entry point returns EFI_UNSUPPORTED and
 * whose `.keylist` section holds the n DER certificates back to back.  *out
 * is malloc'd (caller frees).  Errors: -EINVAL, -ENOMEM, -EFBIG (too large). */
enum kt_pe_machine {
    KT_PE_MACHINE_I386 = 0x014c,
    KT_PE_MACHINE_X64 = 0x8664,
    KT_PE_MACHINE_AA64 = 0xaa64,
};
KT_API int kt_pe_build_keylist(const kt_span *certs, size_t n, enum kt_pe_machine m,
                               uint8_t **out, size_t *out_len);
/* The same with any section name (up to 64 bytes; past 8 it goes to the COFF
 * string table as "/4", like shim's .vendor_cert) holding the n parts back
 * to back: kt_pe_build_keylist is kt_pe_build_section(".keylist", ...). */
KT_API int kt_pe_build_section(const char *name, const kt_span *parts, size_t n,
                               enum kt_pe_machine m, uint8_t **out, size_t *out_len);

/* load-pe-key: the keys a signed PE image wraps (a `.keylist` section of
 * DER certificates, or shim's `.vendor_cert` with its vendor dbx). */
enum kt_wrap_kind { KT_WRAP_NONE = 0, KT_WRAP_KEYLIST, KT_WRAP_VENDOR_CERT };
/* ".keylist", ".vendor_cert" */
KT_API const char *kt_wrap_kind_name(enum kt_wrap_kind k);

#define KT_PE_LOAD_MAX_KEYS 256

struct kt_pe_result;
struct kt_pe_load_result {
    struct kt_pe_result *verify;     /* the verification (owned; may be NULL if unparsable) */
    enum kt_wrap_kind kind;
    const struct kt_key *added[KT_PE_LOAD_MAX_KEYS]; /* keys added to the target keyring */
    size_t n_added;
    size_t n_blacklisted;            /* vendor dbx entries added to the blacklist */
};

/* Verify buf as a PE image under pol (its purpose: uefi by default, or
 * kexec; allow_sha1, check_time, at_time) and, only if it is trusted, add
 * the keys it wraps to `target` flagged trusted and its vendor dbx to the
 * blacklist, in memory (a context's kt_ctx_commit saves them; on any error
 * discard the context: partial additions may be there).  Returns 0, the
 * verdict (-ENOKEY, -ENODATA, -EKEYREJECTED, -ELIBBAD, -ENOPKG ...) with
 * nothing added, -ELIBBAD (a trusted image that wraps no keys), -EPERM
 * (builtin and blacklist take no such keys), or a keyring's refusal.
 * Free res with kt_pe_load_result_free (also after an error). */
KT_API int kt_pe_load_keys_policy(const uint8_t *buf, size_t len, struct kt_keyrings *rings,
                                  struct kt_keyring *target, const struct kt_policy *pol,
                                  const char *source, struct kt_pe_load_result *res,
                                  struct kt_error *err);
KT_API void kt_pe_load_result_free(struct kt_pe_load_result *res);

#ifdef __cplusplus
}
#endif
#endif
