/* verify.h - verification under a purpose: the purpose's keyrings resolved
 * into a search set (kt_trust_set_for), then the format's check.  The
 * kernel's verify_pkcs7_signature / verify_pefile_signature with a
 * VERIFY_USE_* keyring choice.  The public form of all of them is
 * kt_verify_buf (ktrust/verify.h). */
#ifndef KT_POLICY_VERIFY_H
#define KT_POLICY_VERIFY_H

#include "modsig/modsig.h"
#include "pe/pe_verify.h"
#include "pkcs7/pkcs7.h"
#include "pkcs7/pkcs7_check.h"
#include "policy/distro.h"
#include "policy/keyrings.h"

/* kt_pkcs7_validate_trust_set over purpose's keyrings (rings may be NULL:
 * nothing trusted). */
int kt_pkcs7_validate_trust(struct kt_pkcs7 *msg, const struct kt_keyrings *rings,
                            enum kt_verify_purpose purpose, struct kt_error *err);
/* kt_pkcs7_check_set over purpose's keyrings. */
int kt_pkcs7_check(const uint8_t *sig, size_t sig_len, const uint8_t *data, size_t data_len,
                   const struct kt_keyrings *rings, enum kt_verify_purpose purpose, bool check_purpose,
                   const struct kt_pkcs7_policy *policy, struct kt_pkcs7_check *out,
                   struct kt_error *err);
/* kt_pe_verify_set over opts->purpose's keyrings (UEFI when opts is NULL). */
int kt_pe_verify(const uint8_t *buf, size_t len, const struct kt_keyrings *rings,
                 const struct kt_pe_verify_opts *opts, struct kt_pe_result **out,
                 struct kt_error *err);
/* kt_modsig_verify_set over the module purpose's keyrings (mainline's). */
int kt_modsig_verify(const uint8_t *buf, size_t len, const struct kt_keyrings *rings,
                     struct kt_modsig_result *res, struct kt_error *err);
/* The same as the kernel build judges it (policy/distro.h: a Debian kernel
 * searches platform when the others find no key; res->via then names why);
 * build NULL: mainline. */
int kt_modsig_verify_build(const uint8_t *buf, size_t len, const struct kt_keyrings *rings,
                           const struct kt_kimage_build *build, struct kt_modsig_result *res,
                           struct kt_error *err);

#endif
