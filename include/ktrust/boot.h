/* ktrust/boot.h - boot facts written once (src/boot/): Microsoft's Secure
 * Boot CAs. */
#ifndef KTRUST_BOOT_H
#define KTRUST_BOOT_H

#include <stddef.h>

#include "ktrust/api.h"

/* Microsoft's Secure Boot CAs, 2011 and 2023: the one table. */
enum kt_ms_ca_role { KT_MS_CA_KEK = 0, KT_MS_CA_3P, KT_MS_CA_WINDOWS, KT_MS_CA_OROM };

struct kt_ms_ca {
    const char *name;        /* "Microsoft Corporation UEFI CA 2011" */
    enum kt_ms_ca_role role;
    int year;                /* 2011 or 2023 */
    const char *sha256;      /* of the DER certificate, hex */
    const char *tbs_sha256;  /* of its TBSCertificate (a dbx X509_SHA256 entry), hex */
    const char *spki_sha256; /* of its SubjectPublicKeyInfo, hex: the same name and key
                              * in another certificate is the same CA */
    const char *not_after;   /* "2026-06-27" */
    const char *update;      /* the signed update that adds it (db or KEK), or NULL */
};

/* The table (*n entries). */
KT_API const struct kt_ms_ca *kt_ms_cas(size_t *n);
/* "kek", "uefi_3p", "windows", "option_rom" */
KT_API const char *kt_ms_ca_role_name(enum kt_ms_ca_role r);

#endif
