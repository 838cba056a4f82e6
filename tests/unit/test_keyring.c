/* test_keyring.c - keyring restrictions, trust lookups, ids, blacklist and
 * blob sources, on certificates generated with openssl.
 *
 * Fixtures (in a temp dir): root (self-signed CA), inter (signed by root,
 * AKID keyid), leaf (signed by inter), noakid (signed by root, no AKID), isn
 * (signed by root, AKID issuer+serial only), stranger (self-signed), schild
 * (signed by stranger), badsig (inter with its signature corrupted).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "esl/esl.h"
#include "policy/keyrings.h"
#include "policy/load.h"
#include "kt_test.h"
#include "policy/export.h"
#include "x509/x509.h"
#include "util/fmt.h"

static char dir[256];

static const char gen_sh[] =
    "set -e\n"
    "cd \"$1\"\n"
    "q() { \"$@\" >/dev/null 2>&1; }\n"
    "q openssl req -x509 -newkey rsa:2048 -nodes -keyout root.key -out root.pem "
    "  -subj '/O=Test Org/CN=Test Root CA' -days 3650 -addext 'basicConstraints=critical,CA:TRUE'\n"
    "printf 'basicConstraints=CA:TRUE\\nsubjectKeyIdentifier=hash\\nauthorityKeyIdentifier=keyid\\n' > ext_keyid\n"
    "printf 'basicConstraints=CA:FALSE\\nsubjectKeyIdentifier=hash\\nauthorityKeyIdentifier=none\\n' > ext_none\n"
    "printf 'basicConstraints=CA:FALSE\\nsubjectKeyIdentifier=hash\\nauthorityKeyIdentifier=issuer:always\\n' > ext_isn\n"
    "sign() {\n"
    "  q openssl req -new -newkey rsa:2048 -nodes -keyout $1.key -out $1.csr -subj \"$2\"\n"
    "  q openssl x509 -req -in $1.csr -CA $3.pem -CAkey $3.key -set_serial 0x$(openssl rand -hex 8) "
    "    -days 365 -out $1.pem -extfile $4\n"
    "}\n"
    "sign inter '/O=Test Org/CN=Test Intermediate' root ext_keyid\n"
    "sign leaf '/O=Test Org/CN=Test Leaf Signer' inter ext_keyid\n"
    "sign noakid '/O=Test Org/CN=Test No AKID' root ext_none\n"
    "sign isn '/O=Test Org/CN=Test Issuer Serial' root ext_isn\n"
    "q openssl req -x509 -newkey rsa:2048 -nodes -keyout stranger.key -out stranger.pem "
    "  -subj '/O=Evil/CN=Stranger' -days 365\n"
    "sign schild '/O=Evil/CN=Stranger Child' stranger ext_keyid\n"
    "q openssl req -x509 -newkey rsa:2048 -nodes -keyout look.key -out look.pem "
    "  -subj '/O=Test Org/CN=Test Root CA' -days 3650 -addext 'basicConstraints=critical,CA:TRUE'\n"
    "for f in root inter leaf noakid isn stranger schild look; do openssl x509 -in $f.pem -outform DER -out $f.der; done\n"
    "cp inter.der badsig.der\n"
    "n=$(stat -c %s badsig.der)\n"
    "b=$(od -An -tu1 -j $((n-1)) -N1 badsig.der | tr -d ' ')\n"
    "printf \"$(printf '\\\\%03o' $(( b ^ 1 )))\" | dd of=badsig.der bs=1 seek=$((n-1)) conv=notrunc 2>/dev/null\n"
    "cat root.pem inter.pem > bundle.pem\n"
    "cat root.der inter.der leaf.der > list.der\n"
    "cert-to-efi-sig-list stranger.pem stranger.esl >/dev/null 2>&1 || true\n";

struct blob {
    uint8_t *p;
    size_t n;
};
enum { ROOT, INTER, LEAF, NOAKID, ISN, STRANGER, SCHILD, BADSIG, LOOK, N_CERT };
static const char *const names[N_CERT] = {"root",     "inter",    "leaf",   "noakid", "isn",
                                          "stranger", "schild",   "badsig", "look"};
static struct blob certs[N_CERT];

static struct blob load(const char *name)
{
    char path[512];
    struct blob b = {0};
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    b.p = kt_test_slurp(path, &b.n);
    return b;
}

static int add(struct kt_keyrings *k, const char *ring, int cert, enum kt_add_how how,
               const struct kt_key **out, struct kt_error *e)
{
    memset(e, 0, sizeof(*e));
    e->offset = KT_NO_OFFSET;
    return kt_keyring_add(k, kt_keyrings_get(k, ring), certs[cert].p, certs[cert].n,
                          names[cert], how, out, e);
}

/* A fresh set with root in builtin (compiled in). */
static struct kt_keyrings *fresh(void)
{
    struct kt_keyrings *k;
    struct kt_error e;
    if (kt_keyrings_new(&k) < 0)
        return NULL;
    if (add(k, "builtin", ROOT, KT_ADD_EXPLICIT, NULL, &e) < 0)
        fprintf(stderr, "fresh: root: %s\n", e.what);
    return k;
}

