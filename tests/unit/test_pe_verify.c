/* kt_pe_verify on the corpus: verdicts, per-signature results, the
 * blacklist (image hash and signer certificate), hash policy, purposes. */
#include <stdio.h>
#include <string.h>

#include "kt_test.h"
#include "policy/load.h"
#include "policy/verify.h"
#include "pe/pe_verify.h"
#include "util/file.h"
#include "util/fmt.h"

static const char *corpus;

static int add_cb(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    (void)off;
    struct kt_keyrings *k = ctx;
    int rc = kt_keyring_add(k, kt_keyrings_get(k, "builtin"), der, len, "test", KT_ADD_EXPLICIT,
                            NULL, NULL);
    return rc == -EEXIST ? 0 : rc;
}

static struct kt_keyrings *rings_with(const char *rel)
{
    struct kt_keyrings *k;
    if (kt_keyrings_new(&k) < 0)
        return NULL;
    if (rel) {
        char path[8400];
        snprintf(path, sizeof(path), "%s/%s", corpus, rel);
        struct kt_file f;
        if (kt_file_open(path, &f, NULL) == 0) {
            CHECK(kt_certs_foreach(f.data, f.len, add_cb, k, NULL) == 0, "load %s", rel);
            kt_file_close(&f);
        }
    }
    return k;
}

static int verify(const char *rel, struct kt_keyrings *k, const struct kt_pe_verify_opts *o,
                  struct kt_pe_result **r, struct kt_error *e, struct kt_file *f)
{
    char path[8400];
    snprintf(path, sizeof(path), "%s/%s", corpus, rel);
    memset(e, 0, sizeof(*e));
    *r = NULL;
    if (kt_file_open(path, f, e) < 0)
        return -ENOENT;
    return kt_pe_verify(f->data, f->len, k, o, r, e);
}

