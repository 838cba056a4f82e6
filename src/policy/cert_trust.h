/* cert_trust.h - is a lone certificate trusted by the keyrings? (for
 * `scan` and listings: certificates and signature lists on disk) */
#ifndef KT_POLICY_CERT_TRUST_H
#define KT_POLICY_CERT_TRUST_H

#include "keys/blacklist.h"
#include "keys/purpose.h"

/* 0 when a trusted key of the purpose's keyrings is this very certificate,
 * or is its issuer (found through the AKID, else the issuer name, as
 * restrict_link_by_signature does: kt_key_ids_of_signer) and its signature
 * on the certificate verifies; *by is that key.
 * -EKEYREJECTED: blacklisted, or the issuer's signature does not verify;
 * -ENOPKG: the signature algorithm is unsupported; -ENOKEY otherwise. */
int kt_cert_validate_trust(const struct kt_keyrings *k, enum kt_purpose p,
                           const struct kt_x509 *c, const struct kt_key **by);

#endif