struct pre {
    const char *ring;
    int cert;
};

struct rcase {
    const char *name;
    struct pre pre[2];
    const char *create; /* user keyring "name=restriction" made first */
    const char *ring;
    int cert;
    enum kt_add_how how;
    int want_rc;
    int want_trusted;   /* -1: n/a */
    const char *detail; /* substring of the error detail */
};

static const struct rcase rcases[] = {
    {"builtin: explicit = compiled in", {{0}}, NULL, "builtin", STRANGER, KT_ADD_EXPLICIT, 0, 1, NULL},
    {"builtin: vouched (PE-wrapped)", {{0}}, NULL, "builtin", STRANGER, KT_ADD_VOUCHED, 0, 1, NULL},
    {"secondary: signed by builtin root (AKID keyid)", {{0}}, NULL, "secondary", INTER, KT_ADD_EXPLICIT, 0, 1, NULL},
    {"secondary: AKID issuer+serial", {{0}}, NULL, "secondary", ISN, KT_ADD_EXPLICIT, 0, 1, NULL},
    {"secondary: signer not present", {{0}}, NULL, "secondary", LEAF, KT_ADD_EXPLICIT, -EPERM, -1, "no key in"},
    {"secondary: signer in secondary", {{"secondary", INTER}}, NULL, "secondary", LEAF, KT_ADD_EXPLICIT, 0, 1, NULL},
    {"secondary: signer in machine (linked into secondary)", {{"machine", INTER}}, NULL, "secondary", LEAF, KT_ADD_EXPLICIT, 0, 1, NULL},
    {"secondary: signer only in platform", {{"platform", INTER}}, NULL, "secondary", LEAF, KT_ADD_EXPLICIT, -EPERM, -1, "no key in"},
    /* restrict_link_by_signature looks a certificate without an AKID up by
     * its issuer name (id2): the live kernel accepts it */
    {"secondary: no AKID, issuer name and signature match", {{0}}, NULL, "secondary", NOAKID, KT_ADD_EXPLICIT, 0, 1, NULL},
    {"user signed-by:secondary: no AKID, issuer only in builtin", {{0}}, "u=signed-by:secondary", "u", NOAKID, KT_ADD_EXPLICIT, -EPERM, -1, "no AKID; issuer"},
    {"secondary: self-signed stranger", {{0}}, NULL, "secondary", STRANGER, KT_ADD_EXPLICIT, -EPERM, -1, "no key in"},
    {"secondary: stranger's child, stranger in platform", {{"platform", STRANGER}}, NULL, "secondary", SCHILD, KT_ADD_EXPLICIT, -EPERM, -1, NULL},
    {"secondary: bad signature", {{0}}, NULL, "secondary", BADSIG, KT_ADD_EXPLICIT, -EPERM, -1, "no key in"},
    {"secondary: vouched stranger", {{0}}, NULL, "secondary", STRANGER, KT_ADD_VOUCHED, 0, 1, NULL},
    {"platform: explicit is trusted", {{0}}, NULL, "platform", STRANGER, KT_ADD_EXPLICIT, 0, 1, NULL},
    {"machine: explicit is trusted", {{0}}, NULL, "machine", STRANGER, KT_ADD_EXPLICIT, 0, 1, NULL},
    {"user none: stranger untrusted", {{0}}, "u=none", "u", STRANGER, KT_ADD_EXPLICIT, 0, 0, NULL},
    {"user none: root-signed is trusted", {{0}}, "u=none", "u", INTER, KT_ADD_EXPLICIT, 0, 1, NULL},
    {"user none: bad signature untrusted", {{0}}, "u=none", "u", BADSIG, KT_ADD_EXPLICIT, 0, 0, NULL},
    {"user trusted-only: stranger refused", {{0}}, "u=trusted-only", "u", STRANGER, KT_ADD_EXPLICIT, -EPERM, -1, "trusted-only"},
    {"user trusted-only: root-signed", {{0}}, "u=trusted-only", "u", INTER, KT_ADD_EXPLICIT, 0, 1, NULL},
    /* a user keyring's restriction applies to PE-vouched keys too */
    {"user trusted-only: vouched stranger refused", {{0}}, "u=trusted-only", "u", STRANGER, KT_ADD_VOUCHED, -EPERM, -1, "trusted-only"},
    {"user trusted-only: vouched, root-signed", {{0}}, "u=trusted-only", "u", INTER, KT_ADD_VOUCHED, 0, 1, NULL},
    {"user signed-by:platform: vouched stranger refused", {{0}}, "u=signed-by:platform", "u", STRANGER, KT_ADD_VOUCHED, -EPERM, -1, "no key in"},
    {"user trusted-only: signer untrusted", {{"platform", STRANGER}}, "u=trusted-only", "u", SCHILD, KT_ADD_EXPLICIT, 0 - EPERM, -1, NULL},
    {"user signed-by:secondary: leaf via inter", {{"secondary", INTER}}, "u=signed-by:secondary", "u", LEAF, KT_ADD_EXPLICIT, 0, 1, NULL},
    {"user signed-by:secondary: root-signed refused", {{0}}, "u=signed-by:secondary", "u", INTER, KT_ADD_EXPLICIT, -EPERM, -1, NULL},
    {"user signed-by:platform: vouches like secondary", {{"platform", STRANGER}}, "u=signed-by:platform", "u", SCHILD, KT_ADD_EXPLICIT, 0, 1, NULL},
    {"user signed-by:self: signer untrusted", {{0}}, "u=signed-by:u", "u", STRANGER, KT_ADD_EXPLICIT, -EPERM, -1, NULL},
    {"blacklist: revocation cert accepted, untrusted", {{0}}, NULL, "blacklist", STRANGER, KT_ADD_EXPLICIT, 0, 0, NULL},
    {"blacklisted cert refused everywhere", {{"blacklist", STRANGER}}, NULL, "platform", STRANGER, KT_ADD_EXPLICIT, -EKEYREJECTED, -1, "blacklisted"},
    {"duplicate in the same ring", {{0}}, NULL, "builtin", ROOT, KT_ADD_EXPLICIT, -EEXIST, -1, "already"},
};

