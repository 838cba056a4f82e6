/* fuzz_authvar.c - EFI_VARIABLE_AUTHENTICATION_2 parsing and verification
 * (no authority: the signature and payload paths run, nothing is trusted). */
#include <stdint.h>
#include <stdlib.h>

#include "authvar/authvar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kt_authvar v;
    struct kt_error e = {0};
    if (kt_authvar_parse(data, size, &v, &e) < 0) {
        if (!e.what[0])
            abort();
        return 0;
    }
    if (v.payload_offset + v.payload.len != size)
        abort();
    struct kt_authvar_result r;
    int rc = kt_authvar_verify(&v, "db", NULL, NULL, NULL, &r);
    if (rc == 0)
        abort(); /* trusted without any authority */
    kt_authvar_result_free(&r);
    return 0;
}
