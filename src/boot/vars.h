/* vars.h - the variable catalogue: every UEFI and shim variable ktrust
 * knows, once: its efivarfs name, vendor GUID, attributes, the
 * boot-services variable shim mirrors into it, the PCR its content is
 * measured into, and who may write it.  Indexed by enum kt_efivar_id
 * (ktrust/efivars.h). */
#ifndef KT_BOOT_VARS_H
#define KT_BOOT_VARS_H

#include <stdbool.h>
#include <stdint.h>

#include "ktrust/efivars.h"

/* EFI_VARIABLE_* attributes (UEFI 2.10 8.2). */
#define KT_EFI_VAR_NON_VOLATILE 0x01u
#define KT_EFI_VAR_BOOTSERVICE_ACCESS 0x02u
#define KT_EFI_VAR_RUNTIME_ACCESS 0x04u
#define KT_EFI_VAR_TIME_BASED_AUTH 0x20u
#define KT_EFI_VAR_APPEND_WRITE 0x40u
/* NV | BS | RT | TIME_BASED_AUTHENTICATED_WRITE_ACCESS */
#define KT_EFI_VAR_AUTH_ATTRS 0x27u

/* The vendor GUIDs a variable lives under. */
enum kt_var_vendor {
    KT_VENDOR_GLOBAL = 0, /* EFI_GLOBAL_VARIABLE 8be4df61-93ca-11d2-aa0d-00e098032b8c */
    KT_VENDOR_IMAGE_DB,   /* EFI_IMAGE_SECURITY_DATABASE d719b2cb-3d3a-4596-a3bc-dad00e67656f */
    KT_VENDOR_SHIM,       /* SHIM_LOCK_GUID 605dab50-e046-4300-abb6-3dd810dd8b23 */
    KT_VENDOR_LOADER,     /* systemd-boot's LOADER_GUID 4a67b082-0a4c-41cf-b6c7-440b29bb8c4f */
    KT_VENDOR__COUNT
};

/* Who may write a variable. */
enum kt_var_writer {
    KT_WRITER_PK = 0,      /* an update signed by the PK (PK itself, KEK) */
    KT_WRITER_KEK,         /* an update signed by a KEK (or the PK): db, dbx, dbt, dbr */
    KT_WRITER_FIRMWARE,    /* firmware only, read-only at run time (SecureBoot, *Default) */
    KT_WRITER_SHIM,        /* shim at boot (a mirror of a boot-services variable, SbatLevel) */
    KT_WRITER_OS,          /* anyone at run time, unauthenticated (BootOrder, SbatPolicy) */
};

struct kt_var_info {
    enum kt_efivar_id id;
    const char *name;       /* in efivarfs: "MokListRT" */
    const char *shim_name;  /* the boot-services variable shim mirrors into it ("MokList"), or NULL */
    enum kt_var_vendor vendor;
    uint32_t attrs;         /* the attributes it is written with */
    int pcr;                /* the PCR its content is measured into (EDK2's Tcg2Dxe: 7 for the
                             * Secure Boot variables; shim's mok_state_variable_data: 14 for the
                             * MOK lists, 7 for SbatLevel), -1 none */
    enum kt_var_writer writer;
};

/* The catalogue entry of id, or NULL. */
const struct kt_var_info *kt_var_info(enum kt_efivar_id id);
/* The entry of an efivarfs name ("db", "MokListRT"), or NULL. */
const struct kt_var_info *kt_var_find(const char *name);
/* A vendor GUID as stored (16 bytes, mixed-endian EFI_GUID) and as text. */
const uint8_t *kt_var_vendor_guid(enum kt_var_vendor v);
const char *kt_var_vendor_str(enum kt_var_vendor v);
/* One firmware measures into PCR 7 as EV_EFI_VARIABLE_DRIVER_CONFIG
 * (EDK2 2022.11 Tcg2Dxe MeasureAllSecureVariables: SecureBoot, PK, KEK, db,
 * dbx, then dbt; not dbr; shim measures SbatLevel itself). */
bool kt_var_firmware_measured(const struct kt_var_info *v);
/* One measured even when it does not exist, with no data (the mVariableType
 * list: SecureBoot, PK, KEK, db, dbx; ReadAndMeasureVariable); dbt is
 * measured only when it exists. */
bool kt_var_measured_absent(const struct kt_var_info *v);
/* An authenticated variable (written only under the PK or a KEK)? */
bool kt_var_authenticated(const struct kt_var_info *v);

#endif