static void test_restrictions(void)
{
    for (size_t i = 0; i < sizeof(rcases) / sizeof(rcases[0]); i++) {
        const struct rcase *c = &rcases[i];
        struct kt_keyrings *k = fresh();
        struct kt_error e;
        for (size_t j = 0; j < 2 && c->pre[j].ring; j++) {
            int rc = add(k, c->pre[j].ring, c->pre[j].cert, KT_ADD_EXPLICIT, NULL, &e);
            CHECK(rc == 0, "%s: prerequisite %s: %s", c->name, names[c->pre[j].cert], e.what);
        }
        if (c->create) {
            char nm[32], spec[64];
            sscanf(c->create, "%31[^=]=%63s", nm, spec);
            enum kt_restrict r;
            char *buf;
            const char *v[8];
            size_t nv;
            CHECK(kt_restriction_parse(spec, &r, &buf, v, 8, &nv) == 0, "%s: parse %s", c->name,
                  spec);
            memset(&e, 0, sizeof(e));
            CHECK(kt_keyring_create(k, nm, r, v, nv, &e) == 0, "%s: create: %s", c->name, e.what);
            free(buf);
        }
        const struct kt_key *key = NULL;
        int rc = add(k, c->ring, c->cert, c->how, &key, &e);
        CHECK(rc == c->want_rc, "%s: rc %d want %d (%s)", c->name, rc, c->want_rc, e.what);
        if (c->want_trusted >= 0)
            CHECK(key && key->trusted == (c->want_trusted == 1), "%s: trusted %d want %d", c->name,
                  key ? key->trusted : -1, c->want_trusted);
        if (c->detail)
            CHECK(strstr(e.what, c->detail) != NULL, "%s: detail '%s' lacks '%s'", c->name, e.what,
                  c->detail);
        if (rc < 0 && rc != -EEXIST)
            CHECK(kt_keyring_count(kt_keyrings_get(k, c->ring)) ==
                      (size_t)(!strcmp(c->ring, "builtin") ? 1 : 0) +
                          (c->pre[0].ring && !strcmp(c->pre[0].ring, c->ring)),
                  "%s: refused key must not be linked", c->name);
        kt_keyrings_free(k);
    }
}

