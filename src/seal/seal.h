/* seal.h - the seal layer's own declarations (the public ones are in
 * ktrust/seal.h): the TPM side of a token (tpm.c, through libtss2-mu) for
 * token.c and policy.c. */
#ifndef KT_SEAL_SEAL_H
#define KT_SEAL_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libcryptsetup.h>
#include <tss2/tss2_mu.h>

#include "crypto/crypto.h"
#include "ktrust/seal.h"
#include "ktrust/uki.h"
#include "util/jsonr.h"

/* The functions of libcryptsetup and libtss2-mu ktrust calls, loaded on
 * first use (libs.c); NULL when the library is not installed. */
struct kt_seal_cs {
    __typeof__(crypt_init) *crypt_init;
    __typeof__(crypt_load) *crypt_load;
    __typeof__(crypt_free) *crypt_free;
    __typeof__(crypt_token_json_get) *crypt_token_json_get;
    __typeof__(crypt_token_max) *crypt_token_max;
    __typeof__(crypt_set_log_callback) *crypt_set_log_callback;
};
struct kt_seal_mu {
    __typeof__(Tss2_MU_TPM2B_PUBLIC_Unmarshal) *Tss2_MU_TPM2B_PUBLIC_Unmarshal;
    __typeof__(Tss2_MU_TPML_PCR_SELECTION_Marshal) *Tss2_MU_TPML_PCR_SELECTION_Marshal;
    __typeof__(Tss2_MU_TPM2_CC_Marshal) *Tss2_MU_TPM2_CC_Marshal;
    __typeof__(Tss2_MU_TPMT_PUBLIC_Marshal) *Tss2_MU_TPMT_PUBLIC_Marshal;
};
const struct kt_seal_cs *kt_seal_cryptsetup(void);
const struct kt_seal_mu *kt_seal_tss2(void);

/* The nameAlg and authPolicy of a marshalled TPM2B_PUBLIC (clevis'
 * jwk_pub).  Returns 0, -EBADMSG (err: field), -ENOPKG (no libtss2-mu). */
int kt_seal_public_policy(const uint8_t *buf, size_t len, uint16_t *name_alg, uint8_t *policy,
                          size_t *policy_len, struct kt_error *err);

/* The TPML_PCR_SELECTION of one bank and a PCR mask, marshalled as
 * TPM2_PolicyPCR hashes it (sizeofSelect 3, as systemd and tpm2-tools
 * send it) into out (room for 16 bytes).  Returns its length, -EINVAL, or
 * -ENOPKG (no libtss2-mu). */
int kt_seal_pcr_selection(uint16_t bank, uint32_t mask, uint8_t *out, size_t cap);

/* A command code (TPM_CC_*) marshalled big-endian into out[4]: 0 or
 * -ENOPKG (no libtss2-mu). */
int kt_seal_cc(uint32_t cc, uint8_t out[4]);

/* kt_seal_tokens_read, with each token's JSON text into *json (NULL: not
 * kept; else malloc'd strings, kt_seal_json_free). */
int kt_seal_tokens_read_json(const char *path, struct kt_seal_token **out, char ***json,
                             size_t *n, struct kt_error *err);
void kt_seal_json_free(char **json, size_t n);

/* policy.c: the bank's index in p (-1: none), and why t's digest cannot
 * be computed from p (KT_SEAL_WHY_NONE: it can). */
int kt_seal_bank_index(const struct kt_evlog_pcrs *p, uint16_t alg);
enum kt_seal_why kt_seal_missing(const struct kt_seal_token *t, const struct kt_evlog_pcrs *p);

/* A signed policy's key: tpm2_pubkey's PEM into t (spki, pkfp).  0, or
 * -EBADMSG when it is not an RSA public key (systemd 252 loads no other). */
int kt_seal_key_parse(const uint8_t *pem, size_t len, struct kt_seal_token *t);

/* The policy digest of PolicyAuthorize by t's key (policyRef empty), from
 * zeros, into d[32]: the start of a signed token's digest.  0, -EBADMSG
 * (the key), -ENOPKG (no libtss2-mu). */
int kt_seal_authorize_digest(const struct kt_seal_token *t, uint8_t d[32]);

/* A signed token's PCR part (kt_seal_check_uki's (b)) against PCR values p
 * (PCR 11: uki's at enter-initrd), r's sig, pcr11, approved filled.
 * Returns 1 (it unseals), 0 (not), -ENODATA (a signed PCR not in p),
 * -ERANGE (a signed PCR 10 or 15-23: not predicted at enter-initrd), or
 * -ENOPKG/-ENOMEM. */
int kt_seal_signed_part(const struct kt_seal_token *t, const struct kt_seal_uki *uki,
                        const struct kt_evlog_pcrs *p, struct kt_seal_check *r);

/* systemd 252's find_signature over a .pcrsig bank array arr: the first
 * entry with pcrs == mask, pkfp and pol (n bytes), its sig (base64)
 * verified with pk over hash h of pol (PKCS#1 v1.5 for RSA).  An entry
 * for mask whose pkfp, pol or sig systemd cannot decode on the way is
 * KT_SEAL_SIG_MALFORMED (its search fails there). */
enum kt_seal_sig kt_seal_pcrsig_find(const struct kt_json *arr, uint32_t mask,
                                     const uint8_t pkfp[32], const uint8_t *pol, size_t n,
                                     const struct kt_pubkey *pk, enum kt_hash h);
/* The same for token t over u's .pcrsig, as the unlock checks it (t's
 * bank, t's key, SHA-256). */
enum kt_seal_sig kt_seal_pcrsig_token(const struct kt_uki *u, const struct kt_seal_token *t,
                                      const uint8_t pol[32]);

#define KT_TPM_CC_POLICY_PCR 0x0000017fu
#define KT_TPM_CC_POLICY_AUTHORIZE 0x0000016au
#define KT_TPM_CC_POLICY_AUTH_VALUE 0x0000016bu

#endif
