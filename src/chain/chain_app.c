/* chain_app.c - firmware's verdict on a boot application that is not shim
 * (a Windows boot manager, a UEFI shell): db vouches for one of its
 * signatures' chains, dbx revokes none (chain_fw.c's walk); no vendor
 * certificate is asked of it. */
#include <string.h>

#include "chain/chain.h"
#include "util/file.h"
#include "util/fmt.h"

int kt_chain_firmware_app_buf(const struct kt_efivars *vars, const uint8_t *buf, size_t len,
                              const char *name, struct kt_chain_link *l)
{
    memset(l, 0, sizeof(*l));
    struct kt_error e = KT_ERROR_INIT;
    struct kt_chain *ch = NULL;
    int rc = kt_chain_new(&ch);
    if (rc == 0 && (rc = kt_chain_add_firmware(ch, vars)) == 0)
        rc = kt_chain_judge_firmware(ch, buf, len, name, l, &e);
    kt_chain_free(ch);
    if (rc < 0) {
        l->verdict = rc;
        kt_fmt(l->reason, sizeof(l->reason), "%s", e.what);
    }
    return l->verdict;
}

int kt_chain_firmware_app(const struct kt_efivars *vars, const char *path, struct kt_chain_link *l)
{
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(path, &f, &e);
    if (rc < 0) {
        memset(l, 0, sizeof(*l));
        l->verdict = rc;
        kt_fmt(l->reason, sizeof(l->reason), "%s", e.what);
        return rc;
    }
    rc = kt_chain_firmware_app_buf(vars, f.data, f.len, path, l);
    kt_file_close(&f);
    return rc;
}
