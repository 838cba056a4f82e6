/* libFuzzer target: module signature trailer, decompression, verification,
 * the saved form (compact.c) read as an audit of a saved root reads it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "modsig/modsig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kt_modsig_info info;
    struct kt_error e = {0};
    kt_modsig_parse(data, size, &info, &e);
    struct kt_modsig_result r;
    memset(&r, 0, sizeof(r));
    kt_modsig_verify_set(data, size, NULL, &r, &e);
    kt_modsig_result_free(&r);
    memset(&r, 0, sizeof(r));
    r.saved_ok = true;
    kt_modsig_verify_set(data, size, NULL, &r, &e);
    kt_modsig_result_free(&r);
    /* decompression with a small limit (bombs must stop cleanly) */
    const uint8_t *out;
    size_t olen;
    uint8_t *owned = NULL;
    enum kt_modsig_comp comp;
    if (kt_modsig_decompress(data, size, 1u << 20, &out, &olen, &owned, &comp, &e) == 0)
        kt_modsig_parse(out, olen, &info, &e);
    free(owned);
    return 0;
}
