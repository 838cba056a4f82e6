/* compact_make.c - a module file made into its saved form (compact.c
 * reads it; the layout is there): kt_modsig_prepare's trailer and digests,
 * written out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modsig/modsig.h"
#include "util/fmt.h"

#define HEAD KT_MODSIG_COMPACT_HEAD
#define MAX_HEADER KT_MODSIG_COMPACT_MAX_HEADER

int kt_modsig_compact_make(const uint8_t *buf, size_t len, uint8_t **out, size_t *out_len,
                           struct kt_error *err)
{
    struct kt_modsig_result res = {0};
    struct kt_error e = KT_ERROR_INIT;
    struct kt_modsig_compact cm;
    *out = NULL;
    if (kt_modsig_compact_parse(buf, len, &cm, &e) == 0) { /* saved already: as it is */
        if (!(*out = malloc(len)))
            return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
        memcpy(*out, buf, len);
        *out_len = len;
        return 0;
    }
    int rc = kt_modsig_prepare(buf, len, false, &res, &e);
    if (rc < 0 || !res.has_sig || !res.msg || res.msg->has_content) {
        kt_modsig_result_free(&res);
        return rc == -ENOMEM ? kt_fail(err, rc, KT_NO_OFFSET, "out of memory") : -EOPNOTSUPP;
    }
    size_t tail = res.info.sig.len + KT_MODSIG_STRUCT_LEN + KT_MODSIG_MAGIC_LEN;
    size_t cap = MAX_HEADER + tail;
    char *p = malloc(cap);
    if (!p) {
        kt_modsig_result_free(&res);
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    }
    size_t n = (size_t)snprintf(p, MAX_HEADER, HEAD "compression %s\nsize %zu\nsigned %zu\n",
                                kt_modsig_comp_name(res.comp), res.module_size,
                                res.info.module_len);
    for (size_t i = 0; i < res.n_digests && n < MAX_HEADER - 200; i++) {
        if (res.digests[i].hash == KT_HASH_NONE)
            continue;
        char hex[2 * KT_HASH_MAX_SIZE + 1];
        kt_hex(res.digests[i].digest, kt_hash_size(res.digests[i].hash), hex);
        n += (size_t)snprintf(p + n, MAX_HEADER - n, "digest %s %s\n",
                              kt_hash_name(res.digests[i].hash), hex);
    }
    if (res.has_file_sha256) {
        char hex[2 * sizeof(res.file_sha256) + 1];
        kt_hex(res.file_sha256, sizeof(res.file_sha256), hex);
        n += (size_t)snprintf(p + n, MAX_HEADER - n, "file sha256 %s\n", hex);
    }
    p[n++] = '\n';
    memcpy(p + n, res.info.sig.p, res.info.sig.len);
    n += res.info.sig.len;
    /* struct module_signature as kt_modsig_parse found it: only id_type and sig_len set */
    uint8_t ms[KT_MODSIG_STRUCT_LEN] = {0, 0, KT_MODSIG_PKEY_ID_PKCS7, 0, 0, 0, 0, 0,
                                        (uint8_t)(res.info.sig_len >> 24),
                                        (uint8_t)(res.info.sig_len >> 16),
                                        (uint8_t)(res.info.sig_len >> 8),
                                        (uint8_t)res.info.sig_len};
    memcpy(p + n, ms, sizeof(ms));
    n += sizeof(ms);
    memcpy(p + n, KT_MODSIG_MAGIC, KT_MODSIG_MAGIC_LEN);
    n += KT_MODSIG_MAGIC_LEN;
    kt_modsig_result_free(&res);
    *out = (uint8_t *)p;
    *out_len = n;
    return 0;
}
