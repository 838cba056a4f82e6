/* fuzz_sbat.c - .sbat CSV and SbatLevel payloads, and the revocation check
 * between them (the first byte splits the input in two). */
#include <stdint.h>
#include <stdlib.h>

#include "sbat/sbat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t cut = data[0] < size ? data[0] : size - 1;
    const uint8_t *a = data + 1, *b = data + 1 + cut;
    size_t alen = cut, blen = size - 1 - cut;
    struct kt_sbat s;
    struct kt_sbat_level l;
    struct kt_error e = {0}, e2 = {0};
    int rc = kt_sbat_parse(a, alen, 0, &s, &e);
    if (rc < 0 && (!e.what[0] || (e.offset != KT_NO_OFFSET && e.offset > alen)))
        abort();
    int rc2 = kt_sbat_level_parse(b, blen, &l, &e2);
    if (rc2 < 0 && (!e2.what[0] || (e2.offset != KT_NO_OFFSET && e2.offset > blen)))
        abort();
    if (rc == 0 && rc2 == 0) {
        const struct kt_sbat_entry *ie, *le;
        struct kt_error e3 = {0};
        int r = kt_sbat_check(&s, &l, &ie, &le, &e3);
        if (r < 0 && (!ie || !le || ie->generation >= le->generation))
            abort();
    }
    if (rc == 0)
        kt_sbat_free(&s);
    if (rc2 == 0)
        kt_sbat_level_free(&l);
    return 0;
}
