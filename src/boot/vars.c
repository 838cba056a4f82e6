/* vars.c - the variable catalogue (after shim's mok_state_variable_data
 * in mok.c and EDK2's Tcg2Dxe list of measured Secure Boot variables). */
#include <stddef.h>
#include <string.h>

#include "boot/vars.h"

#define NV KT_EFI_VAR_NON_VOLATILE
#define BS KT_EFI_VAR_BOOTSERVICE_ACCESS
#define RT KT_EFI_VAR_RUNTIME_ACCESS
#define AUTH KT_EFI_VAR_AUTH_ATTRS

static const struct kt_var_info vars[KT_EFIVAR__COUNT] = {
    {KT_EFIVAR_PK, "PK", NULL, KT_VENDOR_GLOBAL, AUTH, 7, KT_WRITER_PK},
    {KT_EFIVAR_KEK, "KEK", NULL, KT_VENDOR_GLOBAL, AUTH, 7, KT_WRITER_PK},
    {KT_EFIVAR_DB, "db", NULL, KT_VENDOR_IMAGE_DB, AUTH, 7, KT_WRITER_KEK},
    {KT_EFIVAR_DBX, "dbx", NULL, KT_VENDOR_IMAGE_DB, AUTH, 7, KT_WRITER_KEK},
    {KT_EFIVAR_DBT, "dbt", NULL, KT_VENDOR_IMAGE_DB, AUTH, 7, KT_WRITER_KEK},
    /* dbr: not measured (EDK2 2022.11 Tcg2Dxe MeasureAllSecureVariables) */
    {KT_EFIVAR_DBR, "dbr", NULL, KT_VENDOR_IMAGE_DB, AUTH, -1, KT_WRITER_KEK},
    {KT_EFIVAR_PK_DEFAULT, "PKDefault", NULL, KT_VENDOR_GLOBAL, BS | RT, -1, KT_WRITER_FIRMWARE},
    {KT_EFIVAR_KEK_DEFAULT, "KEKDefault", NULL, KT_VENDOR_GLOBAL, BS | RT, -1, KT_WRITER_FIRMWARE},
    {KT_EFIVAR_DB_DEFAULT, "dbDefault", NULL, KT_VENDOR_GLOBAL, BS | RT, -1, KT_WRITER_FIRMWARE},
    {KT_EFIVAR_DBX_DEFAULT, "dbxDefault", NULL, KT_VENDOR_GLOBAL, BS | RT, -1, KT_WRITER_FIRMWARE},
    {KT_EFIVAR_MOKLIST, "MokListRT", "MokList", KT_VENDOR_SHIM, BS | RT, 14, KT_WRITER_SHIM},
    {KT_EFIVAR_MOKLISTX, "MokListXRT", "MokListX", KT_VENDOR_SHIM, BS | RT, 14, KT_WRITER_SHIM},
    {KT_EFIVAR_MOKLIST_TRUSTED, "MokListTrustedRT", "MokListTrusted", KT_VENDOR_SHIM, BS | RT, 14,
     KT_WRITER_SHIM},
    {KT_EFIVAR_MOK_IGNORE_DB, "MokIgnoreDB", "MokDBState", KT_VENDOR_SHIM, BS | RT, -1, KT_WRITER_SHIM},
    {KT_EFIVAR_MOK_SBSTATE, "MokSBStateRT", "MokSBState", KT_VENDOR_SHIM, BS | RT, 14, KT_WRITER_SHIM},
    {KT_EFIVAR_SBAT_LEVEL_RT, "SbatLevelRT", "SbatLevel", KT_VENDOR_SHIM, BS | RT, 7, KT_WRITER_SHIM},
    {KT_EFIVAR_SBAT_LEVEL, "SbatLevel", NULL, KT_VENDOR_SHIM, NV | BS, 7, KT_WRITER_SHIM},
    {KT_EFIVAR_SBAT_POLICY, "SbatPolicy", NULL, KT_VENDOR_SHIM, NV | BS | RT, -1, KT_WRITER_OS},
    {KT_EFIVAR_SECURE_BOOT, "SecureBoot", NULL, KT_VENDOR_GLOBAL, BS | RT, 7, KT_WRITER_FIRMWARE},
    {KT_EFIVAR_SETUP_MODE, "SetupMode", NULL, KT_VENDOR_GLOBAL, BS | RT, -1, KT_WRITER_FIRMWARE},
    {KT_EFIVAR_BOOT_ORDER, "BootOrder", NULL, KT_VENDOR_GLOBAL, NV | BS | RT, -1, KT_WRITER_OS},
    {KT_EFIVAR_BOOT_CURRENT, "BootCurrent", NULL, KT_VENDOR_GLOBAL, BS | RT, -1, KT_WRITER_FIRMWARE},
    /* systemd-boot's (Boot Loader Interface): UTF-16 entry ids or globs */
    {KT_EFIVAR_LOADER_ENTRY_DEFAULT, "LoaderEntryDefault", NULL, KT_VENDOR_LOADER, NV | BS | RT, -1,
     KT_WRITER_OS},
    {KT_EFIVAR_LOADER_ENTRY_ONESHOT, "LoaderEntryOneShot", NULL, KT_VENDOR_LOADER, NV | BS | RT, -1,
     KT_WRITER_OS},
    {KT_EFIVAR_LOADER_ENTRY_LAST, "LoaderEntryLastBooted", NULL, KT_VENDOR_LOADER, NV | BS | RT, -1,
     KT_WRITER_OS},
    {KT_EFIVAR_BOOT_NEXT, "BootNext", NULL, KT_VENDOR_GLOBAL, NV | BS | RT, -1, KT_WRITER_OS},
};

