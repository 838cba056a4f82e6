/* fuzz_jsonr.c - the JSON reader used for dbx_info documents, and the
 * walks over a dbx_info document (descriptions, architectures). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "revoke/dbx_info.h"
#include "util/jsonr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kt_json *j = NULL;
    struct kt_error e = {0};
    int rc = kt_json_parse((const char *)data, size, &j, &e);
    if (rc < 0 && (!e.what[0] || (e.offset != KT_NO_OFFSET && e.offset > size)))
        abort();
    if (rc == 0) {
        static const uint8_t zero[32];
        const struct kt_json *names = NULL;
        uint32_t bits = kt_dbx_info_hash_arches(j, KT_HASH_SHA256, zero, sizeof(zero), &names);
        if (bits && !names)
            abort(); /* a listed hash without the object that names its bits */
        struct kt_chain_entry r;
        memset(&r, 0, sizeof(r));
        r.by = KT_REVOKE_IMAGE_HASH;
        strcpy(r.alg, "sha256");
        r.value_len = 32;
        free(kt_dbx_info_describe(j, &r));
    }
    kt_json_free(j);
    return 0;
}
