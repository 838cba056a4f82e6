/* names.c - bank algorithm and event type names. */
#include <string.h>

#include "boot/vars.h"
#include "eventlog/eventlog.h"

static const struct {
    uint16_t alg;
    const char *name;
    enum kt_hash hash;
} algs[] = {
    {KT_TPM_ALG_SHA1, "sha1", KT_HASH_SHA1},       {KT_TPM_ALG_SHA256, "sha256", KT_HASH_SHA256},
    {KT_TPM_ALG_SHA384, "sha384", KT_HASH_SHA384}, {KT_TPM_ALG_SHA512, "sha512", KT_HASH_SHA512},
    {KT_TPM_ALG_SM3_256, "sm3_256", KT_HASH_SM3},
};

const char *kt_evlog_alg_name(uint16_t alg)
{
    for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
        if (algs[i].alg == alg)
            return algs[i].name;
    return NULL;
}

uint16_t kt_evlog_alg_from_name(const char *name)
{
    for (size_t i = 0; name && i < sizeof(algs) / sizeof(algs[0]); i++)
        if (!strcmp(algs[i].name, name))
            return algs[i].alg;
    return 0;
}

enum kt_hash kt_evlog_hash(uint16_t alg)
{
    for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
        if (algs[i].alg == alg)
            return algs[i].hash;
    return KT_HASH_NONE;
}

static const struct {
    uint32_t type;
    const char *name;
} types[] = {
    {KT_EV_PREBOOT_CERT, "EV_PREBOOT_CERT"},
    {KT_EV_POST_CODE, "EV_POST_CODE"},
    {0x2, "EV_UNUSED"},
    {KT_EV_NO_ACTION, "EV_NO_ACTION"},
    {KT_EV_SEPARATOR, "EV_SEPARATOR"},
    {KT_EV_ACTION, "EV_ACTION"},
    {KT_EV_EVENT_TAG, "EV_EVENT_TAG"},
    {KT_EV_S_CRTM_CONTENTS, "EV_S_CRTM_CONTENTS"},
    {KT_EV_S_CRTM_VERSION, "EV_S_CRTM_VERSION"},
    {KT_EV_CPU_MICROCODE, "EV_CPU_MICROCODE"},
    {KT_EV_PLATFORM_CONFIG_FLAGS, "EV_PLATFORM_CONFIG_FLAGS"},
    {KT_EV_TABLE_OF_DEVICES, "EV_TABLE_OF_DEVICES"},
    {KT_EV_COMPACT_HASH, "EV_COMPACT_HASH"},
    {KT_EV_IPL, "EV_IPL"},
    {KT_EV_IPL_PARTITION_DATA, "EV_IPL_PARTITION_DATA"},
    {KT_EV_NONHOST_CODE, "EV_NONHOST_CODE"},
    {KT_EV_NONHOST_CONFIG, "EV_NONHOST_CONFIG"},
    {KT_EV_NONHOST_INFO, "EV_NONHOST_INFO"},
    {KT_EV_OMIT_BOOT_DEVICE_EVENTS, "EV_OMIT_BOOT_DEVICE_EVENTS"},
    {KT_EV_EFI_EVENT_BASE, "EV_EFI_EVENT_BASE"},
    {KT_EV_EFI_VARIABLE_DRIVER_CONFIG, "EV_EFI_VARIABLE_DRIVER_CONFIG"},
    {KT_EV_EFI_VARIABLE_BOOT, "EV_EFI_VARIABLE_BOOT"},
    {KT_EV_EFI_BOOT_SERVICES_APPLICATION, "EV_EFI_BOOT_SERVICES_APPLICATION"},
    {KT_EV_EFI_BOOT_SERVICES_DRIVER, "EV_EFI_BOOT_SERVICES_DRIVER"},
    {KT_EV_EFI_RUNTIME_SERVICES_DRIVER, "EV_EFI_RUNTIME_SERVICES_DRIVER"},
    {KT_EV_EFI_GPT_EVENT, "EV_EFI_GPT_EVENT"},
    {KT_EV_EFI_ACTION, "EV_EFI_ACTION"},
    {KT_EV_EFI_PLATFORM_FIRMWARE_BLOB, "EV_EFI_PLATFORM_FIRMWARE_BLOB"},
    {KT_EV_EFI_HANDOFF_TABLES, "EV_EFI_HANDOFF_TABLES"},
    {KT_EV_EFI_PLATFORM_FIRMWARE_BLOB2, "EV_EFI_PLATFORM_FIRMWARE_BLOB2"},
    {KT_EV_EFI_HANDOFF_TABLES2, "EV_EFI_HANDOFF_TABLES2"},
    {KT_EV_EFI_VARIABLE_BOOT2, "EV_EFI_VARIABLE_BOOT2"},
    {KT_EV_EFI_HCRTM_EVENT, "EV_EFI_HCRTM_EVENT"},
    {KT_EV_EFI_VARIABLE_AUTHORITY, "EV_EFI_VARIABLE_AUTHORITY"},
    {KT_EV_EFI_SPDM_FIRMWARE_BLOB, "EV_EFI_SPDM_FIRMWARE_BLOB"},
    {KT_EV_EFI_SPDM_FIRMWARE_CONFIG, "EV_EFI_SPDM_FIRMWARE_CONFIG"},
};

const char *kt_evlog_type_name(uint32_t type)
{
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (types[i].type == type)
            return types[i].name;
    return NULL;
}

int kt_evlog_sb_var(const char *name)
{
    const struct kt_var_info *v = kt_var_find(name); /* the catalogue's */
    return kt_var_firmware_measured(v) ? (int)v->id : -1;
}

bool kt_evlog_is_image(uint32_t type)
{
    return type == KT_EV_EFI_BOOT_SERVICES_APPLICATION || type == KT_EV_EFI_BOOT_SERVICES_DRIVER ||
           type == KT_EV_EFI_RUNTIME_SERVICES_DRIVER;
}
