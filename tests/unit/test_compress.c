/* test_compress.c - the shared decompressor against the command-line tools:
 * random and structured data compressed with gzip, xz, xz --format=lzma,
 * zstd, lz4 -l and lz4 (frame) must come back byte for byte; truncated
 * streams are -EBADMSG with an offset; bombs stop at the limit with -E2BIG;
 * concatenated streams follow KT_DECOMPRESS_CONCAT. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compress/compress.h"
#include "kt_test.h"

static char tmp[64] = "/tmp/kt-compress.XXXXXX";

struct tool {
    const char *ext;
    const char *cmd; /* compresses stdin to stdout */
    enum kt_comp comp;
    bool concat;     /* the format has concatenable streams */
};

static const struct tool tools[] = {
    {"gz", "gzip -c -n", KT_COMP_GZIP, true},
    {"xz", "xz -c -0", KT_COMP_XZ, true},
    {"lzma", "xz -c -0 --format=lzma", KT_COMP_LZMA, false},
    {"zst", "zstd -q -c", KT_COMP_ZSTD, true},
    {"lz4l", "lz4 -q -l -c", KT_COMP_LZ4, false},
    {"lz4", "lz4 -q -c", KT_COMP_LZ4, true},
};
#define NTOOLS (sizeof(tools) / sizeof(tools[0]))

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    int rc = system(cmd);
    if (rc != 0)
        fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
    return rc;
}

static void write_file(const char *name, const uint8_t *b, size_t n)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", tmp, name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "create %s", path);
    if (!f)
        return;
    CHECK(n == 0 || fwrite(b, 1, n, f) == n, "write %s", path);
    fclose(f);
}

/* Compress tmp/<in> with tool t into tmp/<in>.<ext>; read it back. */
static uint8_t *compress_with(const struct tool *t, const char *in, size_t *len)
{
    if (sh("cd %s && %s < %s > %s.%s", tmp, t->cmd, in, in, t->ext) != 0)
        return NULL;
    char path[256];
    snprintf(path, sizeof(path), "%s/%s.%s", tmp, in, t->ext);
    return kt_test_slurp(path, len);
}

/* The incremental decoder (kt_decoder_*) read in chunk-byte pieces: the
 * output gathered into a malloc'd buffer, or the error. */
static int stream_decode(enum kt_comp c, const uint8_t *in, size_t len, size_t base,
                         size_t max_out, const struct kt_decompress_opts *o, size_t chunk,
                         uint8_t **out, size_t *out_len, struct kt_error *e)
{
    struct kt_decoder *d;
    *out = NULL;
    *out_len = 0;
    int rc = kt_decoder_new(c, in, len, base, max_out, o, &d, e);
    if (rc < 0)
        return rc;
    size_t cap = 0, n = 0, got;
    uint8_t *buf = NULL;
    for (;;) {
        if (cap - n < chunk) {
            cap = cap ? cap * 2 : chunk * 2;
            if (cap - n < chunk)
                cap = n + chunk;
            buf = realloc(buf, cap);
        }
        rc = kt_decoder_read(d, buf + n, chunk, &got, e);
        if (rc < 0 || got == 0)
            break;
        n += got;
    }
    if (rc == 0 && kt_decoder_total(d) != n)
        rc = -EPROTO;
    kt_decoder_free(d);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *out = buf;
    *out_len = n;
    return 0;
}

/* The streaming decoder gives what kt_decompress_ex gives (the output, or
 * the error code with a message and an offset within the input), for
 * several piece sizes. */
