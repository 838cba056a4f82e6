/* fuzz_seal_token.c - one LUKS2 token's JSON as a sealed secret (systemd-tpm2,
 * clevis: the base64url JWE header inside it and the TPM2B_PUBLIC inside
 * that), then its policy digest against zero PCR values. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ktrust/seal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kt_seal_token t;
    struct kt_error e = {0};
    int rc = kt_seal_token_parse((const char *)data, size, &t, &e);
    if (rc < 0 && rc != -ENOMEM && !e.what[0])
        abort(); /* a refusal always says why */
    if (rc == 1) {
        if (t.policy_len > KT_SEAL_MAX_DIGEST || t.pcrs >> KT_EVLOG_PCRS)
            abort();
        static struct kt_evlog_pcrs p;
        p.n_banks = 1;
        p.bank[0].alg = t.bank;
        p.bank[0].size = 32;
        p.bank[0].supported = true;
        for (unsigned i = 0; i < KT_EVLOG_PCRS; i++)
            p.bank[0].used[i] = true;
        struct kt_seal_check r;
        if (kt_seal_check(&t, &p, &p, &p, &r) == 0 && r.changed)
            abort(); /* nothing changes between identical values */
    }
    return 0;
}
