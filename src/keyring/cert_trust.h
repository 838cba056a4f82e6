/* cert_trust.h - compatibility header: now policy/cert_trust.h. */
#ifndef KT_KEYRING_CERT_TRUST_H
#define KT_KEYRING_CERT_TRUST_H

#include "policy/cert_trust.h"

#endif