static void same_as_whole(enum kt_comp c, const uint8_t *in, size_t len, size_t base,
                          size_t max_out, const struct kt_decompress_opts *o, const char *what)
{
    uint8_t *want;
    size_t want_len;
    struct kt_error we = {0};
    int wrc = kt_decompress_ex(c, in, len, base, max_out, o, &want, &want_len, &we);
    static const size_t chunks[] = {1, 4093, (size_t)1 << 20};
    for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
        if (chunks[k] == 1 && len > 4096)
            continue; /* byte by byte only for small streams */
        uint8_t *got;
        size_t got_len;
        struct kt_error ge = {0};
        int grc = stream_decode(c, in, len, base, max_out, o, chunks[k], &got, &got_len, &ge);
        CHECK(grc == wrc, "%s, %zu-byte pieces: rc %d, whole %d (%s / %s)", what, chunks[k], grc,
              wrc, ge.what, we.what);
        if (grc == 0 && wrc == 0)
            CHECK(got_len == want_len && (!got_len || !memcmp(got, want, got_len)),
                  "%s, %zu-byte pieces: %zu bytes as the whole decode (%zu)", what, chunks[k],
                  got_len, want_len);
        else if (grc < 0)
            CHECK(ge.what[0] && (ge.offset == KT_NO_OFFSET ||
                                 (ge.offset >= base && ge.offset <= base + len)),
                  "%s, %zu-byte pieces: message '%s', offset %zu", what, chunks[k], ge.what,
                  ge.offset);
        free(got);
    }
    if (wrc == 0)
        free(want);
}

static void round_trip(const char *name, const uint8_t *data, size_t n)
{
    write_file(name, data, n);
    for (size_t i = 0; i < NTOOLS; i++) {
        const struct tool *t = &tools[i];
        size_t clen;
        uint8_t *c = compress_with(t, name, &clen);
        CHECK(c != NULL, "%s: %s", name, t->cmd);
        if (!c)
            continue;
        CHECK_EQ_STR(kt_comp_name(kt_comp_sniff(c, clen)), kt_comp_name(t->comp), t->cmd);

        uint8_t *out = NULL;
        size_t olen = 0;
        struct kt_error e = {0};
        int rc = kt_decompress(t->comp, c, clen, 0, 0, &out, &olen, &e);
        if (n == 0 && !strcmp(t->ext, "lz4l")) {
            /* a legacy stream without blocks (the magic alone) is refused,
             * as the kernel's payloads always have one */
            CHECK(rc == -EBADMSG && clen == 4, "empty lz4 -l: %d %s", rc, e.what);
            free(c);
            continue;
        }
        CHECK(rc == 0, "%s %s: %d %s", name, t->ext, rc, e.what);
        CHECK(rc != 0 || (olen == n && (n == 0 || memcmp(out, data, n) == 0)),
              "%s %s: output differs (%zu bytes, want %zu)", name, t->ext, olen, n);
        CHECK(rc != 0 || out != NULL, "%s %s: output buffer even when empty", name, t->ext);
        free(out);
        char what[128];
        snprintf(what, sizeof(what), "stream %s %s", name, t->ext);
        same_as_whole(t->comp, c, clen, 0, 0, NULL, what);
        if (n > 1) {
            snprintf(what, sizeof(what), "stream %s %s, max_out = size", name, t->ext);
            same_as_whole(t->comp, c, clen, 0, n, NULL, what);
            snprintf(what, sizeof(what), "stream %s %s, max_out = size - 1", name, t->ext);
            same_as_whole(t->comp, c, clen, 0, n - 1, NULL, what);
        }

        /* the exact size fits; one byte less is a bomb (max_out 0 would
         * mean the default) */
        if (n > 1) {
            e = (struct kt_error){0};
            rc = kt_decompress(t->comp, c, clen, 0, n, &out, &olen, &e);
            CHECK(rc == 0 && olen == n, "%s %s: max_out = size: %d %s", name, t->ext, rc, e.what);
            free(out);
            e = (struct kt_error){0};
            rc = kt_decompress(t->comp, c, clen, 0, n - 1, &out, &olen, &e);
            CHECK(rc == -E2BIG && out == NULL, "%s %s: max_out = size - 1: %d %s", name, t->ext,
                  rc, e.what);
        }

        /* truncations: half, all but the last byte, only the magic */
        size_t cuts[] = {clen / 2, clen - 1, 4};
        for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
            if (cuts[k] >= clen)
                continue;
            e = (struct kt_error){0};
            out = (uint8_t *)1;
            rc = kt_decompress(t->comp, c, cuts[k], 1000, 0, &out, &olen, &e);
            CHECK(rc == -EBADMSG, "%s %s cut at %zu of %zu: %d %s", name, t->ext, cuts[k], clen,
                  rc, e.what);
            CHECK(out == NULL, "%s %s cut: no output", name, t->ext);
            CHECK(e.offset >= 1000 && e.offset <= 1000 + cuts[k],
                  "%s %s cut at %zu: offset %zu counts from the base", name, t->ext, cuts[k],
                  e.offset);
            CHECK(e.what[0] != 0, "%s %s cut: a message", name, t->ext);
            snprintf(what, sizeof(what), "stream %s %s cut at %zu", name, t->ext, cuts[k]);
            same_as_whole(t->comp, c, cuts[k], 1000, 0, NULL, what);
        }
        free(c);
    }
}

