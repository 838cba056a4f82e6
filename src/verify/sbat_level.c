/* sbat_level.c - a policy's SBAT level, as a handle (ktrust/verify.h). */
#include <errno.h>
#include <stdlib.h>

#include "verify/verify_int.h"

int kt_sbat_level_open(const char *spec, struct kt_sbat_level **out, struct kt_error *err)
{
    *out = NULL;
    struct kt_sbat_level *l = calloc(1, sizeof(*l));
    if (!l)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    int rc = kt_sbat_level_spec(spec, l, err);
    if (rc < 0) {
        free(l);
        return rc;
    }
    *out = l;
    return 0;
}

void kt_sbat_level_close(struct kt_sbat_level *level)
{
    if (!level)
        return;
    kt_sbat_level_free(level);
    free(level);
}
