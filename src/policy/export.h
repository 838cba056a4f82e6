/* export.h - a keyring's contents as one file: PEM certificates, DER
 * certificates one after another (the kernel's list format), or EFI
 * signature lists (for the blacklist, its hashes too), as `keyring export`
 * writes them. */
#ifndef KT_POLICY_EXPORT_H
#define KT_POLICY_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "keys/keyring.h"

/* enum kt_export_format, kt_export_format_parse, kt_keyring_export:
 * ktrust/advanced.h. */

#endif