/* A flipped byte in a checksummed stream (gzip CRC-32, xz CRC-64) fails. */
static void corrupt_streams(void)
{
    for (size_t i = 0; i < 2; i++) {
        const struct tool *t = &tools[i];
        size_t clen;
        uint8_t *c = compress_with(t, "random", &clen);
        if (!c)
            continue;
        c[clen / 2] ^= 0x55;
        uint8_t *out = NULL;
        size_t olen;
        struct kt_error e = {0};
        int rc = kt_decompress(t->comp, c, clen, 0, 0, &out, &olen, &e);
        CHECK(rc == -EBADMSG && out == NULL, "%s: corrupted: %d %s", t->ext, rc, e.what);
        same_as_whole(t->comp, c, clen, 0, 0, NULL, "stream: corrupted");
        CHECK(e.offset != KT_NO_OFFSET && e.offset <= clen, "%s: offset %zu", t->ext, e.offset);
        free(c);
    }
    static const uint8_t junk[] = {0x1f, 0x8b, 8, 0, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
    uint8_t *out;
    size_t olen;
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_decompress(KT_COMP_GZIP, junk, sizeof(junk), 0, 0, &out, &olen, &e),
                 -EBADMSG, "junk after a gzip magic");
    same_as_whole(KT_COMP_GZIP, junk, sizeof(junk), 0, 0, NULL, "stream: junk after gzip magic");
}

/* 64 MiB of zeros against a 1 MiB limit: -E2BIG, early, naming the limit. */
static void bombs(void)
{
    if (sh("head -c 67108864 /dev/zero > %s/zeros", tmp) != 0)
        return;
    for (size_t i = 0; i < NTOOLS; i++) {
        const struct tool *t = &tools[i];
        size_t clen;
        uint8_t *c = compress_with(t, "zeros", &clen);
        CHECK(c != NULL, "bomb: %s", t->cmd);
        if (!c)
            continue;
        uint8_t *out = NULL;
        size_t olen;
        struct kt_error e = {0};
        int rc = kt_decompress(t->comp, c, clen, 0, (size_t)1 << 20, &out, &olen, &e);
        CHECK_EQ_INT(rc, -E2BIG, t->ext);
        CHECK(out == NULL, "bomb %s: no output", t->ext);
        CHECK(strstr(e.what, "1048576") && strstr(e.what, "limit"), "bomb %s names the limit: %s",
              t->ext, e.what);
        /* stopped at the limit, not after decoding all 64 MiB: the input
         * read so far (the error's offset) is a small part of the stream
         * (1/64 of the output; lz4 legacy decodes a whole 8 MiB block) */
        CHECK(e.offset != KT_NO_OFFSET && e.offset < clen / 4,
              "bomb %s stopped early: at input offset %zu of %zu", t->ext, e.offset, clen);
        /* streaming: the limit counts decoded bytes, same code and message */
        uint8_t *sout;
        size_t slen;
        e = (struct kt_error){0};
        rc = stream_decode(t->comp, c, clen, 0, (size_t)1 << 20, NULL, (size_t)256 << 10, &sout,
                           &slen, &e);
        CHECK(rc == -E2BIG && strstr(e.what, "1048576") && strstr(e.what, "limit"),
              "streaming bomb %s: %d %s", t->ext, rc, e.what);
        /* the same stream under a roomy limit decodes in full */
        e = (struct kt_error){0};
        rc = kt_decompress(t->comp, c, clen, 0, (size_t)64 << 20, &out, &olen, &e);
        CHECK(rc == 0 && olen == (size_t)64 << 20 && out[olen - 1] == 0,
              "zeros %s under a 64 MiB limit: %d %s", t->ext, rc, e.what);
        free(out);
        free(c);
    }
}

