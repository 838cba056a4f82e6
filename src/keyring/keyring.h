/* keyring.h - compatibility header: what was src/keyring/ is now two
 * layers, the low src/keys/ (key model, keyrings and their index, the one
 * lookup by ids, the blacklist, search sets) and the high src/policy/
 * (default keyrings and purposes, restrictions, loaders, verification
 * under a purpose).  New code includes the headers it needs from those. */
#ifndef KT_KEYRING_KEYRING_H
#define KT_KEYRING_KEYRING_H

#include "keys/blacklist.h"
#include "keys/key.h"
#include "keys/keyring.h"
#include "keys/purpose.h"
#include "keys/trust.h"
#include "policy/keyrings.h"
#include "policy/load.h"
#include "policy/restrict.h"
#include "policy/verify.h"

#endif
