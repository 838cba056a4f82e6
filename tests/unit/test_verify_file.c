/* The verification context (kt_ctx_*) and kt_verify_file: real verdicts on
 * fixtures made with openssl (a detached PKCS#7 paired with its content, a
 * module built around an openssl cms signature, certificates), the store
 * through a writer's commit and rollback, and, when ../shared/corpus is there,
 * Debian's shim and modules.  Attacker cases: tampered content, the wrong
 * keys, a keyring that may not vouch for modules, run-only keys that must
 * not be saved, a forced type. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_test.h"
#include "ktrust/verify.h"
#include "modsig/modsig.h"
#include "util/file.h"
#include "verify/verify_int.h"

static char dir[256];

static const char gen_sh[] =
    "set -e\n"
    "cd \"$1\"\n"
    "q() { \"$@\" >/dev/null 2>&1; }\n"
    "printf 'basicConstraints=critical,CA:TRUE\\nkeyUsage=keyCertSign,digitalSignature\\n"
    "subjectKeyIdentifier=hash\\nauthorityKeyIdentifier=keyid\\n' > ext_ca\n"
    "printf 'basicConstraints=critical,CA:FALSE\\nkeyUsage=digitalSignature\\n"
    "subjectKeyIdentifier=hash\\nauthorityKeyIdentifier=keyid\\n' > ext_leaf\n"
    "q openssl req -x509 -newkey rsa:2048 -nodes -keyout root.key -out root.pem "
    "  -subj '/O=Test Org/CN=Verify Root' -days 3650 -addext 'basicConstraints=critical,CA:TRUE' "
    "  -addext 'keyUsage=keyCertSign,digitalSignature'\n"
    "q openssl req -new -newkey rsa:2048 -nodes -keyout leaf.key -out leaf.csr "
    "  -subj '/O=Test Org/CN=Verify Leaf'\n"
    "q openssl x509 -req -in leaf.csr -CA root.pem -CAkey root.key -set_serial 0x1234 "
    "  -days 365 -out leaf.pem -extfile ext_leaf\n"
    "q openssl req -x509 -newkey rsa:2048 -nodes -keyout stranger.key -out stranger.pem "
    "  -subj '/O=Evil/CN=Stranger' -days 365\n"
    "for f in root leaf stranger; do openssl x509 -in $f.pem -outform DER -out $f.der; done\n"
    /* self-signed module key, as the kernel's build-time key */
    "q openssl req -x509 -newkey rsa:2048 -nodes -keyout mod.key -out mod.pem "
    "  -subj '/O=Test Org/CN=Module Key' -days 365 -addext 'keyUsage=digitalSignature'\n"
    "head -c 5000 /dev/urandom > data.bin\n"
    "q openssl cms -sign -binary -in data.bin -signer root.pem -inkey root.key -md sha256 "
    "  -outform DER -out data.bin.p7s\n"
    "cp data.bin.p7s orphan.p7s\n"
    "printf '\\177ELF module body for the test' > body.bin\n"
    "head -c 3000 /dev/urandom >> body.bin\n"
    "q openssl cms -sign -binary -noattr -nocerts -in body.bin -signer mod.pem -inkey mod.key "
    "  -md sha256 -outform DER -out body.p7\n";

static char *fx(const char *name)
{
    static char paths[8][512];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 512, "%s/%s", dir, name);
    return p;
}

