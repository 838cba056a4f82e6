/* libFuzzer target: the PKCS#7 parser, verifier and trust walk. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "pkcs7/pkcs7.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kt_pkcs7 *m = NULL;
    struct kt_error e = {0};
    if (kt_pkcs7_parse(data, size, &m, &e) == 0) {
        /* detached: verify over the input itself; attached: over the content */
        int rc = kt_pkcs7_verify(m, m->has_content ? NULL : data, size, NULL, &e);
        if (rc == 0 || rc == -ENOPKG)
            kt_pkcs7_validate_trust_set(m, NULL, &e);
        kt_pkcs7_check_purpose(m, KT_VERIFY_PURPOSE_MODULE, &e);
        char name[256];
        for (size_t i = 0; i < m->n_signers; i++)
            kt_pkcs7_name_string(m->signers[i].issuer_raw, name, sizeof(name));
    }
    kt_pkcs7_free(m);
    uint8_t *der = NULL;
    size_t len = 0;
    if (kt_pkcs7_pem_decode(data, size, &der, &len, &e) == 0 && kt_pkcs7_parse(der, len, &m, &e) == 0)
        kt_pkcs7_free(m);
    free(der);
    return 0;
}
