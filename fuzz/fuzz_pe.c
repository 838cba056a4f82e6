/* fuzz_pe.c - PE parsing, the certificate table walk, the image digest,
 * section lookup and the whole Authenticode verification (no keys). */
#include <stddef.h>
#include <stdint.h>

#include "pe/pe.h"
#include "pe/pe_verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kt_pe *pe = NULL;
    struct kt_error e = {0};
    if (kt_pe_parse(data, size, &pe, &e) == 0) {
        struct kt_pe_cert certs[KT_PE_MAX_CERTS];
        size_t n;
        kt_pe_cert_table(pe, certs, KT_PE_MAX_CERTS, &n, &e);
        enum kt_hash hs[2] = {KT_HASH_SHA256, KT_HASH_SHA1};
        uint8_t d[2][KT_HASH_MAX_SIZE];
        kt_pe_image_digest(pe, hs, 2, d, &e);
        kt_span s;
        kt_pe_find_section(pe, ".keylist", &s);
        kt_pe_find_section(pe, ".vendor_cert", &s);
        kt_pe_free(pe);
    }
    struct kt_pe_result *r = NULL;
    struct kt_pe_verify_opts o = {.purpose = KT_VERIFY_PURPOSE_UEFI, .allow_sha1 = true};
    struct kt_error e2 = {0};
    kt_pe_verify_set(data, size, NULL, &o, &r, &e2);
    kt_pe_result_free(r);
    return 0;
}
