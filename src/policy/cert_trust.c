#include "policy/cert_trust.h"
#include "policy/keyrings.h"

#include <string.h>

int kt_cert_validate_trust(const struct kt_keyrings *k, enum kt_verify_purpose p,
                           const struct kt_x509 *c, const struct kt_key **by)
{
    const struct kt_key *unused;
    if (!by)
        by = &unused;
    *by = NULL;
    if (kt_blacklist_has_cert(k, c))
        return -EKEYREJECTED;
    struct kt_key_ids self_ids = kt_key_ids_of_cert(c);
    const struct kt_key *self = kt_trust_find(k, p, &self_ids);
    if (self && !memcmp(self->cert->sha256, c->sha256, 32)) {
        *by = self;
        return 0;
    }
    struct kt_key_ids ids = kt_key_ids_of_signer(c, true);
    const struct kt_key *issuer = kt_trust_find(k, p, &ids);
    if (!issuer || !issuer->cert->pub)
        return -ENOKEY;
    int rc = kt_x509_check_signature(c, issuer->cert->pub);
    if (rc == 0)
        *by = issuer;
    return rc;
}
