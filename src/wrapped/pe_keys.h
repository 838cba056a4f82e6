/* pe_keys.h - keys wrapped in signed PE binaries.
 *
 * A vendor key travels inside a PE image that an authority the platform
 * already trusts has signed: either a `.keylist` section of DER certificates
 * back to back (the format of the kernel's PE-wrapped-key patches, and what
 * `ktrust wrap-key` writes), or shim's `.vendor_cert` section (an authorized
 * certificate or signature list, plus a vendor dbx of revocations).
 *
 * kt_pe_load_keys() verifies the image with kt_pe_verify() and, only when it
 * is trusted, adds the wrapped keys to a keyring flagged trusted
 * (KT_ADD_VOUCHED) and the vendor dbx to the blacklist.  Nothing is added
 * when the image is not trusted.
 */
#ifndef KT_WRAPPED_PE_KEYS_H
#define KT_WRAPPED_PE_KEYS_H

#include "esl/esl.h"
#include "pe/pe.h"
#include "pe/pe_verify.h"
#include "policy/keyrings.h"
#include "policy/load.h"
#include "policy/restrict.h"
#include "policy/verify.h"

/* enum kt_wrap_kind, kt_wrap_kind_name, struct kt_pe_load_result,
 * kt_pe_load_result_free and kt_pe_load_keys_policy: ktrust/advanced.h. */

struct kt_wrapped {
    enum kt_wrap_kind kind;
    kt_span keylist;              /* KT_WRAP_KEYLIST: the section's certificates */
    struct kt_vendor_cert vendor; /* KT_WRAP_VENDOR_CERT */
    size_t section_offset;        /* file offset of the section's raw data */
};

/* Find the wrapped keys of a parsed image: `.keylist` first, else
 * `.vendor_cert`.  Returns 0, -ENOENT (neither section, with a detail), or
 * -EBADMSG (a malformed .vendor_cert). */
int kt_pe_find_wrapped(const struct kt_pe *pe, struct kt_wrapped *w, struct kt_error *err);

/* Verify buf and, if trusted, add the keys it wraps to `target` (trusted) and
 * its vendor dbx to the blacklist, all in memory (the caller persists them in
 * one store transaction, or discards everything on failure).
 * Returns 0, or the verification verdict (-ENOKEY, -ENODATA, -EKEYREJECTED,
 * -ELIBBAD, -ENOPKG ...) with nothing added, or -ELIBBAD (a trusted image
 * that wraps no keys: neither section), or a keyring refusal (-EKEYREJECTED for a blacklisted key).
 * On any error the keyrings may hold partial additions: discard them.
 * res->verify must be freed with kt_pe_load_result_free.  Public face:
 * kt_pe_load_keys_policy (ktrust/advanced.h). */
int kt_pe_load_keys(const uint8_t *buf, size_t len, struct kt_keyrings *rings,
                    struct kt_keyring *target, const struct kt_pe_verify_opts *opts,
                    const char *source, struct kt_pe_load_result *res, struct kt_error *err);

/* The second half of kt_pe_load_keys, for an image trusted another way
 * (firmware ran it by its image hash in db): add its wrapped keys to
 * target and its vendor dbx to the blacklist, counted in res (whose
 * verify it leaves alone).  Errors as kt_pe_load_keys'. */
int kt_pe_add_wrapped(const struct kt_pe *pe, struct kt_keyrings *rings,
                      struct kt_keyring *target, const char *source,
                      struct kt_pe_load_result *res, struct kt_error *err);

#endif