static void test_lookups(void)
{
    struct kt_keyrings *k = fresh();
    struct kt_error e;
    const struct kt_key *inter, *stranger, *loose, *root = kt_keyring_key(kt_keyrings_get(k, "builtin"), 0);
    CHECK(add(k, "secondary", INTER, KT_ADD_EXPLICIT, &inter, &e) == 0, "inter: %s", e.what);
    CHECK(add(k, "platform", STRANGER, KT_ADD_EXPLICIT, &stranger, &e) == 0, "stranger: %s", e.what);
    CHECK(kt_keyring_create(k, "loose", KT_RESTRICT_NONE, NULL, 0, &e) == 0, "create loose");
    CHECK(add(k, "loose", SCHILD, KT_ADD_EXPLICIT, &loose, &e) == 0, "schild: %s", e.what);
    CHECK(loose && !loose->trusted, "schild in loose is untrusted");

    const struct kt_x509 *ic = inter->cert, *sc = stranger->cert;
    /* purposes */
    CHECK(kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_MODULE, ic->skid) == inter, "module finds secondary");
    CHECK(kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_BUILTIN, ic->skid) == NULL, "builtin-only skips secondary");
    CHECK(kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_BUILTIN, root->cert->skid) == root, "builtin finds root");
    CHECK(kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_MODULE, sc->skid) == NULL, "module never uses platform");
    CHECK(kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_UEFI, sc->skid) == stranger, "uefi uses platform");
    CHECK(kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_KEXEC, sc->skid) == stranger, "kexec uses platform");
    CHECK(kt_trust_find_by_issuer_serial(k, KT_VERIFY_PURPOSE_MODULE, ic->issuer_raw, ic->serial) == inter,
          "issuer+serial");
    CHECK(kt_trust_find_by_issuer_serial(k, KT_VERIFY_PURPOSE_MODULE, sc->issuer_raw, sc->serial) == NULL,
          "issuer+serial honours purpose");
    CHECK(kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_UEFI, loose->cert->skid) == NULL,
          "untrusted keys never vouch");
    /* user keyrings vouch for no purpose unless named for the run */
    const struct kt_key *vleaf = NULL;
    struct kt_keyring *vend = NULL;
    CHECK(kt_keyring_create(k, "vend", KT_RESTRICT_NONE, NULL, 0, &e) == 0, "create vend");
    vend = kt_keyrings_get(k, "vend");
    CHECK(add(k, "vend", LEAF, KT_ADD_EXPLICIT, &vleaf, &e) == 0 && vleaf && vleaf->trusted,
          "leaf in vend, trusted (inter signed it)");
    if (vleaf) {
        const struct kt_x509 *lc = vleaf->cert;
        CHECK(kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_MODULE, lc->skid) == NULL,
              "a user keyring does not vouch for modules");
        CHECK(kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_UEFI, lc->skid) == NULL,
              "a user keyring does not vouch for UEFI images");
        CHECK(kt_keyring_set_run_voucher(vend, true) == 0, "name vend for the run");
        CHECK(kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_MODULE, lc->skid) == vleaf,
              "named for the run: vouches");
        CHECK(kt_keyring_set_run_voucher(vend, false) == 0, "unname vend");
        struct kt_key_ids any = kt_key_ids_of_cert(lc);
        CHECK(kt_keyrings_find_any(k, &any) == vleaf, "find_any sees user keyrings");
    }
    CHECK(kt_keyring_set_run_voucher(kt_keyrings_get(k, "blacklist"), true) == -EINVAL,
          "the blacklist never vouches");
    CHECK(kt_keyring_set_run_voucher(kt_keyrings_get(k, "platform"), true) == 0 &&
              kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_MODULE, sc->skid) == stranger,
          "platform named for the run vouches for modules");
    kt_keyring_set_run_voucher(kt_keyrings_get(k, "platform"), false);
    /* a purpose's search set, in the kernel's order; run vouchers after */
    {
        struct kt_trust_set ts;
        const char *want_mod[] = {"builtin", "secondary", "machine"};
        const char *want_uefi[] = {"builtin", "secondary", "machine", "platform", "vend"};
        kt_trust_set_for(k, KT_VERIFY_PURPOSE_MODULE, &ts);
        CHECK(ts.n == 3 && ts.all == k && !strcmp(ts.what, "modules"), "module set: %zu", ts.n);
        for (size_t i = 0; i < ts.n && i < 3; i++)
            CHECK(!strcmp(kt_keyring_name(ts.rings[i]), want_mod[i]), "module set %zu", i);
        kt_keyring_set_run_voucher(vend, true);
        kt_trust_set_for(k, KT_VERIFY_PURPOSE_UEFI, &ts);
        CHECK(ts.n == 5, "uefi set with a run voucher: %zu", ts.n);
        for (size_t i = 0; i < ts.n && i < 5; i++)
            CHECK(!strcmp(kt_keyring_name(ts.rings[i]), want_uefi[i]), "uefi set %zu", i);
        CHECK(kt_trust_set_has(&ts, vend) && !kt_trust_set_has(&ts, kt_keyrings_get(k, "loose")),
              "set membership");
        kt_keyring_set_run_voucher(vend, false);
        kt_trust_set_for(k, KT_VERIFY_PURPOSE_BUILTIN, &ts);
        CHECK(ts.n == 1 && kt_trust_set_has(&ts, kt_keyrings_get(k, "builtin")), "builtin set");
        kt_trust_set_for(NULL, KT_VERIFY_PURPOSE_MODULE, &ts);
        CHECK(ts.n == 0 && !ts.all, "no keyrings: an empty set");
    }
    /* find_asymmetric_key: id0 and id1 given, both must match */
    struct kt_key_ids both = kt_key_ids_of_cert(ic);
    CHECK(kt_trust_find(k, KT_VERIFY_PURPOSE_MODULE, &both) == inter, "id0+id1 of inter");
    both.skid = sc->skid;
    CHECK(kt_trust_find(k, KT_VERIFY_PURPOSE_MODULE, &both) == NULL, "id0 matches, id1 differs: none");
    struct kt_key_ids by_name = {.subject = ic->subject_raw};
    CHECK(kt_trust_find(k, KT_VERIFY_PURPOSE_MODULE, &by_name) == inter, "id2: subject name");
    CHECK(kt_keyrings_find_cert(k, (kt_span){0}, (kt_span){0}, loose->cert->skid) == loose,
          "find_cert finds untrusted keys");
    CHECK(kt_keyrings_find_cert(k, sc->issuer_raw, sc->serial, (kt_span){0}) == stranger,
          "find_cert by issuer+serial in platform");
    CHECK(kt_keyring_find_by_description(kt_keyrings_get(k, "secondary"), ic->description) == inter,
          "by description");
    CHECK(kt_keyring_find_by_sha256(kt_keyrings_get(k, "secondary"), ic->sha256) == inter,
          "by sha256");

    /* a serial with a leading 00 matches its magnitude */
    uint8_t padded[64];
    kt_span mag = kt_integer_magnitude(ic->serial);
    padded[0] = 0;
    memcpy(padded + 1, mag.p, mag.len);
    CHECK(kt_trust_find_by_issuer_serial(k, KT_VERIFY_PURPOSE_MODULE, ic->issuer_raw,
                                         (kt_span){padded, mag.len + 1}) == inter,
          "serial with leading zero");

    /* constant time: many lookups are fast */
    clock_t t0 = clock();
    size_t hits = 0;
    for (int i = 0; i < 200000; i++)
        hits += kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_MODULE, ic->skid) == inter;
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(hits == 200000, "200k lookups all found (%.3fs; speed is for make bench)", secs);
    printf("200000 trust lookups by SKID: %.3f s\n", secs);

    /* ids: kernel partial (trailing) matching */
    char skid_hex[200], tail[200], sha_hex[65], ser[80];
    kt_hex(ic->skid.p, ic->skid.len, skid_hex);
    snprintf(tail, sizeof(tail), "%s", skid_hex + strlen(skid_hex) - 8);
    kt_hex(ic->sha256, 32, sha_hex);
    kt_x509_serial_hex(ic, ser, sizeof(ser));
    CHECK(kt_key_matches_id(inter, skid_hex), "full skid");
    CHECK(kt_key_matches_id(inter, tail), "skid tail");
    char idtail[210];
    snprintf(idtail, sizeof(idtail), "id:%s", tail);
    CHECK(kt_key_matches_id(inter, idtail), "id: tail");
    snprintf(idtail, sizeof(idtail), "ex:%s", tail);
    CHECK(!kt_key_matches_id(inter, idtail), "ex: needs the whole id");
    snprintf(idtail, sizeof(idtail), "ex:%s", skid_hex);
    CHECK(kt_key_matches_id(inter, idtail), "ex: whole skid");
    char head[16];
    snprintf(head, sizeof(head), "%.8s", skid_hex);
    CHECK(!kt_key_matches_id(inter, head), "a leading part does not match");
    CHECK(kt_key_matches_id(inter, ser), "serial hex");
    CHECK(kt_key_matches_id(inter, sha_hex), "sha256");
    CHECK(kt_key_matches_id(inter, ic->description), "description");
    CHECK(!kt_key_matches_id(inter, "zz"), "not hex");

    uint8_t skid_copy[64];
    kt_span skid = {skid_copy, ic->skid.len < 64 ? ic->skid.len : 64};
    memcpy(skid_copy, ic->skid.p, skid.len);
    CHECK(kt_keyring_remove(k, kt_keyrings_get(k, "secondary"), head) == 0, "remove: no match");
    CHECK(kt_keyring_remove(k, kt_keyrings_get(k, "secondary"), tail) == 1, "remove by tail");
    CHECK(kt_keyring_count(kt_keyrings_get(k, "secondary")) == 0, "secondary empty");
    CHECK(kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_MODULE, skid) == NULL, "removed key not found");
    const struct kt_key *again;
    CHECK(add(k, "secondary", INTER, KT_ADD_EXPLICIT, &again, &e) == 0, "re-add after remove");
    CHECK(kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_MODULE, again->cert->skid) == again, "found again");
    kt_keyrings_free(k);
}

