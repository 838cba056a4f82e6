/* ms_cas.h - Microsoft's Secure Boot CAs of 2011 and 2023: the one table
 * (kt_ms_cas, kt_ms_ca_role_name: ktrust/boot.h) and how a certificate,
 * or a dbx entry's TBS hash, is recognised as one of them.  Nothing
 * recognises them by their subject's text. */
#ifndef KT_BOOT_MS_CAS_H
#define KT_BOOT_MS_CAS_H

#include <stdint.h>

#include "ktrust/boot.h"
#include "x509/x509.h"

/* The table entry of a role and year, or NULL. */
const struct kt_ms_ca *kt_ms_ca_get(enum kt_ms_ca_role role, int year);
/* The table entry a certificate is (by SHA-256, else by subject CN and public key), or NULL. */
const struct kt_ms_ca *kt_ms_ca_find(const struct kt_x509 *c);
const struct kt_ms_ca *kt_ms_ca_find_sha256(const uint8_t sha256[32]);
const struct kt_ms_ca *kt_ms_ca_find_tbs(const uint8_t tbs_sha256[32]);

#endif
