/* fuzz_jsonr.c - the JSON reader used for dbx_info documents. */
#include <stdint.h>
#include <stdlib.h>

#include "util/jsonr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kt_json *j = NULL;
    struct kt_error e = {0};
    int rc = kt_json_parse((const char *)data, size, &j, &e);
    if (rc < 0 && (!e.what[0] || (e.offset != KT_NO_OFFSET && e.offset > size)))
        abort();
    kt_json_free(j);
    return 0;
}
