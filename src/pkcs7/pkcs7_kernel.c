/* pkcs7_kernel.c - which Linux release takes which algorithm in a PKCS#7
 * message (module signatures, kexec, the keyrings' restrictions):
 *
 * - SHA-3 digests (sha3-256/384/512): pkcs7_sig_note_digest_algo() knows
 *   OID_sha3_* from Linux 6.7 (with rsa-pkcs1pad's and the x509/pkcs7
 *   parsers' SHA-3 entries, and MODULE_SIG_SHA3_*); Linux 6.1's answers
 *   "Unsupported digest algo" (-ENOPKG), so its module_sig_check() calls
 *   the module "module with unsupported crypto" and refuses it under
 *   lockdown or module.sig_enforce.
 * - ML-DSA-44/65/87 (FIPS 204, pure): pkcs7_sig_note_pkey_algo() and
 *   x509_note_pkey_algo() know OID_id_ml_dsa_* from Linux 7.0
 *   (pkey_algo "mldsa44"/"mldsa65"/"mldsa87", algo_does_hash); the same
 *   release waives the module rule against authenticated attributes for
 *   ML-DSA signers (CONFIG_PKCS7_WAIVE_AUTHATTRS_REJECTION_FOR_MLDSA), as
 *   sign-file cannot leave them out of an ML-DSA CMS with OpenSSL 3.5/3.6.
 */
#include "pkcs7/pkcs7.h"

static unsigned hash_since(enum kt_hash h)
{
    switch (h) {
    case KT_HASH_SHA3_256:
    case KT_HASH_SHA3_384:
    case KT_HASH_SHA3_512: return KT_LINUX(6, 7);
    default: return 0;
    }
}

unsigned kt_pkcs7_linux_since(const struct kt_pkcs7_signer *si)
{
    unsigned v = hash_since(si->digest_alg);
    if (si->sig_alg.enc == KT_SIG_MLDSA && v < KT_LINUX(7, 0))
        v = KT_LINUX(7, 0);
    return v;
}

int kt_pkcs7_sig_allowed(const struct kt_pkcs7 *msg, const struct kt_pkcs7_signer *si,
                         struct kt_error *err)
{
    const char *pq = kt_mldsa_title(si->sig_alg.pkey);
    if (pq && !kt_pkey_algo_available(si->sig_alg.pkey))
        return kt_fail(err, -ENOPKG, si->offset, "signerInfo %d: %s needs OpenSSL 3.5 or later",
                       si->index, pq);
    unsigned since = kt_pkcs7_linux_since(si), have = msg->policy.linux_version;
    if (!have || since <= have)
        return 0;
    return kt_fail(err, -ENOPKG, si->offset,
                   "signerInfo %d: %s needs Linux %u.%u or later; the kernel is %u.%u (%s)",
                   si->index, pq ? pq : kt_hash_name(si->digest_alg), since >> 8, since & 255,
                   have >> 8, have & 255,
                   pq ? "pkcs7_sig_note_pkey_algo" : "pkcs7_sig_note_digest_algo");
}

bool kt_pkcs7_attrs_waived(const struct kt_pkcs7 *msg)
{
    if (msg->policy.linux_version && msg->policy.linux_version < KT_LINUX(7, 0))
        return false;
    for (size_t i = 0; i < msg->n_signers; i++)
        if (msg->signers[i].has_auth_attrs && msg->signers[i].sig_alg.enc != KT_SIG_MLDSA)
            return false;
    return true;
}
