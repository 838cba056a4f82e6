/* export.h - a keyring's contents as one file: PEM certificates, DER
 * certificates one after another (the kernel's list format), or EFI
 * signature lists (for the blacklist, its hashes too), as `keyring export`
 * writes them. */
#ifndef KT_POLICY_EXPORT_H
#define KT_POLICY_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "keys/keyring.h"

enum kt_export_format {
    KT_EXPORT_PEM = 0,
    KT_EXPORT_DER,
    KT_EXPORT_ESL, /* one EFI_CERT_X509 list; the blacklist adds one list per
                    * hash type (bin: sha256, tbs: x509_sha256/384/512) */
};

/* "pem", "der", "esl" to the format; -EINVAL for another name. */
int kt_export_format_parse(const char *name, enum kt_export_format *out);

/* The keys of r (in order), in format f, into a new buffer *out (*len bytes;
 * NULL when empty; free() it).  *n_hashes (may be NULL) counts the
 * blacklisted hashes written (ESL of the blacklist only).  -ENOMEM. */
int kt_keyring_export(const struct kt_keyrings *k, const struct kt_keyring *r,
                      enum kt_export_format f, uint8_t **out, size_t *len, size_t *n_hashes);

#endif
