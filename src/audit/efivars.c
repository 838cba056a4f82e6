/* efivars.c - the efivars reading `chain --efivars` and `audit` share. */
#include <stdio.h>

#include "audit/audit.h"
#include "audit/efivars.h"
#include "util/file.h"

const struct kt_efivar_feed kt_efivar_feeds[KT_EFIVAR_FEEDS] = {
    {"db", kt_chain_add_db},
    {"dbx", kt_chain_add_dbx},
    {"MokListRT", kt_chain_add_mok},
    {"MokListXRT", kt_chain_add_dbx}, /* shim's MOK deny list: a blacklist */
};

int kt_efivar_byte(const char *dir, const char *name)
{
    char buf[4200];
    const char *p = kt_audit_find_var(dir, name, buf, sizeof(buf));
    int v = -1;
    if (!p)
        return -1;
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    if (kt_file_open(p, &f, &e) == 0 && f.len >= 5)
        v = f.data[4] != 0;
    kt_file_close(&f);
    return v;
}

int kt_efivar_sbat_level(const char *dir, struct kt_sbat_level *out, char *path, size_t cap,
                         struct kt_error *err)
{
    const char *p = kt_audit_find_var(dir, "SbatLevelRT", path, cap);
    if (!p)
        p = kt_audit_find_var(dir, "SbatLevel", path, cap);
    if (!p)
        return 0;
    struct kt_file f = {0};
    int rc = kt_file_open(p, &f, err);
    if (rc == 0)
        rc = kt_sbat_level_parse(f.data, f.len, out, err);
    kt_file_close(&f);
    if (rc < 0)
        return rc;
    snprintf(out->source, sizeof(out->source), "variable");
    return 1;
}