int main(void)
{
    corpus = kt_test_require_corpus();
    struct kt_file f;
    struct kt_error e;
    struct kt_pe_result *r;
    struct kt_keyrings *ms11 = rings_with("trust/microsoft-uefi-ca-2011.pem");
    const char *shim = "debian/shimx64.efi.signed";

    /* shim, two entries: the first trusted by the 2011 CA */
    int rc = verify(shim, ms11, NULL, &r, &e, &f);
    CHECK_EQ_INT(rc, 0, "shim trusted by 2011 CA");
    CHECK(r && r->n_sigs == 2, "two signatures");
    if (r && r->n_sigs == 2) {
        CHECK_EQ_INT(r->sigs[0].verdict, 0, "sig 0 trusted");
        CHECK_EQ_INT(r->sigs[1].verdict, -ENOKEY, "sig 1 untrusted");
        CHECK(r->sigs[0].trusted_by && strstr(r->sigs[0].trusted_by->cert->description,
                                              "Microsoft Corporation UEFI CA 2011"),
              "trusted_by 2011");
        CHECK(r->sigs[0].signer && r->sigs[0].chain_len >= 2, "signer and chain");
        CHECK_EQ_INT(r->sigs[0].digest_alg, KT_HASH_SHA256, "sha256");
        CHECK(r->sigs[0].digest_match, "digest matches");
        CHECK_EQ_INT(r->sigs[0].timestamp.kind, KT_PE_TS_RFC3161, "RFC 3161 timestamp");
        CHECK_EQ_INT(r->sigs[0].timestamp.verify_rc, 0, "timestamp verifies");
        CHECK(r->sigs[0].timestamp.time > 1600000000, "timestamp time");
        CHECK(r->sigs[0].timestamp.signer != NULL, "TSA signer");
        /* blacklist the image hash: rejected */
        uint8_t digest[32];
        memcpy(digest, r->sigs[0].image_digest, 32);
        /* and its SHA-384 Authenticode digest, which no signature of shim uses */
        static const enum kt_hash h384[] = {KT_HASH_SHA384};
        uint8_t d384[1][KT_HASH_MAX_SIZE];
        CHECK_EQ_INT(kt_pe_image_digest(r->pe, h384, 1, d384, &e), 0, "shim SHA-384 digest");
        const uint8_t *tbs = r->sigs[0].signer->tbs_sha256;
        uint8_t tbs_copy[32];
        memcpy(tbs_copy, tbs, 32);
        kt_pe_result_free(r);
        kt_file_close(&f);

        struct kt_keyrings *bl = rings_with("trust/microsoft-uefi-ca-2011.pem");
        kt_blacklist_add_hash(bl, "bin", KT_HASH_SHA256, digest, "test");
        rc = verify(shim, bl, NULL, &r, &e, &f);
        CHECK_EQ_INT(rc, -EKEYREJECTED, "blacklisted image hash rejects");
        CHECK(r && r->blacklisted, "blacklisted flag");
        CHECK(strstr(e.what, "blacklisted") != NULL, "reason names the blacklist: %s", e.what);
        kt_pe_result_free(r);
        kt_file_close(&f);
        kt_keyrings_free(bl);

        /* a dbx entry of another algorithm than the signatures' (issue #11
         * item 3): firmware hashes with every algorithm the dbx holds */
        bl = rings_with("trust/microsoft-uefi-ca-2011.pem");
        kt_blacklist_add_hash(bl, "bin", KT_HASH_SHA384, d384[0], "test");
        rc = verify(shim, bl, NULL, &r, &e, &f);
        CHECK_EQ_INT(rc, -EKEYREJECTED, "SHA-384 bin: hash rejects a SHA-256-signed image");
        CHECK(r && r->blacklisted, "blacklisted flag (SHA-384)");
        CHECK(strstr(e.what, "sha384 digest is blacklisted") != NULL, "reason: %s", e.what);
        if (r && r->n_sigs == 2) {
            /* item 10: the rejected signatures still name their signers */
            CHECK_EQ_INT(r->sigs[0].verdict, -EKEYREJECTED, "sig 0 rejected");
            CHECK_EQ_INT(r->sigs[1].verdict, -EKEYREJECTED, "sig 1 rejected");
            const char *d0 = r->sigs[0].signer ? r->sigs[0].signer->description : NULL;
            CHECK(d0 && strstr(d0, "Microsoft Windows UEFI Driver Publisher"),
                  "blacklisted: signer resolved: %s",
                  r->sigs[0].signer ? r->sigs[0].signer->description : "(none)");
            CHECK(r->sigs[1].signer != NULL, "blacklisted: signer 1 resolved");
        }
        kt_pe_result_free(r);
        kt_file_close(&f);
        kt_keyrings_free(bl);
        /* an unrelated SHA-384 entry changes nothing */
        bl = rings_with("trust/microsoft-uefi-ca-2011.pem");
        d384[0][0] ^= 1;
        kt_blacklist_add_hash(bl, "bin", KT_HASH_SHA384, d384[0], "test");
        rc = verify(shim, bl, NULL, &r, &e, &f);
        CHECK_EQ_INT(rc, 0, "another SHA-384 bin: hash: shim still trusted");
        kt_pe_result_free(r);
        kt_file_close(&f);
        kt_keyrings_free(bl);

        bl = rings_with("trust/microsoft-uefi-ca-2011.pem");
        kt_blacklist_add_hash(bl, "tbs", KT_HASH_SHA256, tbs_copy, "test");
        rc = verify(shim, bl, NULL, &r, &e, &f);
        CHECK_EQ_INT(rc, -EKEYREJECTED, "blacklisted signer certificate rejects");
        kt_pe_result_free(r);
        kt_file_close(&f);
        kt_keyrings_free(bl);
    } else {
        kt_pe_result_free(r);
        kt_file_close(&f);
    }

    /* no keyrings at all: untrusted, the purposes agree */
    rc = verify(shim, NULL, NULL, &r, &e, &f);
    CHECK_EQ_INT(rc, -ENOKEY, "shim without keys");
    kt_pe_result_free(r);
    kt_file_close(&f);
    struct kt_pe_verify_opts kexec = {.purpose = KT_VERIFY_PURPOSE_KEXEC};
    rc = verify(shim, ms11, &kexec, &r, &e, &f);
    CHECK_EQ_INT(rc, 0, "shim for kexec");
    kt_pe_result_free(r);
    kt_file_close(&f);

    /* hash policy on the SHA-1 pegoat */
    const char *goat = "peers/uthenticode/64/pegoat-authenticode.exe";
    rc = verify(goat, NULL, NULL, &r, &e, &f);
    CHECK_EQ_INT(rc, -ENOPKG, "SHA-1 refused by default");
    CHECK(strstr(e.what, "SHA-1 image digest refused") != NULL, "says SHA-1: %s", e.what);
    CHECK(strstr(e.what, "--") == NULL, "the library names no option: %s", e.what);
    kt_pe_result_free(r);
    kt_file_close(&f);
    kt_hint_set(KT_HINT_ALLOW_SHA1, " (use --allow-sha1 to accept it)");
    rc = verify(goat, NULL, NULL, &r, &e, &f);
    CHECK(strstr(e.what, "refused (use --allow-sha1 to accept it)") != NULL,
          "the application's hint follows the condition: %s", e.what);
    kt_hint_set(KT_HINT_ALLOW_SHA1, NULL);
    kt_pe_result_free(r);
    kt_file_close(&f);
    struct kt_pe_verify_opts sha1 = {.purpose = KT_VERIFY_PURPOSE_UEFI, .allow_sha1 = true};
    rc = verify(goat, NULL, &sha1, &r, &e, &f);
    CHECK_EQ_INT(rc, -ENOKEY, "SHA-1 allowed: untrusted without keys");
    if (r && r->n_sigs == 1) {
        char hex[41];
        CHECK_EQ_STR(kt_hex(r->sigs[0].image_digest, 20, hex),
                     "2559e91a60953a5e16f9650f5f88953a2cca5425", "uthenticode sha1 digest");
    }
    kt_pe_result_free(r);
    kt_file_close(&f);

    /* nested */
    rc = verify("peers/uthenticode/32/pegoat-authenticode-nested.exe", NULL, &sha1, &r, &e, &f);
    CHECK(r && r->n_sigs == 1 && r->sigs[0].n_nested == 1, "nested signature found");
    if (r && r->n_sigs == 1 && r->sigs[0].n_nested == 1) {
        CHECK(r->sigs[0].nested[0].digest_alg != r->sigs[0].digest_alg, "nested uses another hash");
        CHECK(r->sigs[0].nested[0].digest_match, "nested digest matches");
    }
    kt_pe_result_free(r);
    kt_file_close(&f);

    /* EKU, stuffing, unsigned */
    rc = verify("peers/uthenticode/A_SSLippery_Slope.exe", NULL, &sha1, &r, &e, &f);
    CHECK_EQ_INT(rc, -EKEYREJECTED, "EKU rejected");
    kt_pe_result_free(r);
    kt_file_close(&f);
    rc = verify("peers/uthenticode/YourPhone.exe", NULL, NULL, &r, &e, &f);
    CHECK_EQ_INT(rc, -ELIBBAD, "stuffing malformed");
    CHECK(r == NULL && e.offset != KT_NO_OFFSET, "no result, offset given");
    kt_pe_result_free(r);
    kt_file_close(&f);
    rc = verify("windows/7za-x64-unsigned.exe", ms11, NULL, &r, &e, &f);
    CHECK_EQ_INT(rc, -ENODATA, "unsigned");
    CHECK(r && r->n_sigs == 0, "no signatures");
    kt_pe_result_free(r);
    kt_file_close(&f);
    kt_keyrings_free(ms11);
    KT_TEST_END();
}
