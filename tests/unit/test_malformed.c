/* The malformed-input suite (issue #8): real inputs from the corpus, mutated
 * in many ways, fed to every parser and verifier in-process.  Each result must
 * be one of the documented verdicts (never "internal error") with a message
 * when it fails; the sanitizer build turns any memory error into a failure;
 * ctest's timeout turns a hang into one.  Plus scaling cases: 10^5 elements
 * must not make anything quadratic. */

#include "esl/esl.h"
#include "kimage/kimage.h"
#include "kt_test.h"
#include "modsig/modsig.h"
#include "pe/pe_verify.h"
#include "pkcs7/pkcs7.h"
#include "policy/keyrings.h"
#include "policy/load.h"
#include "policy/restrict.h"
#include "policy/verify.h"
#include "verify/detect.h"
#include "x509/x509.h"

static struct kt_keyrings *rings;
static size_t n_cases;

static int ignore_cert(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    (void)ctx, (void)der, (void)len, (void)off;
    return 0;
}

static int ignore_esl(void *ctx, const struct kt_esl_entry *e)
{
    (void)ctx, (void)e;
    return 0;
}

static int count_esl(void *ctx, const struct kt_esl_entry *e)
{
    (void)e;
    ++*(size_t *)ctx;
    return 0;
}

/* rc is documented: a verdict, with a message when it is a failure. */
static void check_rc(const char *what, const char *input, int rc, const struct kt_error *e)
{
    n_cases++;
    enum kt_verdict v = kt_verdict_of(rc);
    bool ok = v != KT_INTERNAL || rc == -EFBIG || rc == -ENOENT;
    CHECK(ok, "%s on %s: undocumented result %d (%s)", what, input, rc, e->what);
    if (rc < 0)
        CHECK(e->what[0] != 0, "%s on %s: result %d without a message", what, input, rc);
}

enum kind { K_PE, K_MODULE, K_CERT, K_ESL, K_PKCS7 };

