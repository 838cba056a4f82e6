/* sbat_payload.c - `--sbat-level SPEC` as the SbatLevel payload shim would
 * start from (eventlog --predict, unseal-check). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ktrust/advanced.h"
#include "ktrust/sbat.h"
#include "sbat_payload.h"

int cli_sbat_payload(const char *spec, uint8_t **buf, size_t *len)
{
    const char *b = kt_sbat_builtin(spec);
    if (b) {
        *len = strlen(b);
        *buf = (uint8_t *)strdup(b);
        return *buf ? 0 : EXIT_INTERNAL;
    }
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(spec, &f, &e);
    if (rc < 0) {
        cli_error(spec, &e);
        return cli_exit_code(rc);
    }
    size_t skip = f.len >= 4 && memcmp(f.data, "sbat", 4) ? 4 : 0; /* efivarfs attributes */
    *len = f.len - skip;
    *buf = malloc(*len ? *len : 1);
    if (*buf)
        memcpy(*buf, f.data + skip, *len);
    kt_file_close(&f);
    return *buf ? 0 : EXIT_INTERNAL;
}

