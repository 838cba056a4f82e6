/* test_certlist.c - splitting the kernel's concatenated certificate list. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esl/esl.h"
#include "kt_test.h"

struct got {
    size_t n;
    size_t off[8], len[8];
};

static int collect(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    struct got *g = ctx;
    if (g->n < 8) {
        g->off[g->n] = off;
        g->len[g->n] = len;
    }
    g->n++;
    return 0;
}

static int stop_at_second(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    struct got *g = ctx;
    return ++g->n == 2 ? -ECANCELED : 0;
}

int main(void)
{
    const char *src = getenv("KT_SRC");
    char tmp[64] = "/tmp/kt-certlist.XXXXXX", cmd[512], path[600];
    if (!mkdtemp(tmp))
        return 1;
    snprintf(cmd, sizeof(cmd), "bash %s/tests/fixtures/make_kimage.sh %s certs",
             src ? src : ".", tmp);
    CHECK(system(cmd) == 0, "fixtures");
    size_t len[3];
    unsigned char *c[3];
    const char *names[3] = {"a", "b", "decoy"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/%s.der", tmp, names[i]);
        c[i] = kt_test_slurp(path, &len[i]);
        if (!c[i])
            return 1;
    }
    size_t total = len[0] + len[1] + len[2];
    uint8_t *buf = calloc(1, total + 64);
    memcpy(buf, c[0], len[0]);
    memcpy(buf + len[0], c[1], len[1]);
    memcpy(buf + len[0] + len[1], c[2], len[2]);

    /* three certificates back to back */
    struct got g = {0};
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_certlist_foreach(buf, total, collect, &g, &e), 0, "split 3");
    CHECK_EQ_INT(g.n, 3, "three certificates");
    CHECK(g.off[0] == 0 && g.off[1] == len[0] && g.off[2] == len[0] + len[1], "offsets");
    CHECK(g.len[0] == len[0] && g.len[1] == len[1] && g.len[2] == len[2], "lengths");

    /* zero padding after the list (the build aligns it) */
    g = (struct got){0};
    CHECK_EQ_INT(kt_certlist_foreach(buf, total + 7, collect, &g, NULL), 0, "zero padding");
    CHECK_EQ_INT(g.n, 3, "padding is not a certificate");

    /* trailing garbage */
    memcpy(buf + total, "\x01garbage", 8);
    g = (struct got){0};
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_certlist_foreach(buf, total + 8, collect, &g, &e), -EBADMSG, "garbage");
    CHECK_EQ_INT(e.offset, total, "garbage offset");
    CHECK_EQ_INT(g.n, 3, "certificates before the garbage were delivered");

    /* a SEQUENCE header whose length runs past the end */
    memcpy(buf + total, "\x30\x82\x7f\xff\x30\x82\x00\x00", 8);
    e = (struct kt_error){0};
    CHECK_EQ_INT(kt_certlist_foreach(buf, total + 8, NULL, NULL, &e), -EBADMSG, "overlong");
    CHECK_EQ_INT(e.offset, total, "overlong offset");
    CHECK(strstr(e.what, "entry 3") != NULL, "names the entry: %s", e.what);

    /* every truncation: an error at the start of the cut certificate */
    int bad = 0;
    for (size_t n = 1; n < total; n++) {
        struct kt_error e2 = {0};
        int rc = kt_certlist_foreach(buf, n, NULL, NULL, &e2);
        int boundary = n == len[0] || n == len[0] + len[1];
        size_t start = n < len[0] ? 0 : n < len[0] + len[1] ? len[0] : len[0] + len[1];
        if (boundary ? rc != 0 : (rc != -EBADMSG || e2.offset != start))
            bad++;
    }
    CHECK_EQ_INT(bad, 0, "truncations");

    /* the callback can stop the walk */
    g = (struct got){0};
    CHECK_EQ_INT(kt_certlist_foreach(buf, total, stop_at_second, &g, NULL), -ECANCELED, "stop");
    CHECK_EQ_INT(g.n, 2, "stopped at 2");

    /* empty input, all zeros */
    CHECK_EQ_INT(kt_certlist_foreach(NULL, 0, collect, &g, NULL), 0, "empty");
    uint8_t z[16] = {0};
    g = (struct got){0};
    CHECK_EQ_INT(kt_certlist_foreach(z, sizeof(z), collect, &g, NULL), 0, "zeros");
    CHECK_EQ_INT(g.n, 0, "no certs in zeros");

    /* oracle: openssl reads the first certificate of the list as the same cert */
    snprintf(path, sizeof(path), "%s/list.bin", tmp);
    FILE *f = fopen(path, "wb");
    fwrite(buf, 1, total, f);
    fclose(f);
    snprintf(cmd, sizeof(cmd),
             "openssl x509 -inform DER -in %s/list.bin -noout -fingerprint -sha256 | "
             "tr -d : | grep -qi $(openssl x509 -inform DER -in %s/a.der -noout -fingerprint "
             "-sha256 | tr -d : | cut -d= -f2)",
             tmp, tmp);
    CHECK(system(cmd) == 0, "openssl agrees on the first element");

    for (int i = 0; i < 3; i++)
        free(c[i]);
    free(buf);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
    if (system(cmd) != 0)
        return 1;
    KT_TEST_END();
}