static void run_all(enum kind k, const char *name, const uint8_t *b, size_t n)
{
    struct kt_error e = {0};
    int rc;
    (void)kt_detect(b, n, name);
    switch (k) {
    case K_PE: {
        struct kt_pe_result *r = NULL;
        struct kt_pe_verify_opts o = {.purpose = KT_VERIFY_PURPOSE_UEFI, .allow_sha1 = true};
        rc = kt_pe_verify(b, n, rings, &o, &r, &e);
        kt_pe_result_free(r);
        check_rc("kt_pe_verify", name, rc, &e);
        break;
    }
    case K_MODULE: {
        struct kt_modsig_result res;
        memset(&res, 0, sizeof(res));
        rc = kt_modsig_verify(b, n, rings, &res, &e);
        kt_modsig_result_free(&res);
        check_rc("kt_modsig_verify", name, rc, &e);
        break;
    }
    case K_CERT: {
        struct kt_x509 *c = NULL;
        rc = kt_x509_parse(b, n, &c, &e);
        kt_x509_free(c);
        check_rc("kt_x509_parse", name, rc, &e);
        e = (struct kt_error){0};
        rc = kt_certlist_foreach(b, n, ignore_cert, NULL, &e);
        check_rc("kt_certlist_foreach", name, rc, &e);
        break;
    }
    case K_ESL:
        rc = kt_esl_foreach(b, n, ignore_esl, NULL, &e);
        check_rc("kt_esl_foreach", name, rc, &e);
        break;
    case K_PKCS7: {
        struct kt_pkcs7 *m = NULL;
        rc = kt_pkcs7_parse(b, n, &m, &e);
        if (rc == 0) {
            rc = kt_pkcs7_verify(m, NULL, 0, rings, &e);
            if (rc == 0)
                rc = kt_pkcs7_validate_trust(m, rings, KT_VERIFY_PURPOSE_UEFI, &e);
        }
        kt_pkcs7_free(m);
        check_rc("kt_pkcs7", name, rc, &e);
        break;
    }
    }
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* Truncations at `count` spread offsets (and the first 64), and bit flips. */
static void generic_mutations(enum kind k, const char *name, const uint8_t *orig, size_t n,
                              size_t count)
{
    uint8_t *b = malloc(n);
    for (size_t i = 0; i < 64 && i < n; i++)
        run_all(k, name, orig, i);
    for (size_t i = 0; i < count; i++)
        run_all(k, name, orig, (n * i) / count);
    srand(12345);
    for (size_t i = 0; i < count; i++) {
        memcpy(b, orig, n);
        size_t off = (size_t)rand() % n;
        b[off] ^= (uint8_t)(1u << (rand() % 8));
        run_all(k, name, b, n);
    }
    free(b);
}

/* The PE fields an attacker controls, set to the nasty values. */
static void pe_field_mutations(const char *name, const uint8_t *orig, size_t n)
{
    static const uint32_t values[] = {0, 1, 7, 0x7fffffff, 0xffffffff, 0x80000000, 0xfffffff8};
    uint8_t *b = malloc(n);
    uint32_t pe = le32(orig + 0x3c);
    bool plus = orig[pe + 24] == 0x0b && orig[pe + 25] == 0x02;
    size_t opt = pe + 24, dirs = opt + (plus ? 112 : 96);
    size_t nsec_off = pe + 6;
    size_t sec0 = opt + (orig[pe + 20] | orig[pe + 21] << 8);
    uint32_t cert_off = le32(orig + dirs + 32);
    size_t fields[] = {
        0x3c,            /* e_lfanew */
        opt + 60,        /* SizeOfHeaders */
        opt + (plus ? 108 : 92), /* NumberOfRvaAndSizes */
        dirs + 32,       /* certificate table offset */
        dirs + 36,       /* certificate table size */
        sec0 + 16,       /* section 0 SizeOfRawData */
        sec0 + 20,       /* section 0 PointerToRawData */
        sec0 + 8,        /* section 0 VirtualSize */
        cert_off,        /* WIN_CERTIFICATE dwLength */
        cert_off + 4,    /* wRevision + wCertificateType */
    };
    for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
        if (fields[f] + 4 > n)
            continue;
        for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
            memcpy(b, orig, n);
            put32(b + fields[f], values[v]);
            run_all(K_PE, name, b, n);
        }
        /* unaligned and slightly-off lengths */
        for (int delta = -9; delta <= 9; delta += 3) {
            memcpy(b, orig, n);
            put32(b + fields[f], le32(orig + fields[f]) + (uint32_t)delta);
            run_all(K_PE, name, b, n);
        }
    }
    /* NumberOfSections 0 and 0xffff */
    for (unsigned v = 0; v <= 0xffff; v += 0xffff) {
        memcpy(b, orig, n);
        b[nsec_off] = (uint8_t)v, b[nsec_off + 1] = (uint8_t)(v >> 8);
        run_all(K_PE, name, b, n);
    }
    /* section 1 overlapping section 0 */
    memcpy(b, orig, n);
    memcpy(b + sec0 + 40 + 20, b + sec0 + 20, 4);
    run_all(K_PE, name, b, n);
    /* stuffing: bytes appended after the table; table inside a section */
    uint8_t *big = malloc(n + 64);
    memcpy(big, orig, n);
    memset(big + n, 0x41, 64);
    run_all(K_PE, name, big, n + 64);
    free(big);
    memcpy(b, orig, n);
    put32(b + dirs + 32, le32(orig + sec0 + 20));
    run_all(K_PE, name, b, n);
    free(b);
}

static void module_field_mutations(const char *name, const uint8_t *orig, size_t n)
{
    static const uint32_t values[] = {0, 1, 0x7fffffff, 0xffffffff, 12, (uint32_t)-28};
    uint8_t *b = malloc(n);
    size_t tail = n - 28; /* the magic */
    for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
        memcpy(b, orig, n);
        uint32_t x = values[v] == (uint32_t)-28 ? (uint32_t)n : values[v];
        b[tail - 4] = (uint8_t)(x >> 24), b[tail - 3] = (uint8_t)(x >> 16);
        b[tail - 2] = (uint8_t)(x >> 8), b[tail - 1] = (uint8_t)x;
        run_all(K_MODULE, name, b, n);
    }
    for (size_t f = tail - 12; f < tail - 4; f++) { /* algo, hash, id_type, lens, pad */
        memcpy(b, orig, n);
        b[f] = 0xff;
        run_all(K_MODULE, name, b, n);
    }
    free(b);
}

