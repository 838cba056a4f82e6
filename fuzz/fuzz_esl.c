/* fuzz_esl.c - EFI signature lists: parse, and rebuild what parsed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "esl/esl.h"

static int touch(void *ctx, const struct kt_esl_entry *e)
{
    size_t *sum = ctx;
    for (size_t i = 0; i < e->data.len; i++)
        *sum += e->data.p[i];
    *sum += e->owner[0] + e->owner[15] + e->type_guid[0];
    if (e->type == KT_ESL_X509 && *sum % 7 == 0) {
        uint8_t *out;
        size_t len;
        if (kt_esl_build_x509(&e->data, 1, e->owner, &out, &len) == 0) {
            size_t n = 0;
            if (kt_esl_foreach(out, len, NULL, NULL, NULL) != 0)
                abort(); /* what we build must parse */
            (void)n;
            free(out);
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t sum = 0;
    struct kt_error e = {0};
    (void)kt_esl_looks_like(data, size);
    int rc = kt_esl_foreach(data, size, touch, &sum, &e);
    if (rc < 0 && (e.what[0] == 0 || e.offset > size))
        abort(); /* every failure names a field and an offset inside the input */
    return 0;
}
