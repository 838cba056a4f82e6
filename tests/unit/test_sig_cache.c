/* The certificate-link cache: a remembered answer never crosses to another
 * certificate or another key, and repeated checks agree with the first. */
#include <stdlib.h>
#include <unistd.h>

#include "kt_test.h"
#include "x509/x509.h"

static struct kt_x509 *load(const char *dir, const char *name, unsigned char **buf)
{
    char path[512];
    size_t n;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    *buf = kt_test_slurp(path, &n);
    struct kt_x509 *c = NULL;
    struct kt_error e = {0};
    if (!*buf || kt_x509_parse(*buf, n, &c, &e) < 0)
        fprintf(stderr, "cannot parse %s: %s\n", path, e.what);
    return c;
}

int main(void)
{
    char dir[] = "/tmp/kt-sigcache.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char cmd[2048];
    snprintf(cmd, sizeof(cmd),
             "cd %s && for n in ca other; do openssl req -x509 -newkey rsa:2048 -nodes -keyout $n.key "
             "-outform DER -out $n.der -days 30 -subj /CN=$n 2>/dev/null; done && "
             "openssl req -new -newkey rsa:2048 -nodes -keyout l.key -out l.csr -subj /CN=leaf 2>/dev/null && "
             "openssl x509 -req -in l.csr -CA ca.der -CAform DER -CAkey ca.key -CAcreateserial -outform DER "
             "-out leaf.der -days 30 2>/dev/null && cp leaf.der bad.der && "
             /* flip one signature byte: writing a constant left it unchanged when it already
              * held that value (1 run in 256) */
             "o=$(( $(stat -c %%s leaf.der) - 5 )) && "
             "b=$(od -An -tu1 -j $o -N1 leaf.der) && "
             "printf \"\\\\$(printf %%03o $(( b ^ 1 )))\" | dd of=bad.der bs=1 seek=$o conv=notrunc status=none && "
             "! cmp -s leaf.der bad.der",
             dir);
    CHECK(system(cmd) == 0, "generate certificates");
    unsigned char *b1, *b2, *b3, *b4;
    struct kt_x509 *ca = load(dir, "ca.der", &b1), *other = load(dir, "other.der", &b2);
    struct kt_x509 *leaf = load(dir, "leaf.der", &b3), *bad = load(dir, "bad.der", &b4);
    CHECK(ca && other && leaf && bad, "parsed all four");
    if (ca && other && leaf && bad) {
        for (int round = 0; round < 3; round++) {
            CHECK_EQ_INT(kt_x509_check_signature(leaf, ca->pub), 0, "leaf under its CA");
            CHECK_EQ_INT(kt_x509_check_signature(leaf, other->pub), -EKEYREJECTED, "leaf under another key");
            CHECK_EQ_INT(kt_x509_check_signature(bad, ca->pub), -EKEYREJECTED, "tampered leaf under its CA");
        }
    }
    kt_x509_free(ca), kt_x509_free(other), kt_x509_free(leaf), kt_x509_free(bad);
    free(b1), free(b2), free(b3), free(b4);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    KT_TEST_END();
}