static void esl_field_mutations(const char *name, const uint8_t *orig, size_t n)
{
    static const uint32_t values[] = {0, 1, 28, 0x7fffffff, 0xffffffff, 17};
    uint8_t *b = malloc(n);
    size_t base = 4; /* efivarfs attribute prefix */
    for (size_t f = 16; f <= 24; f += 4)
        for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
            memcpy(b, orig, n);
            put32(b + base + f, values[v]);
            run_all(K_ESL, name, b, n);
        }
    free(b);
}

static uint8_t *load(const char *corpus, const char *rel, size_t *n)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", corpus, rel);
    uint8_t *b = kt_test_slurp(path, n);
    CHECK(b != NULL, "read %s", path);
    return b;
}

/* DER length header for n content bytes */
static size_t der_hdr(uint8_t *out, uint8_t tag, size_t n)
{
    out[0] = tag;
    if (n < 128) {
        out[1] = (uint8_t)n;
        return 2;
    }
    out[1] = 0x84;
    out[2] = (uint8_t)(n >> 24), out[3] = (uint8_t)(n >> 16), out[4] = (uint8_t)(n >> 8), out[5] = (uint8_t)n;
    return 6;
}

/* 10^5 small elements where a parser iterates: parsed whole.  No time
 * bound (one fails on a loaded machine): a quadratic parser shows as
 * ctest's timeout. */
static void scaling(void)
{
    const size_t N = 100000;
    /* a PKCS#7 SignedData whose certificates [0] holds 10^5 empty SEQUENCEs
     * and whose signerInfos SET holds 10^5 empty SEQUENCEs */
    size_t body = N * 2;
    uint8_t *buf = malloc(body * 2 + 256);
    size_t w = 0;
    uint8_t hdr[8];
    /* build inside-out: certs [0] { 30 00 ... }, signerInfos SET { 30 00 ... } */
    uint8_t *elems = malloc(body);
    for (size_t i = 0; i < N; i++)
        elems[2 * i] = 0x30, elems[2 * i + 1] = 0;
    static const uint8_t version[] = {0x02, 0x01, 0x01};
    static const uint8_t digalgs[] = {0x31, 0x00};
    static const uint8_t content[] = {0x30, 0x0b, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01};
    uint8_t certs_hdr[8], si_hdr[8];
    size_t ch = der_hdr(certs_hdr, 0xa0, body), sh = der_hdr(si_hdr, 0x31, body);
    size_t sd_len = sizeof(version) + sizeof(digalgs) + sizeof(content) + ch + body + sh + body;
    uint8_t sd_hdr[8], ex_hdr[8], ci_hdr[8];
    size_t sdh = der_hdr(sd_hdr, 0x30, sd_len);
    size_t exh = der_hdr(ex_hdr, 0xa0, sdh + sd_len);
    static const uint8_t oid_sd[] = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02};
    size_t cih = der_hdr(ci_hdr, 0x30, sizeof(oid_sd) + exh + sdh + sd_len);
#define PUT(p, n) (memcpy(buf + w, (p), (n)), w += (n))
    PUT(ci_hdr, cih);
    PUT(oid_sd, sizeof(oid_sd));
    PUT(ex_hdr, exh);
    PUT(sd_hdr, sdh);
    PUT(version, sizeof(version));
    PUT(digalgs, sizeof(digalgs));
    PUT(content, sizeof(content));
    PUT(certs_hdr, ch);
    PUT(elems, body);
    PUT(si_hdr, sh);
    PUT(elems, body);