static int write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(p, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

/* body || PKCS#7 || struct module_signature || magic (the kernel's layout) */
static int build_module(const char *body_name, const char *sig_name, const char *out,
                        size_t flip_at)
{
    struct kt_file b, s;
    struct kt_error e = {0};
    if (kt_file_open(fx(body_name), &b, &e) < 0)
        return -1;
    if (kt_file_open(fx(sig_name), &s, &e) < 0) {
        kt_file_close(&b);
        return -1;
    }
    size_t n = b.len + s.len + 12 + KT_MODSIG_MAGIC_LEN;
    uint8_t *m = malloc(n);
    memcpy(m, b.data, b.len);
    memcpy(m + b.len, s.data, s.len);
    uint8_t ms[12] = {0, 0, 2, 0, 0, 0, 0, 0};
    ms[8] = (uint8_t)(s.len >> 24);
    ms[9] = (uint8_t)(s.len >> 16);
    ms[10] = (uint8_t)(s.len >> 8);
    ms[11] = (uint8_t)s.len;
    memcpy(m + b.len + s.len, ms, 12);
    memcpy(m + b.len + s.len + 12, KT_MODSIG_MAGIC, KT_MODSIG_MAGIC_LEN);
    if (flip_at < b.len)
        m[flip_at] ^= 0xff; /* every bit of one byte: never the same byte */
    int rc = write_file(out, m, n);
    free(m);
    kt_file_close(&b);
    kt_file_close(&s);
    return rc;
}

static int copy_flipped(const char *from, const char *to, size_t at)
{
    struct kt_file f;
    struct kt_error e = {0};
    if (kt_file_open(from, &f, &e) < 0)
        return -1;
    uint8_t *p = malloc(f.len);
    memcpy(p, f.data, f.len);
    if (at < f.len)
        p[at] ^= 0xff;
    int rc = write_file(to, p, f.len);
    free(p);
    kt_file_close(&f);
    return rc;
}

/* A context trusting these files for this run (no store). */
static struct kt_ctx *ctx_trusting(const char *a, const char *b)
{
    struct kt_ctx_trust t[2] = {{a, NULL}, {b, NULL}};
    struct kt_ctx_opts o = {.store_mode = KT_CTX_STORE_NONE, .trust = t,
                            .n_trust = (size_t)(a != NULL) + (b != NULL)};
    struct kt_ctx *ctx = NULL;
    struct kt_error e = {0};
    int rc = kt_ctx_open(&o, &ctx, NULL, &e);
    CHECK(rc == 0 && ctx, "kt_ctx_open(trust %s): %d %s", a ? a : "-", rc, e.what);
    return ctx;
}

/* Verify path under pol; returns the verdict, checks the result's shape. */
static int verify(const struct kt_ctx *ctx, const char *path, const struct kt_policy *pol,
                  const char *want_type, size_t *n_signers)
{
    struct kt_result *r = NULL;
    struct kt_error e = {0};
    int rc = kt_verify_file(ctx, path, pol, &r, &e);
    CHECK(r != NULL, "%s: a result", path);
    if (!r)
        return rc;
    CHECK_EQ_INT(kt_result_rc(r), rc, "result rc is the return");
    CHECK(kt_result_verdict(r) == kt_verdict_of(rc), "%s: verdict", path);
    if (rc == 0)
        CHECK(kt_result_error(r)->what[0] == 0, "%s: trusted without a reason", path);
    else
        CHECK(kt_result_error(r)->what[0] != 0, "%s: a reason when not trusted", path);
    if (want_type)
        CHECK_EQ_STR(kt_result_type(r), want_type, path);
    if (n_signers)
        *n_signers = kt_result_signer_count(r);
    /* a trusted file has a top-level signer some trusted key vouched for */
    if (rc == 0 && kt_result_signer_count(r) > 0) {
        bool any = false;
        for (size_t i = 0; i < kt_result_signer_count(r); i++)
            any |= kt_result_signer_rc(r, i) == 0 && kt_result_signer_trusted_by(r, i);
        CHECK(any, "%s: trusted, so a signer is vouched for", path);
    }
    kt_result_free(r);
    return rc;
}

static void test_pkcs7_pairing(void)
{
    struct kt_policy scan = {.pair_detached = true};
    struct kt_ctx *root = ctx_trusting(fx("root.pem"), NULL);
    struct kt_ctx *stranger = ctx_trusting(fx("stranger.pem"), NULL);
    size_t n = 0;
    if (!root || !stranger)
        goto out;
    /* FILE.p7s is checked against FILE */
    CHECK_EQ_INT(verify(root, fx("data.bin.p7s"), &scan, "pkcs7", &n), 0, "paired, root trusted");
    CHECK_EQ_INT(n, 1, "one signer");
    /* attacker: the wrong keys */
    CHECK_EQ_INT(verify(stranger, fx("data.bin.p7s"), &scan, "pkcs7", NULL), -ENOKEY,
                 "paired, only a stranger trusted");
    /* attacker: FILE changed after signing */
    CHECK(copy_flipped(fx("data.bin"), fx("tampered.bin"), 1000) == 0 &&
              copy_flipped(fx("data.bin.p7s"), fx("tampered.bin.p7s"), (size_t)-1) == 0,
          "tampered copies");
    int rc = verify(root, fx("tampered.bin.p7s"), &scan, "pkcs7", NULL);
    CHECK(rc < 0 && kt_verdict_of(rc) != KT_TRUSTED, "tampered content not trusted: %d", rc);
    /* a detached signature without its content is not trusted */
    rc = verify(root, fx("orphan.p7s"), &scan, "pkcs7", NULL);
    CHECK(rc < 0, "no content to check: %d", rc);
    /* no pairing asked for: the same as an orphan */
    struct kt_policy single = {.type = KT_VERIFY_PKCS7};
    CHECK(verify(root, fx("data.bin.p7s"), &single, "pkcs7", NULL) < 0, "unpaired not trusted");
    /* the content given as a buffer (verify-pkcs7 --data) */
    struct kt_file d;
    struct kt_error e = {0};
    if (kt_file_open(fx("data.bin"), &d, &e) == 0) {
        single.has_detached = true;
        single.detached = d.data;
        single.detached_len = d.len;
        CHECK_EQ_INT(verify(root, fx("orphan.p7s"), &single, "pkcs7", NULL), 0, "--data");
        kt_file_close(&d);
    }
out:
    kt_ctx_free(root);
    kt_ctx_free(stranger);
}

static void test_module(void)
{
    struct kt_policy pol = {0};
    struct kt_ctx *mod = ctx_trusting(fx("mod.pem"), NULL);
    struct kt_ctx *root = ctx_trusting(fx("root.pem"), NULL);
    if (!mod || !root)
        goto out;
    CHECK(build_module("body.bin", "body.p7", fx("good.ko"), (size_t)-1) == 0, "good.ko");
    CHECK(build_module("body.bin", "body.p7", fx("bad.ko"), 100) == 0, "bad.ko");
    struct kt_result *r = NULL;
    struct kt_error e = {0};
    int rc = kt_verify_file(mod, fx("good.ko"), &pol, &r, &e);
    CHECK_EQ_INT(rc, 0, "module signed by a trusted key");
    if (r) {
        CHECK_EQ_STR(kt_result_type(r), "module", "detected as a module");
        CHECK_EQ_STR(r->compression, "none", "compression");
        CHECK_EQ_INT(kt_result_signer_count(r), 1, "one signer");
        CHECK(kt_result_signer_trusted_by(r, 0) &&
                  strstr(kt_result_signer_trusted_by(r, 0), "Module Key"),
              "vouched for by the module key: %s", kt_t_s(kt_result_signer_trusted_by(r, 0)));
    }
    kt_result_free(r);
    /* attacker: the body changed, the signature kept */
    rc = verify(mod, fx("bad.ko"), &pol, "module", NULL);
    CHECK_EQ_INT(rc, -EKEYREJECTED, "tampered module rejected");
    /* attacker: signed, but not by a key this run trusts */
    CHECK_EQ_INT(verify(root, fx("good.ko"), &pol, "module", NULL), -ENOKEY, "wrong key");
    /* the buffer entry point gives the same answer */
    struct kt_file f;
    if (kt_file_open(fx("good.ko"), &f, &e) == 0) {
        rc = kt_verify_buf(mod, "good.ko", f.data, f.len, &pol, &r, &e);
        CHECK_EQ_INT(rc, 0, "kt_verify_buf");
        kt_result_free(r);
        /* forced to be read as a PE (verify-pe on a module): never trusted */
        struct kt_policy pe = {.type = KT_VERIFY_PE};
        rc = kt_verify_buf(mod, "good.ko", f.data, f.len, &pe, &r, &e);
        CHECK(rc < 0, "a module read as a PE is not trusted: %d", rc);
        CHECK(!r || kt_t_streq(kt_result_type(r), "pe"), "typed as asked");
        kt_result_free(r);
        kt_file_close(&f);
    }
out:
    kt_ctx_free(mod);
    kt_ctx_free(root);
}

static void test_certs_and_kinds(void)
{
    struct kt_policy pol = {0};
    struct kt_ctx *root = ctx_trusting(fx("root.pem"), NULL);
    if (!root)
        return;
    CHECK_EQ_INT(verify(root, fx("leaf.der"), &pol, "x509", NULL), 0, "leaf under a trusted root");
    CHECK_EQ_INT(verify(root, fx("stranger.der"), &pol, "x509", NULL), -ENOKEY,
                 "a stranger's self-signed certificate");
    /* a list: the worst certificate decides */
    FILE *f = fopen(fx("mixed.pem"), "w");
    struct kt_file a, b;
    struct kt_error e = {0};
    if (f && kt_file_open(fx("leaf.pem"), &a, &e) == 0) {
        if (kt_file_open(fx("stranger.pem"), &b, &e) == 0) {
            fwrite(a.data, 1, a.len, f);
            fwrite(b.data, 1, b.len, f);
            kt_file_close(&b);
        }
        kt_file_close(&a);
    }
    if (f)
        fclose(f);
    struct kt_result *r = NULL;
    int rc = kt_verify_file(root, fx("mixed.pem"), &pol, &r, &e);
    CHECK_EQ_INT(rc, -ENOKEY, "one untrusted certificate in the list");
    if (r) {
        CHECK_EQ_INT(r->n_certs, 2, "two certificates");
        CHECK_EQ_INT(r->n_trusted, 1, "one trusted");
    }
    kt_result_free(r);
    /* nothing ktrust verifies: skipped, never trusted */
    CHECK(write_file(fx("notes.txt"), (const uint8_t *)"hello\n", 6) == 0, "notes.txt");
    rc = kt_verify_file(root, fx("notes.txt"), &pol, &r, &e);
    CHECK(r && kt_result_skipped(r) && rc < 0, "plain text skipped: %d", rc);
    kt_result_free(r);
    /* unreadable: no result, the errno */
    rc = kt_verify_file(root, fx("does-not-exist"), &pol, &r, &e);
    CHECK(rc == -ENOENT && r == NULL, "missing file: %d", rc);
    kt_ctx_free(root);
}

static int open_ctx(enum kt_ctx_store_mode mode, const char *store, const char *trust,
                    const char *vouch, struct kt_ctx **ctx, const char **bad,
                    struct kt_error *e)
{
    struct kt_ctx_trust t = {trust, NULL};
    const char *v[1] = {vouch};
    struct kt_ctx_opts o = {.store_mode = mode, .store_path = store, .trust = trust ? &t : NULL,
                            .n_trust = trust ? 1 : 0, .vouch = v, .n_vouch = vouch ? 1 : 0};
    memset(e, 0, sizeof(*e));
    return kt_ctx_open(&o, ctx, bad, e);
}

static void test_store(void)
{
    const char *store = fx("keys.db");
    char store_path[512];
    snprintf(store_path, sizeof(store_path), "%s", store);
    struct kt_ctx *ctx = NULL;
    struct kt_error e;
    const char *bad = "unset";
    struct kt_policy pol = {0};

    /* a named store that does not exist: -ENOENT, not empty keyrings */
    int rc = open_ctx(KT_CTX_STORE_READ, store_path, NULL, NULL, &ctx, &bad, &e);
    CHECK(rc == -ENOENT && !ctx && bad == NULL, "missing store: %d %s", rc, e.what);
    /* a directory is no store: the store is at fault */
    rc = open_ctx(KT_CTX_STORE_READ, dir, NULL, NULL, &ctx, &bad, &e);
    CHECK(rc < 0 && !ctx && bad && !strcmp(bad, dir), "a directory as store: %d", rc);

    /* writer: the module key into platform (firmware keys: never modules),
     * and a run-only --trust key that must not be saved */
    rc = open_ctx(KT_CTX_STORE_WRITE, store_path, fx("mod.pem"), NULL, &ctx, &bad, &e);
    CHECK(rc == 0 && ctx, "writer: %d %s", rc, e.what);
    if (!ctx)
        return;
    struct kt_keyrings *k = kt_ctx_keyrings(ctx);
    rc = kt_ctx_add_key_file(k, kt_keyrings_get(k, "platform"), fx("mod.pem"), KT_ADD_EXPLICIT,
                             false, NULL, &e);
    CHECK_EQ_INT(rc, 0, "add to platform");
    CHECK_EQ_INT(kt_ctx_commit(ctx, &e), 0, "commit");
    kt_ctx_free(ctx);

    rc = open_ctx(KT_CTX_STORE_READ, store_path, NULL, NULL, &ctx, &bad, &e);
    CHECK(rc == 0 && ctx, "reader: %d %s", rc, e.what);
    if (ctx) {
        /* a platform key does not vouch for a module, and the run-only
         * builtin key of the writer was not saved */
        CHECK_EQ_INT(verify(ctx, fx("good.ko"), &pol, "module", NULL), -ENOKEY,
                     "platform never vouches for modules");
        kt_ctx_free(ctx);
    }
    /* --keyring platform: it vouches for this run */
    rc = open_ctx(KT_CTX_STORE_READ, store_path, NULL, "platform", &ctx, &bad, &e);
    CHECK(rc == 0 && ctx, "reader with a voucher: %d %s", rc, e.what);
    if (ctx) {
        CHECK_EQ_INT(verify(ctx, fx("good.ko"), &pol, "module", NULL), 0, "--keyring platform");
        kt_ctx_free(ctx);
    }
    rc = open_ctx(KT_CTX_STORE_READ, store_path, NULL, "blacklist", &ctx, &bad, &e);
    CHECK(rc == -ESRCH && !ctx, "the blacklist never vouches: %d", rc);
    rc = open_ctx(KT_CTX_STORE_READ, store_path, NULL, "nosuch", &ctx, &bad, &e);
    CHECK(rc == -ESRCH && !ctx, "no such keyring: %d", rc);

    /* a writer's rollback keeps nothing */
    rc = open_ctx(KT_CTX_STORE_WRITE, store_path, NULL, NULL, &ctx, &bad, &e);
    CHECK(rc == 0 && ctx, "second writer: %d %s", rc, e.what);
    if (ctx) {
        k = kt_ctx_keyrings(ctx);
        rc = kt_ctx_add_key_file(k, kt_keyrings_get(k, "builtin"), fx("mod.pem"),
                                 KT_ADD_EXPLICIT, false, NULL, &e);
        CHECK_EQ_INT(rc, 0, "add to builtin");
        kt_ctx_rollback(ctx);
        kt_ctx_free(ctx);
    }
    rc = open_ctx(KT_CTX_STORE_READ, store_path, NULL, NULL, &ctx, &bad, &e);
    if (ctx) {
        CHECK_EQ_INT(verify(ctx, fx("good.ko"), &pol, "module", NULL), -ENOKEY,
                     "rolled back: builtin still empty");
        kt_ctx_free(ctx);
    }

    /* a --trust file of the wrong kind is a usage error, not a verdict; the
     * library names it by its own word (the CLI registers "--trust") */
    rc = open_ctx(KT_CTX_STORE_NONE, NULL, fx("good.ko"), NULL, &ctx, &bad, &e);
    CHECK(rc == -EMEDIUMTYPE && !ctx && !strncmp(e.what, "trust file ", 11) &&
              strstr(e.what, ": a kernel module, not certificates"),
          "module as --trust: %d %s", rc, e.what);
}

static void test_time(void)
{
    int64_t t = 0;
    CHECK(kt_parse_time("2026-12-02T22:14:16Z", &t) == 0 && t == 1796249656,
          "ISO time: %lld", (long long)t);
    CHECK(kt_parse_time("2026-12-02", &t) == 0 && t == 1796169600, "date: %lld", (long long)t);
    CHECK_EQ_INT(kt_parse_time("2026-13-02", &t), -EINVAL, "month 13");
    CHECK_EQ_INT(kt_parse_time("yesterday", &t), -EINVAL, "words");
    CHECK_EQ_INT(kt_parse_time("2026-12-02T22:14:16+01", &t), -EINVAL, "not UTC");
}

/* Real binaries: Debian's shim (Microsoft-signed) and a module (signed by
 * the kernel's build-time key). */
/* kt_sbat_level_open: a level that revokes shim's own SBAT generation
 * turns a trusted shim into a rejected one; shim's original level does not;
 * a bad SPEC is an error with no handle. */
static void test_sbat_level(const struct kt_ctx *msctx, const char *shim)
{
    struct kt_error e = {0};
    struct kt_sbat_level *lvl = NULL;
    struct kt_policy pol = {0};
    int rc = kt_sbat_level_open("original", &lvl, &e);
    CHECK(rc == 0, "level original: %d %s", rc, e.what);
    pol.sbat_level = lvl;
    CHECK_EQ_INT(verify(msctx, shim, &pol, "pe", NULL), 0, "shim passes the original level");
    kt_sbat_level_close(lvl);
    FILE *f = fopen(fx("level.txt"), "w");
    CHECK(f != NULL, "level file");
    if (!f)
        return;
    fputs("sbat,1,2099010100\nshim,99\n", f);
    fclose(f);
    rc = kt_sbat_level_open(fx("level.txt"), &lvl, &e);
    CHECK(rc == 0, "level file: %d %s", rc, e.what);
    pol.sbat_level = lvl;
    CHECK_EQ_INT(verify(msctx, shim, &pol, "pe", NULL), -EKEYREJECTED,
                 "shim revoked by a level with shim,99");
    kt_sbat_level_close(lvl);
    lvl = (struct kt_sbat_level *)&e; /* must be reset on failure */
    CHECK_EQ_INT(kt_sbat_level_open(fx("no-such-level"), &lvl, &e), -ENOENT, "a missing level file");
    CHECK(lvl == NULL && e.what[0], "no handle, a reason: %s", e.what);
    kt_sbat_level_close(NULL);
}

static void test_corpus(const char *corpus)
{
    char shim[4200], ms[4200], ko[4200], kernel[4200], bad[600];
    snprintf(shim, sizeof(shim), "%s/debian/shimx64.efi.signed", corpus);
    snprintf(ms, sizeof(ms), "%s/trust/microsoft-uefi-ca-2011.pem", corpus);
    snprintf(ko, sizeof(ko), "%s/debian/modules/arc-rawmode.ko", corpus);
    snprintf(kernel, sizeof(kernel), "%s/debian/vmlinuz-6.1.0-57-amd64", corpus);
    struct kt_policy pol = {0};
    struct kt_ctx *msctx = ctx_trusting(ms, NULL);
    if (msctx) {
        CHECK_EQ_INT(verify(msctx, shim, &pol, "pe", NULL), 0, "shim under the MS 2011 CA");
        snprintf(bad, sizeof(bad), "%s", fx("shim-tampered.efi"));
        CHECK(copy_flipped(shim, bad, 0x2000) == 0, "tampered shim");
        int rc = verify(msctx, bad, &pol, "pe", NULL);
        CHECK(rc < 0, "tampered shim not trusted: %d", rc);
        CHECK_EQ_INT(verify(msctx, ko, &pol, "module", NULL), -ENOKEY,
                     "a Microsoft CA does not vouch for a Debian module");
        test_sbat_level(msctx, shim);
        kt_ctx_free(msctx);
    }
    struct kt_ctx *none = ctx_trusting(NULL, NULL);
    if (none) {
        CHECK_EQ_INT(verify(none, shim, &pol, "pe", NULL), -ENOKEY, "shim, nothing trusted");
        kt_ctx_free(none);
    }
    struct kt_ctx_opts o = {.kernel = kernel};
    struct kt_ctx *kctx = NULL;
    struct kt_error e = {0};
    int rc = kt_ctx_open(&o, &kctx, NULL, &e);
    CHECK(rc == 0, "--kernel: %d %s", rc, e.what);
    if (kctx) {
        CHECK_EQ_INT(verify(kctx, ko, &pol, "module", NULL), 0, "module under its kernel's key");
        snprintf(bad, sizeof(bad), "%s", fx("tampered.ko"));
        CHECK(copy_flipped(ko, bad, 64) == 0, "tampered module");
        CHECK_EQ_INT(verify(kctx, bad, &pol, "module", NULL), -EKEYREJECTED, "tampered module");
        kt_ctx_free(kctx);
    }
}

static int count_entry(void *arg, const struct kt_var_entry *e)
{
    size_t *n = arg;
    if (e->x509 && e->owner[8] == '-')
        (*n)++;
    return 0;
}

/* A signed variable update through the verdict engine: forced type, AUTO
 * with a variable named, the PK/KEK rule, the details. */
static void test_var(void)
{
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "python3 '%s/tests/fixtures/gen_authvar.py' '%s' >/dev/null 2>&1",
             getenv("KT_SRC") ? getenv("KT_SRC") : ".", dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "gen_authvar.py failed (python3-cryptography?): signed variables skipped\n");
        return;
    }
    struct kt_var_keys *keys = NULL;
    CHECK_EQ_INT(kt_var_keys_new(&keys), 0, "kt_var_keys_new");
    struct kt_file kek;
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_file_open(fx("kekca.der"), &kek, &e), 0, "kekca.der");
    CHECK_EQ_INT(kt_var_keys_add(keys, true, kek.data, kek.len, &e), 0, "the KEK");
    kt_file_close(&kek);
    CHECK(kt_var_name_known("db") && kt_var_name_known("PK") && !kt_var_name_known("Boot0000") &&
              !kt_var_name_known(NULL),
          "kt_var_name_known");

    struct kt_policy pol = {.type = KT_VERIFY_VAR, .var_name = "db", .var_keys = keys};
    struct kt_result *r = NULL;
    CHECK_EQ_INT(kt_verify_file(NULL, fx("db-append.auth"), &pol, &r, &e), 0, "db append: trusted");
    if (r) {
        CHECK_EQ_STR(kt_result_type(r), "variable", "type");
        const struct kt_var_update *u = kt_result_var(r);
        CHECK(u && u->parsed && u->append && u->attributes == 0x67, "append write");
        CHECK(u && !strcmp(u->name, "db"), "the variable");
        size_t n = 0;
        CHECK_EQ_INT(kt_result_var_entries(r, count_entry, &n), 0, "entries");
        CHECK(u && n == u->n_x509 && n > 0, "every X509 entry listed (%zu)", n);
        size_t ns = 0;
        const struct kt_signer *sg = kt_result_signers(r, &ns);
        CHECK(ns >= 1 && sg[0].verdict == 0 && sg[0].trusted_by, "the signer, vouched for");
        uint8_t *b = NULL;
        size_t bl = 0;
        CHECK_EQ_INT(kt_result_var_signed(r, &b, &bl), 0, "the signed bytes");
        CHECK(bl > 4 && b[0] == 'd' && b[1] == 0 && b[2] == 'b', "... start with the name");
        free(b);
        kt_result_free(r);
    }
    /* AUTO finds the update only when the policy names a variable */
    pol.type = KT_VERIFY_AUTO;
    CHECK_EQ_INT(kt_verify_file(NULL, fx("db-append.auth"), &pol, &r, &e), 0, "AUTO + var_name");
    if (r) {
        CHECK(kt_result_var(r) != NULL, "AUTO: a variable");
        kt_result_free(r);
    }
    /* no keys: untrusted; a variable without signed updates: refused */
    struct kt_policy none = {.type = KT_VERIFY_VAR, .var_name = "db"};
    CHECK_EQ_INT(kt_verify_file(NULL, fx("db-append.auth"), &none, &r, &e), -ENOKEY, "no keys");
    kt_result_free(r);
    none.var_name = "Boot0000";
    CHECK_EQ_INT(kt_verify_file(NULL, fx("db-append.auth"), &none, &r, &e), -EINVAL,
                 "not a signed-update variable");
    kt_result_free(r);
    /* not an update at all: the parse's answer, no details */
    CHECK(kt_verify_file(NULL, fx("kekca.der"), &pol, &r, &e) < 0 || !kt_result_var(r),
          "a certificate under AUTO + var_name is no variable");
    kt_result_free(r);
    pol.type = KT_VERIFY_VAR;
    CHECK(kt_verify_file(NULL, fx("kekca.der"), &pol, &r, &e) < 0, "a certificate as a variable");
    CHECK(r && kt_result_var(r) && !kt_result_var(r)->parsed, "... not parsed");
    kt_result_free(r);
    kt_var_keys_free(keys);
}

int main(void)
{
    snprintf(dir, sizeof(dir), "%s/kt-verify.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char script[512], cmd[1200];
    snprintf(script, sizeof(script), "%s/gen.sh", dir);
    FILE *f = fopen(script, "w");
    if (!f)
        return 1;
    fputs(gen_sh, f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "bash %s %s", script, dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "fixture generation failed\n");
        return 1;
    }
    test_pkcs7_pairing();
    test_module();
    test_certs_and_kinds();
    test_store();
    test_time();
    test_var();
    const char *corpus = kt_test_corpus();
    if (corpus)
        test_corpus(corpus);
    else if (getenv("CI"))
        CHECK(0, "corpus not found (CI)");
    else
        fprintf(stderr, "corpus not found: its part skipped\n");
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 1;
    KT_TEST_END();
}
