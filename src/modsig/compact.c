/* compact.c - a module kept as what verifying it needs (`audit --save-root`,
 * #36): the digest of its signed content and its last bytes from the
 * signature on, a few KiB instead of the module.  Layout (ktrust(1)):
 *
 *   ktrust-module-signature 1\n
 *   compression NAME\n        none, xz, zstd, gzip: the module's
 *   size N\n                  its decompressed size
 *   signed N\n                the bytes the signature covers
 *   digest ALG HEX\n          one per signer's algorithm
 *   \n
 *   PKCS#7, struct module_signature, "~Module signature appended~\n"
 *
 * It ends with the marker, so it is detected as a module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modsig/modsig.h"
#include "util/fmt.h"
#include "util/le.h"

#define HEAD "ktrust-module-signature 1\n"
#define MAX_HEADER 4096

/* The next header line of c (without its '\n'), NUL-terminated into line. */
static bool next_line(kt_le *c, char *line, size_t cap)
{
    size_t avail = kt_le_left(c);
    const uint8_t *p = c->p;
    const uint8_t *nl = memchr(p, '\n', avail < cap ? avail : cap);
    if (!nl)
        return false;
    size_t n = (size_t)(nl - p);
    memcpy(line, p, n);
    line[n] = 0;
    return kt_le_skip(c, n + 1, NULL) == 0;
}

static int hex_digest(const char *hex, enum kt_hash h, uint8_t *out)
{
    size_t n = kt_hash_size(h);
    if (!n || strlen(hex) != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

static int header_line(struct kt_modsig_compact *cm, const char *line)
{
    char word[16], arg[160];
    unsigned long long v;
    if (sscanf(line, "compression %15s", word) == 1) {
        cm->comp = !strcmp(word, "xz")     ? KT_MODSIG_XZ
                   : !strcmp(word, "zstd") ? KT_MODSIG_ZSTD
                   : !strcmp(word, "gzip") ? KT_MODSIG_GZIP
                                           : KT_MODSIG_NONE;
        return strcmp(word, kt_modsig_comp_name(cm->comp)) ? -1 : 0;
    }
    if (sscanf(line, "size %llu", &v) == 1)
        return cm->size = (size_t)v, 0;
    if (sscanf(line, "signed %llu", &v) == 1)
        return cm->signed_len = (size_t)v, 0;
    if (sscanf(line, "digest %15s %159s", word, arg) == 2 && cm->n < KT_HASH__COUNT) {
        for (int h = 1; h < KT_HASH__COUNT; h++)
            if (!strcmp(word, kt_hash_name((enum kt_hash)h))) {
                cm->hash[cm->n] = (enum kt_hash)h;
                return hex_digest(arg, (enum kt_hash)h, cm->digest[cm->n++]);
            }
    }
    return -1;
}

int kt_modsig_compact_parse(const uint8_t *buf, size_t len, struct kt_modsig_compact *cm,
                            struct kt_error *err)
{
    memset(cm, 0, sizeof(*cm));
    if (len < sizeof(HEAD) - 1 || memcmp(buf, HEAD, sizeof(HEAD) - 1))
        return -ENOENT;
    kt_le c;
    char line[256];
    kt_le_init(&c, buf, len, NULL);
    kt_le_skip(&c, sizeof(HEAD) - 1, NULL);
    for (;;) {
        size_t at = kt_le_offset(&c);
        if (at > MAX_HEADER || !next_line(&c, line, sizeof(line)))
            return kt_fail(err, -EBADMSG, at, "saved module: header line too long or cut");
        if (!line[0])
            break;
        if (header_line(cm, line) < 0)
            return kt_fail(err, -EBADMSG, at, "saved module: bad header line");
    }
    cm->trailer = c.p;
    cm->trailer_len = kt_le_left(&c);
    if (cm->signed_len > cm->size || cm->size - cm->signed_len != cm->trailer_len)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET,
                       "saved module: size, signed size and signature disagree");
    return 0;
}

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
