/* fuzz_mscode.c - SpcIndirectDataContent (the content of the SEQUENCE). */
#include <stddef.h>
#include <stdint.h>

#include "pe/mscode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kt_mscode mc;
    struct kt_error e = {0};
    if (kt_mscode_parse(data, size, NULL, &mc, &e) == 0) {
        volatile uint8_t x = 0;
        for (size_t i = 0; i < mc.digest.len; i++)
            x ^= mc.digest.p[i];
        (void)x;
    }
    return 0;
}
