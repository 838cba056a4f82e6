/* test_chain_fw.c - the one firmware walk of db and dbx (chain/chain_fw.c)
 * on the corpus's dual-signed Debian shim (signature 0: Microsoft UEFI CA
 * 2011, signature 1: UEFI CA 2023): which db entry accepts it (first
 * signature that checks out, then db's order; the same CA twice under two
 * owners: the first; a db image hash), and which dbx entry denies it (an
 * issuer X509 entry, a TBS hash of a chain certificate, the image hash),
 * each with its variable, index, owner and signature. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain/chain.h"
#include "kt_test.h"
#include "ktrust/esl.h"
#include "pe/pe_verify.h"
#include "policy/verify.h"

static const char *corpus;
static uint8_t *shim;
static size_t shim_len;
static kt_span ca11, ca23;

static const uint8_t owner_a[16] = {0xa}, owner_b[16] = {0xb};

/* One variable made of lists (each malloc'd; concatenated; freed). */
static uint8_t *cat(uint8_t **lists, size_t *lens, size_t n, size_t *len)
{
    size_t t = 0;
    for (size_t i = 0; i < n; i++)
        t += lens[i];
    uint8_t *v = malloc(t ? t : 1), *p = v;
    for (size_t i = 0; i < n; i++) {
        memcpy(p, lists[i], lens[i]);
        p += lens[i];
        free(lists[i]);
    }
    *len = t;
    return v;
}

/* The firmware verdict on shim under db/dbx (either may be NULL). */
static void judge(const uint8_t *db, size_t dbl, const uint8_t *dbx, size_t dbxl,
                  struct kt_chain_link *l)
{
    struct kt_chain *c;
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_chain_new(&c), 0, "kt_chain_new");
    if (db)
        CHECK_EQ_INT(kt_chain_add_db(c, db, dbl, "/x/db-d719b2cb-3d3a-4596-a3bc-dad00e67656f", &e),
                     0, "add db");
    if (dbx)
        CHECK_EQ_INT(kt_chain_add_dbx(c, dbx, dbxl, "dbx.esl", &e), 0, "add dbx");
    CHECK_EQ_INT(kt_chain_judge_firmware(c, shim, shim_len, "shim", l, &e), 0, "judge");
    kt_chain_free(c);
}

