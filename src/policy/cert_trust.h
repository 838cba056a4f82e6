/* cert_trust.h - is a lone certificate trusted by the keyrings? (for
 * `scan` and listings: certificates and signature lists on disk) */
#ifndef KT_POLICY_CERT_TRUST_H
#define KT_POLICY_CERT_TRUST_H

#include "keys/blacklist.h"
#include "keys/purpose.h"

/* Is a lone certificate trusted for purpose p: a trusted key of p's
 * keyrings is this certificate or its issuer (and its signature verifies)?
 * The issuer is found through the AKID, else the issuer name, as
 * restrict_link_by_signature does (kt_key_ids_of_signer).  0 (*by, may be
 * NULL, is that key), -EKEYREJECTED (blacklisted, or a bad signature),
 * -ENOPKG (unsupported algorithm), -ENOKEY.  The public way: kt_verify_buf
 * of the certificate (ktrust/verify.h). */
int kt_cert_validate_trust(const struct kt_keyrings *k, enum kt_verify_purpose p,
                           const struct kt_x509 *c, const struct kt_key **by);

#endif
