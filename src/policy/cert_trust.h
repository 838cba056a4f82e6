/* cert_trust.h - is a lone certificate trusted by the keyrings? (for
 * `scan` and listings: certificates and signature lists on disk) */
#ifndef KT_POLICY_CERT_TRUST_H
#define KT_POLICY_CERT_TRUST_H

#include "keys/blacklist.h"
#include "keys/purpose.h"

/* kt_cert_validate_trust: ktrust/keyring.h.  Its issuer is found through
 * the AKID, else the issuer name, as restrict_link_by_signature does
 * (kt_key_ids_of_signer). */
#include "ktrust/keyring.h"

#endif