/* A revocation certificate is a trust anchor for denial (issue #23 item
 * 3): it denies itself and every certificate whose signature it verifies,
 * found by the issuer name or the AKID keyIdentifier; a look-alike (the
 * same subject, another key) and a corrupted signature deny nothing. */
static void test_blacklist_issuer(void)
{
    struct kt_x509 *x[N_CERT] = {0};
    struct kt_error e;
    for (int i = 0; i < N_CERT; i++)
        CHECK(kt_x509_parse(certs[i].p, certs[i].n, &x[i], &e) == 0, "parse %s: %s", names[i],
              e.what);
    static const struct {
        int c, anchor;
        bool denied;
    } dc[] = {
        {ROOT, ROOT, true},       /* the same certificate */
        {INTER, ROOT, true},      /* AKID keyIdentifier = root's SKID, signature verifies */
        {NOAKID, ROOT, true},     /* no AKID: the issuer name */
        {ISN, ROOT, true},        /* AKID issuer+serial: the issuer name */
        {LEAF, INTER, true},
        {LEAF, ROOT, false},      /* the grandparent: only through inter */
        {INTER, LOOK, false},     /* the root's name, another key */
        {NOAKID, LOOK, false},
        {BADSIG, ROOT, false},    /* inter with its signature corrupted */
        {SCHILD, ROOT, false},
        {SCHILD, STRANGER, true},
        {ROOT, INTER, false},     /* never downwards */
    };
    for (size_t i = 0; i < sizeof(dc) / sizeof(dc[0]); i++)
        CHECK(kt_cert_denied_by(x[dc[i].c], x[dc[i].anchor]) == dc[i].denied, "%s denied by %s: %d",
              names[dc[i].c], names[dc[i].anchor], dc[i].denied);
    CHECK(!kt_cert_denied_by(NULL, x[ROOT]) && !kt_cert_denied_by(x[ROOT], NULL), "NULL");

    struct kt_keyrings *k = fresh();
    const struct kt_key *bk;
    CHECK(kt_blacklist_issuer_of(k, x[INTER]) == NULL, "empty blacklist: nothing");
    CHECK(add(k, "blacklist", LOOK, KT_ADD_EXPLICIT, NULL, &e) == 0, "look-alike into the blacklist");
    CHECK(kt_blacklist_issuer_of(k, x[INTER]) == NULL, "a look-alike issued nothing");
    CHECK(add(k, "blacklist", STRANGER, KT_ADD_EXPLICIT, &bk, &e) == 0, "stranger into the blacklist");
    CHECK(kt_blacklist_issuer_of(k, x[SCHILD]) == bk, "the blacklisted stranger issued schild");
    CHECK(kt_blacklist_issuer_of(k, x[INTER]) == NULL, "nor inter");
    CHECK(!kt_blacklist_has_cert(k, x[SCHILD]), "schild itself is not listed");
    kt_keyrings_free(k);
    for (int i = 0; i < N_CERT; i++)
        kt_x509_free(x[i]);
}

