#include "keyring/cert_trust.h"

#include <string.h>

int kt_cert_validate_trust(const struct kt_keyrings *k, enum kt_purpose p,
                           const struct kt_x509 *c, const struct kt_key **by)
{
    *by = NULL;
    if (kt_blacklist_has_cert(k, c))
        return -EKEYREJECTED;
    const struct kt_key *self = kt_trust_find_by_issuer_serial(k, p, c->issuer_raw, c->serial);
    if (self && !memcmp(self->cert->sha256, c->sha256, 32)) {
        *by = self;
        return 0;
    }
    const struct kt_key *issuer = NULL;
    if (c->akid_keyid.len)
        issuer = kt_trust_find_by_skid(k, p, c->akid_keyid);
    if (!issuer && c->akid_serial.len)
        issuer = kt_trust_find_by_issuer_serial(k, p, c->akid_issuer, c->akid_serial);
    if (!issuer || !issuer->cert->pub)
        return -ENOKEY;
    int rc = kt_x509_check_signature(c, issuer->cert->pub);
    if (rc == 0)
        *by = issuer;
    return rc;
}
