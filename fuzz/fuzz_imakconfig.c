/* libFuzzer target: a kernel's .config (src/ima/imakconfig.c,
 * kt_ima_kconfig_parse) and the keyring rule it makes.  Input: the file. */
#include <stddef.h>
#include <stdint.h>

#include "ima/imasig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kt_ima_kconfig c;
    struct kt_error e = KT_ERROR_INIT;
    if (kt_ima_kconfig_parse(data, size, &c, &e) == 0) {
        struct kt_ima_ring_rule r;
        kt_ima_ring_rule(&c, &r);
        if (!r.name || r.n_vouchers > 3)
            __builtin_trap();
    }
    return 0;
}
