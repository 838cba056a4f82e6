/* fuzz_vendor_cert.c - shim's .vendor_cert section. */
#include <stdint.h>
#include <stdlib.h>

#include "esl/esl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kt_vendor_cert vc;
    struct kt_error e = {0};
    int rc = kt_vendor_cert_parse((kt_span){data, size}, 0x400, &vc, &e);
    if (rc == 0) {
        /* the parts lie inside the section */
        if (vc.authorized.len &&
            (vc.authorized.p < data || vc.authorized.p + vc.authorized.len > data + size))
            abort();
        if (vc.deauthorized.len &&
            (vc.deauthorized.p < data || vc.deauthorized.p + vc.deauthorized.len > data + size))
            abort();
        kt_esl_foreach(vc.deauthorized.p, vc.deauthorized.len, NULL, NULL, NULL);
    } else if (e.what[0] == 0) {
        abort();
    }
    return 0;
}