/* Two streams back to back: the first alone by default, both with
 * KT_DECOMPRESS_CONCAT; trailing junk is ignored by default, an error with
 * KT_DECOMPRESS_CONCAT. */
static void concatenated(void)
{
    static const char a[] = "first stream\n", b[] = "second stream, longer\n";
    write_file("a", (const uint8_t *)a, strlen(a));
    write_file("b", (const uint8_t *)b, strlen(b));
    const struct kt_decompress_opts concat = {.flags = KT_DECOMPRESS_CONCAT, .what = "test"};
    for (size_t i = 0; i < NTOOLS; i++) {
        const struct tool *t = &tools[i];
        if (!t->concat)
            continue;
        size_t la, lb;
        uint8_t *ca = compress_with(t, "a", &la), *cb = compress_with(t, "b", &lb);
        if (!ca || !cb) {
            CHECK(0, "concat %s: compress", t->ext);
            free(ca);
            free(cb);
            continue;
        }
        uint8_t *both = malloc(la + lb + 4);
        memcpy(both, ca, la);
        memcpy(both + la, cb, lb);
        uint8_t *out;
        size_t olen;
        struct kt_error e = {0};
        int rc = kt_decompress(t->comp, both, la + lb, 0, 0, &out, &olen, &e);
        CHECK(rc == 0 && olen == strlen(a) && !memcmp(out, a, olen), "%s: first stream only: %d %s",
              t->ext, rc, e.what);
        if (rc == 0)
            free(out);
        e = (struct kt_error){0};
        rc = kt_decompress_ex(t->comp, both, la + lb, 0, 0, &concat, &out, &olen, &e);
        same_as_whole(t->comp, both, la + lb, 0, 0, NULL, "stream: first stream only");
        same_as_whole(t->comp, both, la + lb, 0, 0, &concat, "stream: CONCAT");
        CHECK(rc == 0 && olen == strlen(a) + strlen(b) && !memcmp(out, a, strlen(a)) &&
                  !memcmp(out + strlen(a), b, strlen(b)),
              "%s: both streams with CONCAT: %d %s", t->ext, rc, e.what);
        if (rc == 0)
            free(out);
        /* the kernel's 4-byte size trailer after one stream */
        memcpy(both + la, "\x0d\x00\x00\x00", 4);
        e = (struct kt_error){0};
        rc = kt_decompress(t->comp, both, la + 4, 0, 0, &out, &olen, &e);
        CHECK(rc == 0 && olen == strlen(a), "%s: trailer ignored: %d %s", t->ext, rc, e.what);
        if (rc == 0)
            free(out);
        e = (struct kt_error){0};
        same_as_whole(t->comp, both, la + 4, 0, 0, NULL, "stream: trailer ignored");
        same_as_whole(t->comp, both, la + 4, 0, 0, &concat, "stream: trailing junk, CONCAT");
        rc = kt_decompress_ex(t->comp, both, la + 4, 0, 0, &concat, &out, &olen, &e);
        CHECK(rc == -EBADMSG, "%s: trailing junk with CONCAT: %d %s", t->ext, rc, e.what);
        CHECK(strncmp(e.what, "test: ", 6) == 0, "%s: message prefix: %s", t->ext, e.what);
        free(both);
        free(ca);
        free(cb);
    }
}

