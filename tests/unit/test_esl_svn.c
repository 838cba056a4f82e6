/* test_esl_svn.c - dbx SVN records: recognised only by the SVN owner on an
 * EFI_CERT_SHA256 entry, decoded field by field; GUID text. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "esl/esl.h"
#include "esl/esl_svn.h"
#include "kt_test.h"

struct got {
    struct kt_esl_entry e[4];
    size_t n;
};

static int keep(void *ctx, const struct kt_esl_entry *e)
{
    struct got *g = ctx;
    if (g->n < 4)
        g->e[g->n++] = *e;
    return 0;
}

int main(void)
{
    /* Microsoft's DBXUpdateSVN record for bootmgfw.efi: version 1, GUID
     * 9d132b61-59d5-4388-ab1c-185c3cb2eb92, minor 0, major 9 */
    static const uint8_t rec[32] = {0x01, 0x61, 0x2b, 0x13, 0x9d, 0xd5, 0x59, 0x88, 0x43,
                                    0xab, 0x1c, 0x18, 0x5c, 0x3c, 0xb2, 0xeb, 0x92, 0x02,
                                    0x00, 0x09, 0x00};
    const uint8_t *d[2] = {rec, rec};
    uint8_t *svn_esl = NULL, *hash_esl = NULL;
    size_t svn_len = 0, hash_len = 0;
    CHECK(kt_esl_build_hashes(KT_ESL_SHA256, d, 1, kt_esl_svn_owner, &svn_esl, &svn_len) == 0,
          "build an SVN list");
    CHECK(kt_esl_build_hashes(KT_ESL_SHA256, d + 1, 1, NULL, &hash_esl, &hash_len) == 0,
          "build a hash list");

    struct got g = {0};
    struct kt_error e = {0};
    CHECK(kt_esl_foreach(svn_esl, svn_len, keep, &g, &e) == 0 && g.n == 1, "walk: %s", e.what);
    CHECK(kt_esl_is_svn(&g.e[0]), "SVN owner on a SHA256 entry: an SVN record");
    struct kt_esl_svn s;
    CHECK(kt_esl_svn_parse(&g.e[0], &s) == 0 && s.reserved_zero, "parse");
    CHECK_EQ_INT(s.version, 1, "version");
    CHECK_EQ_INT(s.minor, 2, "minor (u16 LE at 17)");
    CHECK_EQ_INT(s.major, 9, "major (u16 LE at 19)");
    char buf[37];
    CHECK_EQ_STR(kt_guid_str(s.guid, buf), "9d132b61-59d5-4388-ab1c-185c3cb2eb92", "app GUID");
    CHECK_EQ_STR(kt_guid_str(g.e[0].owner, buf), "9d132b6c-59d5-4388-ab1c-185cfcb2eb92",
                 "owner GUID");

    /* the same bytes with another owner: an image hash, not an SVN */
    struct got h = {0};
    CHECK(kt_esl_foreach(hash_esl, hash_len, keep, &h, &e) == 0 && h.n == 1, "walk hash list");
    CHECK(!kt_esl_is_svn(&h.e[0]), "zero owner: not an SVN record");
    CHECK(kt_esl_svn_parse(&h.e[0], &s) == -EINVAL, "parse refuses a non-SVN entry");

    /* a short SVN entry (an X509_SHA256 list is not SHA256: never an SVN) */
    struct kt_esl_entry shortie = g.e[0];
    shortie.data.len = 20;
    CHECK(!kt_esl_is_svn(&shortie) && kt_esl_svn_parse(&shortie, &s) == -EINVAL,
          "a 20-byte record is not an SVN record");
    struct kt_esl_entry other = g.e[0];
    other.type = KT_ESL_X509_SHA256;
    CHECK(!kt_esl_is_svn(&other), "the SVN owner on another type: not an SVN record");
    free(svn_esl);
    free(hash_esl);
    KT_TEST_END();
}