static void test_blacklist(void)
{
    struct kt_keyrings *k = fresh();
    struct kt_error e;
    const struct kt_key *inter;
    CHECK(add(k, "secondary", INTER, KT_ADD_EXPLICIT, &inter, &e) == 0, "inter");
    struct kt_x509 *c;
    CHECK(kt_x509_parse(certs[LEAF].p, certs[LEAF].n, &c, &e) == 0, "parse leaf");
    CHECK(!kt_blacklist_has_cert(k, c), "leaf not blacklisted yet");
    CHECK(kt_blacklist_add_hash(k, "tbs", KT_HASH_SHA256, c->tbs_sha256, "test") == 0, "add tbs");
    CHECK(kt_blacklist_add_hash(k, "tbs", KT_HASH_SHA256, c->tbs_sha256, "test") == -EEXIST,
          "dup tbs");
    CHECK(kt_blacklist_has_tbs(k, c->tbs_sha256, 32), "has tbs");
    CHECK(kt_blacklist_has_cert(k, c), "leaf blacklisted by tbs sha256");
    CHECK(add(k, "secondary", LEAF, KT_ADD_EXPLICIT, NULL, &e) == -EKEYREJECTED,
          "blacklisted leaf refused: %s", e.what);
    kt_x509_free(c);

    /* tbs sha384 */
    CHECK(kt_x509_parse(certs[ISN].p, certs[ISN].n, &c, &e) == 0, "parse isn");
    uint8_t d384[48];
    kt_digest(KT_HASH_SHA384, c->tbs.p, c->tbs.len, d384);
    CHECK(!kt_blacklist_has_cert(k, c), "isn not blacklisted");
    CHECK(kt_blacklist_add_hash(k, "tbs", KT_HASH_SHA384, d384, "test") == 0, "add tbs384");
    CHECK(kt_blacklist_has_cert(k, c), "isn blacklisted by tbs sha384");
    kt_x509_free(c);

    uint8_t bin[32];
    memset(bin, 0xab, 32);
    CHECK(!kt_blacklist_has_bin(k, KT_HASH_SHA256, bin), "bin absent");
    CHECK(kt_blacklist_add_hash(k, "bin", KT_HASH_SHA256, bin, "test") == 0, "add bin");
    CHECK(kt_blacklist_has_bin(k, KT_HASH_SHA256, bin), "bin present");
    CHECK(!kt_blacklist_has_tbs(k, bin, 32), "bin is not tbs");
    CHECK(kt_blacklist_add_hash(k, "xyz", KT_HASH_SHA256, bin, "test") == -EINVAL, "bad kind");
    CHECK(kt_blacklist_hash_count(k) == 3, "3 hashes");
    char id[80] = "bin:";
    kt_hex(bin, 32, id + 4);
    CHECK(kt_blacklist_remove_hash(k, "bin:zz") == -EINVAL, "bad hash id");
    CHECK(kt_blacklist_remove_hash(k, "tbs:abcd") == -EINVAL, "odd digest size");
    memcpy(id, "tbs:", 4);
    CHECK(kt_blacklist_remove_hash(k, id) == 0, "tbs: is not bin:");
    memcpy(id, "bin:", 4);
    CHECK(kt_blacklist_remove_hash(k, id) == 1, "remove bin:");
    CHECK(!kt_blacklist_has_bin(k, KT_HASH_SHA256, bin), "bin removed");
    CHECK(kt_blacklist_hash_count(k) == 2, "2 hashes left");
    CHECK(kt_blacklist_remove_hash(k, id) == 0, "removed once");
    kt_keyrings_free(k);
}

static int count_cb(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    (void)der, (void)len, (void)off;
    (*(int *)ctx)++;
    return 0;
}

struct esl_seen {
    int x509, sha256, x509_sha256;
    const uint8_t *first; /* the first X509 entry's DER */
    size_t first_len;
};