static void names_and_sniffing(void)
{
    CHECK_EQ_STR(kt_comp_name(KT_COMP_NONE), "none", "none");
    CHECK_EQ_STR(kt_comp_name(KT_COMP_GZIP), "gzip", "gzip");
    CHECK_EQ_STR(kt_comp_name(KT_COMP_XZ), "xz", "xz");
    CHECK_EQ_STR(kt_comp_name(KT_COMP_LZMA), "lzma", "lzma");
    CHECK_EQ_STR(kt_comp_name(KT_COMP_ZSTD), "zstd", "zstd");
    CHECK_EQ_STR(kt_comp_name(KT_COMP_LZ4), "lz4", "lz4");
    CHECK_EQ_STR(kt_comp_name((enum kt_comp)99), "?", "out of range");
    static const uint8_t elf[16] = "\x7f" "ELF\2\1\1";
    CHECK_EQ_INT(kt_comp_sniff(elf, sizeof(elf)), KT_COMP_NONE, "ELF is not compressed");
    CHECK_EQ_INT(kt_comp_sniff(NULL, 0), KT_COMP_NONE, "nothing");
    CHECK_EQ_INT(kt_comp_sniff((const uint8_t *)"\x1f\x8b", 2), KT_COMP_NONE, "short gzip");
    CHECK_EQ_INT(kt_comp_sniff((const uint8_t *)"\x1f\x8b\x08", 3), KT_COMP_GZIP, "gzip");
    CHECK_EQ_INT(kt_comp_sniff((const uint8_t *)"\x02\x21\x4c\x18", 4), KT_COMP_LZ4, "lz4 legacy");
    CHECK_EQ_INT(kt_comp_sniff((const uint8_t *)"\x04\x22\x4d\x18", 4), KT_COMP_LZ4, "lz4 frame");

    /* NONE copies, within the limit */
    uint8_t *out;
    size_t olen;
    struct kt_error e = {0};
    CHECK(kt_decompress(KT_COMP_NONE, elf, sizeof(elf), 0, 0, &out, &olen, &e) == 0 &&
              olen == sizeof(elf) && out != elf && !memcmp(out, elf, olen),
          "none copies");
    free(out);
    CHECK_EQ_INT(kt_decompress(KT_COMP_NONE, elf, sizeof(elf), 0, 8, &out, &olen, &e), -E2BIG,
                 "none over the limit");
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_decompress((enum kt_comp)99, elf, sizeof(elf), 0, 0, &out, &olen, &e),
                 -ENOPKG, "unknown format");
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_decompress(KT_COMP_XZ, NULL, 0, 0, 0, &out, &olen, &e), -EBADMSG,
                 "empty xz input");
    same_as_whole(KT_COMP_NONE, elf, sizeof(elf), 0, 0, NULL, "stream: none");
    same_as_whole(KT_COMP_NONE, elf, sizeof(elf), 0, 8, NULL, "stream: none over the limit");
    same_as_whole((enum kt_comp)99, elf, sizeof(elf), 0, 0, NULL, "stream: unknown format");
    same_as_whole(KT_COMP_XZ, NULL, 0, 0, 0, NULL, "stream: empty xz input");
}

int main(void)
{
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    names_and_sniffing();

    /* random bytes (incompressible: stored blocks, raw lz4 literals) */
    size_t nr = (size_t)3 << 19; /* 1.5 MiB */
    uint8_t *r = malloc(nr);
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < nr; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        r[i] = (uint8_t)(x >> 24);
    }
    round_trip("random", r, nr);

    /* structured: 10 MiB of numbered lines (several lz4 legacy blocks, many
     * buffer doublings) */
    size_t ns = (size_t)10 << 20, pos = 0;
    uint8_t *s = malloc(ns);
    for (unsigned i = 0; pos < ns; i++) {
        char line[80];
        int l = snprintf(line, sizeof(line), "line %u: value=%u flags=%s\n", i, i * 2654435761u,
                         i % 7 ? "ro" : "rw,exec");
        size_t take = (size_t)l < ns - pos ? (size_t)l : ns - pos;
        memcpy(s + pos, line, take);
        pos += take;
    }
    round_trip("structured", s, ns);
    round_trip("empty", NULL, 0);
    round_trip("one", (const uint8_t *)"x", 1);

    corrupt_streams();
    concatenated();
    bombs();

    free(r);
    free(s);
    sh("rm -rf %s", tmp);
    KT_TEST_END();
}
