/* ktrust/boot.h - boot facts written once (src/boot/): where a system's
 * parts live, Microsoft's Secure Boot CAs. */
#ifndef KTRUST_BOOT_H
#define KTRUST_BOOT_H

#include <stddef.h>

#include "ktrust/api.h"

/* ---- where a system's parts live (src/boot/locate.c) ------------------- */

/* The live paths, as text for help strings; kt_sys_path answers the same. */
#define KT_SYS_EFIVARS_PATH "/sys/firmware/efi/efivars"
#define KT_SYS_EVENTLOG_PATH "/sys/kernel/security/tpm0/binary_bios_measurements"
#define KT_SYS_TPM_PCRS_PATH "/sys/class/tpm/tpm0"
#define KT_SYS_IMA_LIST_PATH "/sys/kernel/security/ima/binary_runtime_measurements"

/* The parts of a Linux system ktrust reads, each at one path as the system
 * itself sees it (under a root: that root, then the path). */
enum kt_sys_part {
    KT_SYS_EFIVARS = 0, /* the efivarfs directory: /sys/firmware/efi/efivars */
    KT_SYS_EVENTLOG,    /* the TCG event log: /sys/kernel/security/tpm0/binary_bios_measurements */
    KT_SYS_TPM_PCRS,    /* the TPM's PCR files (pcr-sha256/N ...): /sys/class/tpm/tpm0 */
    KT_SYS_BOOT,        /* the kernel images (vmlinuz-RELEASE): /boot */
    KT_SYS_MODULES,     /* the modules (RELEASE/...): /lib/modules */
    KT_SYS_ESP,         /* the ESP's usual mount point (the first candidate): /boot/efi */
    KT_SYS_IMA_LIST,    /* the IMA measurement list: /sys/kernel/security/ima/binary_runtime_measurements */
    KT_SYS__PARTS
};

/* The part's path on the live system ("/sys/firmware/efi/efivars"), or NULL. */
KT_API const char *kt_sys_path(enum kt_sys_part part);
/* ROOT then the part's path into out (ROOT NULL, "" or "/": the live
 * path).  Text only (nothing is looked up): 0, -EINVAL, -ENAMETOOLONG. */
KT_API int kt_sys_path_under(const char *root, enum kt_sys_part part, char *out, size_t cap);
/* Where an ESP is mounted, in the order to try: "/boot/efi", "/efi",
 * "/boot" (*n entries); the first holding an EFI folder is the ESP. */
KT_API const char *const *kt_sys_esp_candidates(size_t *n);
/* The kernel's config file under root (NULL or "/": the live system):
 * ROOT/boot/config-RELEASE of the newest release (strverscmp of the names,
 * as audit picks the newest vmlinuz-*), a regular file.  0, -ENOENT (none),
 * -ENAMETOOLONG. */
KT_API int kt_sys_kernel_config_under(const char *root, char *out, size_t cap);

/* ---- Microsoft's CAs (src/boot/ms_cas.c) ------------------------------- */

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
/* "expired on" when the day `now` (seconds since the epoch, UTC) is past
 * ca->not_after, else "expires on": the tense the check time calls for. */
KT_API const char *kt_ms_ca_expiry_verb(const struct kt_ms_ca *ca, long long now);
/* One of the table by role and year (2011, 2023), or NULL. */
KT_API const struct kt_ms_ca *kt_ms_ca_of(enum kt_ms_ca_role role, int year);
/* "kek", "uefi_3p", "windows", "option_rom" */
KT_API const char *kt_ms_ca_role_name(enum kt_ms_ca_role r);

#endif