static int esl_cb(void *ctx, const struct kt_esl_entry *en)
{
    struct esl_seen *s = ctx;
    if (en->type == KT_ESL_X509 && !s->x509++) {
        s->first = en->data.p;
        s->first_len = en->data.len;
    }
    s->sha256 += en->type == KT_ESL_SHA256;
    s->x509_sha256 += en->type == KT_ESL_X509_SHA256;
    return 0;
}

/* keyring export: PEM and DER give the keys back in order, ESL parses as
 * EFI signature lists; the blacklist's ESL carries its hashes too. */
static void test_export(void)
{
    struct kt_keyrings *k = fresh();
    struct kt_error e;
    CHECK(add(k, "secondary", INTER, KT_ADD_EXPLICIT, NULL, &e) == 0, "inter");
    CHECK(add(k, "secondary", LEAF, KT_ADD_EXPLICIT, NULL, &e) == 0, "leaf");
    struct kt_keyring *sec = kt_keyrings_get(k, "secondary");
    enum kt_export_format f;
    CHECK(kt_export_format_parse("esl", &f) == 0 && f == KT_EXPORT_ESL, "format esl");
    CHECK(kt_export_format_parse("p7b", &f) == -EINVAL, "format p7b refused");
    uint8_t *buf;
    size_t len, hashes = 9;
    CHECK(kt_keyring_export(k, sec, KT_EXPORT_DER, &buf, &len, &hashes) == 0, "der");
    CHECK(len == certs[INTER].n + certs[LEAF].n && hashes == 0 &&
              !memcmp(buf, certs[INTER].p, certs[INTER].n) &&
              !memcmp(buf + certs[INTER].n, certs[LEAF].p, certs[LEAF].n),
          "der: the two certificates, in order");
    free(buf);
    CHECK(kt_keyring_export(k, sec, KT_EXPORT_PEM, &buf, &len, NULL) == 0, "pem");
    int n = 0;
    CHECK(kt_certs_foreach(buf, len, count_cb, &n, &e) == 0 && n == 2, "pem: two certificates");
    free(buf);
    CHECK(kt_keyring_export(k, sec, KT_EXPORT_ESL, &buf, &len, &hashes) == 0, "esl");
    struct esl_seen seen = {0};
    CHECK(kt_esl_foreach(buf, len, esl_cb, &seen, &e) == 0, "esl parses: %s", e.what);
    CHECK(seen.x509 == 2 && seen.sha256 == 0 && hashes == 0, "esl: two X509 entries");
    CHECK(seen.first_len == certs[INTER].n && !memcmp(seen.first, certs[INTER].p, seen.first_len),
          "esl: the first entry is the first key");
    free(buf);
    uint8_t bin[32];
    memset(bin, 0x5a, sizeof(bin));
    CHECK(kt_blacklist_add_hash(k, "bin", KT_HASH_SHA256, bin, "test") == 0, "bin hash");
    CHECK(kt_blacklist_add_hash(k, "tbs", KT_HASH_SHA256, bin, "test") == 0, "tbs hash");
    struct kt_keyring *bl = kt_keyrings_get(k, "blacklist");
    CHECK(kt_keyring_export(k, bl, KT_EXPORT_ESL, &buf, &len, &hashes) == 0, "blacklist esl");
    memset(&seen, 0, sizeof(seen));
    CHECK(kt_esl_foreach(buf, len, esl_cb, &seen, &e) == 0, "blacklist esl parses");
    CHECK(seen.sha256 == 1 && seen.x509_sha256 == 1 && hashes == 2, "blacklist esl: both hashes");
    free(buf);
    CHECK(kt_keyring_export(k, sec, KT_EXPORT_ESL, &buf, &len, &hashes) == 0 && hashes == 0,
          "another keyring's ESL has no hashes");
    free(buf);
    CHECK(kt_keyring_export(k, bl, KT_EXPORT_PEM, &buf, &len, &hashes) == 0 && len == 0 &&
              !buf && hashes == 0,
          "an empty PEM export");
    kt_keyrings_free(k);
}