#undef PUT
    (void)hdr;
    run_all(K_PKCS7, "pkcs7 with 10^5 certificates and signerInfos", buf, w);

    /* an ESL with 10^5 SHA256 entries: parsed, and linear */
    size_t esz = 16 + 32, list = 28 + N * esz;
    uint8_t *esl = calloc(1, list);
    memcpy(esl, kt_esl_guid_sha256, 16);
    put32(esl + 16, (uint32_t)list);
    put32(esl + 20, 0);
    put32(esl + 24, (uint32_t)esz);
    struct kt_error e = {0};
    size_t seen = 0;
    int rc = kt_esl_foreach(esl, list, count_esl, &seen, &e);
    CHECK(rc == 0 && seen == N, "10^5-entry ESL parses: %d %s, %zu entries", rc, e.what, seen);
    /* and into the blacklist: 10^5 adds stay fast (hash table) */
    struct kt_keyrings *k;
    kt_keyrings_new(&k);
    size_t added = 0;
    memset(&e, 0, sizeof(e));
    for (size_t i = 0; i < N; i++)
        put32(esl + 28 + i * esz + 16, (uint32_t)i); /* distinct hashes */
    rc = kt_keyrings_add_blob(k, kt_keyrings_get(k, "blacklist"), esl, list, "test", KT_ADD_EXPLICIT,
                              &added, &e);
    CHECK(rc == 0 && added == N, "10^5 dbx hashes into the blacklist: rc %d, %zu added (%s)", rc, added, e.what);
    kt_keyrings_free(k);
    free(esl);
    free(elems);
    free(buf);
}

int main(void)
{
    const char *corpus = kt_test_require_corpus();
    kt_keyrings_new(&rings);
    size_t n;
    uint8_t *b;

    b = load(corpus, "debian/modules/crc7.ko", &n);
    if (b) {
        generic_mutations(K_MODULE, "crc7.ko", b, n, 300);
        module_field_mutations("crc7.ko", b, n);
        /* its PKCS#7 alone */
        uint32_t sig_len = (uint32_t)b[n - 32] << 24 | (uint32_t)b[n - 31] << 16 | (uint32_t)b[n - 30] << 8 | b[n - 29];
        if (sig_len < n) {
            const uint8_t *p7 = b + n - 40 - sig_len;
            generic_mutations(K_PKCS7, "crc7.ko signature", p7, sig_len, 300);
        }
        free(b);
    }
    b = load(corpus, "debian/shimx64.efi.signed", &n);
    if (b) {
        generic_mutations(K_PE, "shimx64.efi.signed", b, n, 150);
        pe_field_mutations("shimx64.efi.signed", b, n);
        free(b);
    }
    b = load(corpus, "windows/signtool-electron-windows-sign-1.2.2.exe", &n);
    if (b) {
        pe_field_mutations("signtool.exe", b, n);
        /* the certificate table holds the PKCS#7 with certificates */
        uint32_t pe = le32(b + 0x3c);
        uint32_t co = le32(b + pe + 24 + 112 + 32), cl = le32(b + pe + 24 + 112 + 36);
        if (co + 8 < n && co + cl <= n) {
            const uint8_t *p7 = b + co + 8;
            size_t p7n = cl - 8;
            generic_mutations(K_PKCS7, "signtool PKCS#7", p7, p7n, 300);
            /* the first certificate inside it */
            for (size_t i = 0; i + 4 < p7n; i++)
                if (p7[i] == 0xa0 && p7[i + 1] == 0x82 && p7[i + 4] == 0x30 && p7[i + 5] == 0x82) {
                    size_t cn = kt_x509_element_len(p7 + i + 4, p7n - i - 4);
                    if (cn) {
                        generic_mutations(K_CERT, "signtool signer certificate", p7 + i + 4, cn, 400);
                        run_all(K_CERT, "certificate list of one", p7 + i + 4, cn);
                    }
                    break;
                }
        }
        free(b);
    }
    char dbpath[4096];
    snprintf(dbpath, sizeof(dbpath), "peers/shim-efivars/efivars-0");
    {
        char cmd[8800];
        snprintf(cmd, sizeof(cmd), "ls %s/%s/db-* 2>/dev/null | head -1", corpus, dbpath);
        FILE *p = popen(cmd, "r");
        char line[4096] = "";
        if (p && fgets(line, sizeof(line), p))
            line[strcspn(line, "\n")] = 0;
        if (p)
            pclose(p);
        b = line[0] ? kt_test_slurp(line, &n) : NULL;
        CHECK(b != NULL, "read the efivars-0 db");
        if (b) {
            generic_mutations(K_ESL, "efivars-0 db", b, n, 300);
            esl_field_mutations("efivars-0 db", b, n);
            free(b);
        }
    }
    scaling();
    kt_keyrings_free(rings);
    printf("%zu malformed inputs checked\n", n_cases);
    KT_TEST_END();
}