static void db_cases(void)
{
    struct kt_chain_link l;
    uint8_t *lists[3];
    size_t lens[3], n;
    /* the same CA twice, under two owners: the first entry */
    kt_esl_build_x509(&ca11, 1, owner_a, &lists[0], &lens[0]);
    kt_esl_build_x509(&ca11, 1, owner_b, &lists[1], &lens[1]);
    uint8_t *db = cat(lists, lens, 2, &n);
    judge(db, n, NULL, 0, &l);
    free(db);
    CHECK_EQ_INT(l.verdict, 0, "CA 2011 twice: boots");
    CHECK_EQ_STR(l.db.var, "db", "db entry: the variable (an efivarfs path labelled by its name)");
    CHECK(l.db.index == 0 && !memcmp(l.db.owner, owner_a, 16), "the first entry, owner A (%zu)",
          l.db.index);
    CHECK(l.db.by == KT_REVOKE_CERT && l.db.sig == 0, "matched as a certificate, signature 0");
    CHECK(strstr(l.db.description, "Microsoft Corporation UEFI CA 2011") != NULL, "named: %s",
          l.db.description);
    CHECK(!strcmp(l.trusted_by, l.db.description), "trusted_by is the db entry's");
    /* db = 2023, 2011: signature 0 (the 2011 one) checks out first; its
     * acceptor is entry 1 */
    kt_esl_build_x509(&ca23, 1, owner_a, &lists[0], &lens[0]);
    kt_esl_build_x509(&ca11, 1, owner_b, &lists[1], &lens[1]);
    db = cat(lists, lens, 2, &n);
    judge(db, n, NULL, 0, &l);
    free(db);
    CHECK(l.verdict == 0 && l.db.index == 1 && l.db.sig == 0 &&
              !memcmp(l.db.owner, owner_b, 16),
          "2023 then 2011: signature 0 by entry 1 (%d, %zu, sig %d)", l.verdict, l.db.index,
          l.db.sig);
    /* db = 2023 alone: signature 1 */
    kt_esl_build_x509(&ca23, 1, owner_a, &lists[0], &lens[0]);
    judge(lists[0], lens[0], NULL, 0, &l);
    free(lists[0]);
    CHECK(l.verdict == 0 && l.db.index == 0 && l.db.sig == 1, "2023 alone: signature 1 (%d)",
          l.db.sig);
    /* an image hash in db, after an unrelated certificate: matched as a hash */
    struct kt_pe_result *r = NULL;
    struct kt_error e = {0};
    struct kt_pe_verify_opts vo = {.purpose = KT_VERIFY_PURPOSE_UEFI};
    kt_pe_verify(shim, shim_len, NULL, &vo, &r, &e);
    CHECK(r && r->n_hashes >= 1, "shim's digests");
    const uint8_t *h256 = NULL;
    for (size_t i = 0; r && i < r->n_hashes; i++)
        if (r->hashes[i] == KT_HASH_SHA256)
            h256 = r->digests[i];
    CHECK(h256 != NULL, "a SHA-256 digest");
    if (h256) {
        static const uint8_t junk[32] = {1};
        const uint8_t *hs[2] = {junk, h256};
        kt_esl_build_hashes(KT_ESL_SHA256, hs, 2, owner_b, &lists[0], &lens[0]);
        judge(lists[0], lens[0], NULL, 0, &l);
        struct kt_chain *c;
        kt_chain_new(&c);
        kt_chain_add_db(c, lists[0], lens[0], "db", &e);
        struct kt_chain_link s;
        kt_chain_shim(c, shim, shim_len, "shim", &s);
        CHECK(s.verdict == 0 && s.keys_added >= 1,
              "shim run by its hash in db: its vendor certificate applies (%d, %zu: %s)",
              s.verdict, s.keys_added, s.reason);
        kt_chain_free(c);
        free(lists[0]);
        CHECK(l.verdict == 0 && l.db.by == KT_REVOKE_IMAGE_HASH && l.db.index == 1 &&
                  l.db.sig == -1 && !strcmp(l.db.alg, "sha256"),
              "db image hash: boots by entry 1 as a hash (%d %d %zu)", l.verdict, (int)l.db.by,
              l.db.index);
    }
    kt_pe_result_free(r);
}