static void test_blobs(void)
{
    struct kt_keyrings *k;
    struct kt_error e = {0};
    size_t n;
    kt_keyrings_new(&k);
    struct blob b = load("bundle.pem");
    CHECK(kt_keyrings_add_blob(k, kt_keyrings_get(k, "builtin"), b.p, b.n, "file:bundle.pem",
                               KT_ADD_EXPLICIT, &n, &e) == 0 && n == 2,
          "PEM bundle: n=%zu %s", n, e.what);
    const struct kt_key *k2 = kt_keyring_key(kt_keyrings_get(k, "builtin"), 1);
    CHECK(k2 && !strcmp(k2->source, "file:bundle.pem#1"), "source of the 2nd: %s",
          k2 ? k2->source : "");
    free(b.p);
    b = load("list.der");
    memset(&e, 0, sizeof(e));
    CHECK(kt_keyrings_add_blob(k, kt_keyrings_get(k, "secondary"), b.p, b.n, "kernel:list",
                               KT_ADD_EXPLICIT, &n, &e) == 0 && n == 3,
          "DER list into secondary: n=%zu %s", n, e.what);
    /* truncated list: error with an offset */
    memset(&e, 0, sizeof(e));
    struct kt_keyrings *k3;
    kt_keyrings_new(&k3);
    int rc = kt_keyrings_add_blob(k3, kt_keyrings_get(k3, "machine"), b.p, b.n - 10, "x",
                                  KT_ADD_EXPLICIT, &n, &e);
    CHECK(rc == -EBADMSG && e.offset != KT_NO_OFFSET, "truncated list: rc %d '%s'", rc, e.what);
    kt_keyrings_free(k3);
    free(b.p);

    b = load("stranger.esl");
    if (b.p) {
        memset(&e, 0, sizeof(e));
        CHECK(kt_keyrings_add_blob(k, kt_keyrings_get(k, "platform"), b.p, b.n, "esl:db",
                                   KT_ADD_EXPLICIT, &n, &e) == 0 && n == 1,
              "efitools ESL: %s", e.what);
        CHECK(kt_keyring_count(kt_keyrings_get(k, "platform")) == 1, "ESL key in platform");
        /* the same ESL into the blacklist: a revocation certificate */
        memset(&e, 0, sizeof(e));
        CHECK(kt_keyrings_add_blob(k, kt_keyrings_get(k, "blacklist"), b.p, b.n, "esl:dbx",
                                   KT_ADD_EXPLICIT, &n, &e) == 0 && n == 1,
              "ESL into blacklist: %s", e.what);
        struct kt_x509 *c;
        kt_x509_parse(certs[STRANGER].p, certs[STRANGER].n, &c, &e);
        CHECK(kt_blacklist_has_cert(k, c), "revoked by ESL");
        kt_x509_free(c);
        free(b.p);
    } else {
        printf("note: cert-to-efi-sig-list unavailable, efitools ESL case skipped\n");
    }
    /* hash ESLs built by the esl module */
    uint8_t h1[32], h2[48];
    memset(h1, 0x11, 32);
    memset(h2, 0x22, 48);
    const uint8_t *d1[] = {h1}, *d2[] = {h2};
    uint8_t *e1, *e2;
    size_t l1, l2;
    if (kt_esl_build_hashes(KT_ESL_SHA256, d1, 1, NULL, &e1, &l1) == 0 &&
        kt_esl_build_hashes(KT_ESL_X509_SHA384, d2, 1, NULL, &e2, &l2) == 0) {
        uint8_t *both = malloc(l1 + l2);
        memcpy(both, e1, l1);
        memcpy(both + l1, e2, l2);
        memset(&e, 0, sizeof(e));
        CHECK(kt_keyrings_add_blob(k, kt_keyrings_get(k, "platform"), both, l1 + l2, "esl:db",
                                   KT_ADD_EXPLICIT, &n, &e) == 0 && n == 0,
              "hashes in a db ESL are ignored: n=%zu %s", n, e.what);
        CHECK(!kt_blacklist_has_bin(k, KT_HASH_SHA256, h1), "an allowed hash is not blacklisted");
        memset(&e, 0, sizeof(e));
        CHECK(kt_keyrings_add_blob(k, kt_keyrings_get(k, "blacklist"), both, l1 + l2, "esl:dbx",
                                   KT_ADD_EXPLICIT, &n, &e) == 0 && n == 2,
              "hash ESL: n=%zu %s", n, e.what);
        CHECK(kt_blacklist_has_bin(k, KT_HASH_SHA256, h1), "SHA256 entry -> bin:");
        CHECK(kt_blacklist_has_tbs(k, h2, 48), "X509_SHA384 entry -> tbs:");
        free(both);
        free(e1);
        free(e2);
    }
    /* garbage */
    memset(&e, 0, sizeof(e));
    rc = kt_keyrings_add_blob(k, kt_keyrings_get(k, "machine"), (const uint8_t *)"hello", 5, "x",
                              KT_ADD_EXPLICIT, &n, &e);
    CHECK(rc < 0 && e.what[0], "garbage refused: %d '%s'", rc, e.what);
    int cnt = 0;
    (void)count_cb;
    (void)cnt;
    kt_keyrings_free(k);
}

int main(void)
{
    snprintf(dir, sizeof(dir), "%s/kt-keyring.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char script[512], cmd[1200];
    snprintf(script, sizeof(script), "%s/gen.sh", dir);
    FILE *f = fopen(script, "w");
    fputs(gen_sh, f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "bash %s %s", script, dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "fixture generation failed\n");
        return 1;
    }
    for (int i = 0; i < N_CERT; i++) {
        char nm[64];
        snprintf(nm, sizeof(nm), "%s.der", names[i]);
        certs[i] = load(nm);
        CHECK(certs[i].p != NULL, "fixture %s", nm);
    }
    test_restrictions();
    test_lookups();
    test_blacklist();
    test_blacklist_issuer();
    test_blobs();
    test_export();
    for (int i = 0; i < N_CERT; i++)
        free(certs[i].p);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 1;
    KT_TEST_END();
}