static const struct {
    uint8_t bytes[16];
    const char *text;
} vendors[KT_VENDOR__COUNT] = {
    [KT_VENDOR_GLOBAL] = {{0x61, 0xdf, 0xe4, 0x8b, 0xca, 0x93, 0xd2, 0x11,
                           0xaa, 0x0d, 0x00, 0xe0, 0x98, 0x03, 0x2b, 0x8c},
                          "8be4df61-93ca-11d2-aa0d-00e098032b8c"},
    [KT_VENDOR_IMAGE_DB] = {{0xcb, 0xb2, 0x19, 0xd7, 0x3a, 0x3d, 0x96, 0x45,
                             0xa3, 0xbc, 0xda, 0xd0, 0x0e, 0x67, 0x65, 0x6f},
                            "d719b2cb-3d3a-4596-a3bc-dad00e67656f"},
    [KT_VENDOR_SHIM] = {{0x50, 0xab, 0x5d, 0x60, 0x46, 0xe0, 0x00, 0x43,
                         0xab, 0xb6, 0x3d, 0xd8, 0x10, 0xdd, 0x8b, 0x23},
                        "605dab50-e046-4300-abb6-3dd810dd8b23"},
    [KT_VENDOR_LOADER] = {{0x82, 0xb0, 0x67, 0x4a, 0x4c, 0x0a, 0xcf, 0x41,
                           0xb6, 0xc7, 0x44, 0x0b, 0x29, 0xbb, 0x8c, 0x4f},
                          "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"},
};

const struct kt_var_info *kt_var_info(enum kt_efivar_id id)
{
    return (unsigned)id < KT_EFIVAR__COUNT ? &vars[id] : NULL;
}

const struct kt_var_info *kt_var_find(const char *name)
{
    for (size_t i = 0; name && i < KT_EFIVAR__COUNT; i++)
        if (!strcmp(vars[i].name, name))
            return &vars[i];
    return NULL;
}

const uint8_t *kt_var_vendor_guid(enum kt_var_vendor v)
{
    return (unsigned)v < KT_VENDOR__COUNT ? vendors[v].bytes : NULL;
}

const char *kt_var_vendor_str(enum kt_var_vendor v)
{
    return (unsigned)v < KT_VENDOR__COUNT ? vendors[v].text : NULL;
}

bool kt_var_authenticated(const struct kt_var_info *v)
{
    return v && (v->writer == KT_WRITER_PK || v->writer == KT_WRITER_KEK);
}

bool kt_var_firmware_measured(const struct kt_var_info *v)
{
    return v && v->pcr == 7 && v->writer != KT_WRITER_SHIM;
}

bool kt_var_measured_absent(const struct kt_var_info *v)
{
    return kt_var_firmware_measured(v) && v->id != KT_EFIVAR_DBT;
}