static void dbx_cases(void)
{
    struct kt_chain_link l;
    uint8_t *lists[3], *db, *dbx;
    size_t lens[3], dbl, dbxl;
    kt_esl_build_x509(&ca11, 1, owner_a, &lists[0], &lens[0]);
    kt_esl_build_x509(&ca23, 1, owner_a, &lists[1], &lens[1]);
    db = cat(lists, lens, 2, &dbl);
    /* dbx: CA 2011 (the issuer of signature 0's signer): denies, though
     * signature 1 would be accepted (IsForbiddenByDbx breaks the loop) */
    kt_esl_build_x509(&ca11, 1, owner_b, &dbx, &dbxl);
    judge(db, dbl, dbx, dbxl, &l);
    free(dbx);
    CHECK_EQ_INT(l.verdict, -EKEYREJECTED, "dbx CA 2011: refused");
    CHECK(l.n_dbx == 1 && l.dbx[0].by == KT_REVOKE_CERT && l.dbx[0].sig == 0 &&
              l.dbx[0].index == 0 && !memcmp(l.dbx[0].owner, owner_b, 16) &&
              !strcmp(l.dbx[0].var, "dbx.esl") && l.dbx[0].value_len == 20,
          "dbx entry 0 (certificate, signature 0, owner B): %zu", l.n_dbx);
    CHECK(strstr(l.dbx[0].detail, "certificate Microsoft Corporation UEFI CA 2011") ==
              l.dbx[0].detail, "the CA of signature 0's chain: %s", l.dbx[0].detail);
    /* dbx: CA 2023: signature 1 is forbidden, and that refuses the image
     * although signature 0 is accepted */
    kt_esl_build_x509(&ca23, 1, owner_b, &dbx, &dbxl);
    judge(db, dbl, dbx, dbxl, &l);
    free(dbx);
    CHECK(l.verdict == -EKEYREJECTED && l.n_dbx == 1 && l.dbx[0].sig == 1,
          "dbx CA 2023: signature 1 denied, the image refused (%d, %zu)", l.verdict, l.n_dbx);
    /* dbx: the TBS hash of signature 0's signer, after an unrelated hash */
    struct kt_pe_result *r = NULL;
    struct kt_error e = {0};
    struct kt_pe_verify_opts vo = {.purpose = KT_VERIFY_PURPOSE_UEFI};
    kt_pe_verify(shim, shim_len, NULL, &vo, &r, &e);
    const struct kt_pkcs7_signer *si = r && r->n_sigs ? &r->sigs[0].msg->signers[0] : NULL;
    CHECK(si && si->chain_len >= 1, "signature 0's chain");
    if (si && si->chain_len) {
        static const uint8_t junk[32] = {2};
        const uint8_t *hs[2] = {junk, si->chain[0]->tbs_sha256};
        kt_esl_build_hashes(KT_ESL_X509_SHA256, hs, 2, owner_a, &dbx, &dbxl);
        judge(db, dbl, dbx, dbxl, &l);
        free(dbx);
        CHECK(l.verdict == -EKEYREJECTED && l.n_dbx == 1 && l.dbx[0].by == KT_REVOKE_CERT_TBS &&
                  l.dbx[0].index == 1 && !strcmp(l.dbx[0].alg, "sha256") &&
                  !memcmp(l.dbx[0].value, si->chain[0]->tbs_sha256, 32),
              "dbx TBS hash of the signer: entry 1, sha256 (%zu)", l.n_dbx);
    }
    /* dbx: the image hash */
    for (size_t i = 0; r && i < r->n_hashes; i++)
        if (r->hashes[i] == KT_HASH_SHA256) {
            const uint8_t *hs[1] = {r->digests[i]};
            kt_esl_build_hashes(KT_ESL_SHA256, hs, 1, owner_a, &dbx, &dbxl);
            judge(db, dbl, dbx, dbxl, &l);
            free(dbx);
            CHECK(l.verdict == -EKEYREJECTED && l.n_dbx == 1 &&
                      l.dbx[0].by == KT_REVOKE_IMAGE_HASH && l.dbx[0].sig == -1 &&
                      !memcmp(l.dbx[0].value, r->digests[i], 32),
                  "dbx image hash: denied, no signature named");
            CHECK(strstr(l.dbx[0].detail, "sha256 image hash ") == l.dbx[0].detail, "%s",
                  l.dbx[0].detail);
        }
    /* an unrelated dbx: nothing, and db still names its entry */
    static const uint8_t other[32] = {3};
    const uint8_t *hs[1] = {other};
    kt_esl_build_hashes(KT_ESL_SHA256, hs, 1, owner_a, &dbx, &dbxl);
    judge(db, dbl, dbx, dbxl, &l);
    free(dbx);
    CHECK(l.verdict == 0 && l.n_dbx == 0 && l.db.index == 0, "unrelated dbx: boots");
    kt_pe_result_free(r);
    free(db);
}

int main(void)
{
    corpus = kt_test_require_corpus();
    size_t n11, n23;
    uint8_t *b11 = kt_test_read(corpus, "peers/secureboot-objects/certs/MicCorUEFCA2011_2011-06-27.der", &n11);
    uint8_t *b23 = kt_test_read(corpus, "peers/secureboot-objects/certs/microsoft-uefi-ca-2023.der", &n23);
    shim = kt_test_read(corpus, "debian/shimx64.efi.signed", &shim_len);
    if (!b11 || !b23 || !shim)
        KT_TEST_END();
    ca11 = (kt_span){b11, n11};
    ca23 = (kt_span){b23, n23};
    db_cases();
    dbx_cases();
    free(b11);
    free(b23);
    free(shim);
    KT_TEST_END();
}
