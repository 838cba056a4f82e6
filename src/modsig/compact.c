/* compact.c - a module kept as what verifying it needs (`audit --save-root`,
 * #36): the digest of its signed content and its last bytes from the
 * signature on, a few KiB instead of the module.  Layout (ktrust(1)):
 *
 *   ktrust-module-signature 1\n
 *   compression NAME\n        none, xz, zstd, gzip: the module's
 *   size N\n                  its decompressed size
 *   signed N\n                the bytes the signature covers
 *   digest ALG HEX\n          one per signer's algorithm
 *   file sha256 HEX\n         the whole file's (Debian's module hash check);
 *                             absent from older saves
 *   \n
 *   PKCS#7, struct module_signature, "~Module signature appended~\n"
 *
 * It ends with the marker, so it is detected as a module.  Written by
 * compact_make.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modsig/modsig.h"
#include "util/le.h"

#define HEAD KT_MODSIG_COMPACT_HEAD
#define MAX_HEADER KT_MODSIG_COMPACT_MAX_HEADER

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
    if (sscanf(line, "file sha256 %159s", arg) == 1 && !cm->has_file_sha256) {
        cm->has_file_sha256 = true;
        return hex_digest(arg, KT_HASH_SHA256, cm->file_sha256);
    }
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
