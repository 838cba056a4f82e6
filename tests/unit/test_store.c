/* test_store.c - the SQLite store: a save/load round trip keeps keyrings,
 * restrictions, keys (trusted flag, source, time), removals and blacklist
 * hashes; run-only keys are never saved; rollback writes nothing; a read of
 * a missing store is -ENOENT; an injected full disk rolls back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/keyrings.h"
#include "policy/load.h"
#include "kt_test.h"
#include "store/store.h"
#include "util/fmt.h"

static char dir[256];
static uint8_t *ca, *leaf, *other;
static size_t ca_n, leaf_n, other_n;

static uint8_t *slurp(const char *name, size_t *n)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return kt_test_slurp(p, n);
}

static struct kt_keyrings *load(const char *path, int *rc_out)
{
    struct kt_keyrings *k;
    struct kt_store *s;
    struct kt_error e = {0};
    kt_keyrings_new(&k);
    int rc = kt_store_open(path, KT_STORE_READ, &s, &e);
    if (rc == 0) {
        rc = kt_store_load(s, k, &e);
        kt_store_close(s);
    }
    *rc_out = rc;
    return k;
}

int main(void)
{
    snprintf(dir, sizeof(dir), "/tmp/kt-store.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    char cmd[2048];
    snprintf(cmd, sizeof(cmd),
             "cd %s && q() { \"$@\" >/dev/null 2>&1; } && "
             "q openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key "
             "-out ca.pem -subj '/O=Store Test/CN=Store CA' -days 30 && "
             "printf 'subjectKeyIdentifier=hash\\nauthorityKeyIdentifier=keyid\\n' >ext && "
             "q openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout l.key "
             "-out l.csr -subj '/O=Store Test/CN=Store Leaf' && "
             "q openssl x509 -req -in l.csr -CA ca.pem -CAkey ca.key -set_serial 77 -days 30 "
             "-out l.pem -extfile ext && "
             "q openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout o.key "
             "-out o.pem -subj '/CN=Other' -days 30 && "
             "openssl x509 -in ca.pem -outform DER -out ca.der && "
             "openssl x509 -in l.pem -outform DER -out l.der && "
             "openssl x509 -in o.pem -outform DER -out o.der",
             dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "fixture generation failed\n");
        return 1;
    }
    ca = slurp("ca.der", &ca_n);
    leaf = slurp("l.der", &leaf_n);
    other = slurp("o.der", &other_n);
    CHECK(ca && leaf && other, "fixtures");

    char path[512];
    snprintf(path, sizeof(path), "%s/deep/er/keyrings.db", dir);
    int rc;
    struct kt_keyrings *k = load(path, &rc);
    CHECK(rc == -ENOENT, "missing store for reading: %d", rc);
    CHECK(access(path, F_OK) != 0, "reading does not create the store");
    kt_keyrings_free(k);

    /* write: builtin CA, secondary leaf, user ring, an ephemeral key, a hash */
    struct kt_store *s;
    struct kt_error e = {0};
    kt_keyrings_new(&k);
    CHECK(kt_store_open(path, KT_STORE_WRITE, &s, &e) == -ENOENT, "write: no missing dirs made");
    CHECK(access(dir, F_OK) == 0 && access(path, F_OK) != 0, "nothing created");
    memset(&e, 0, sizeof(e));
    CHECK(kt_store_mkdir_parents(path, &e) == 0, "mkdir parents: %s", e.what);
    CHECK(kt_store_open(path, KT_STORE_WRITE, &s, &e) == 0, "open write: %s", e.what);
    CHECK(kt_store_begin_write(s, &e) == 0, "begin");
    CHECK(kt_store_load(s, k, &e) == 0, "load empty");
    const struct kt_key *key;
    CHECK(kt_keyring_add(k, kt_keyrings_get(k, "builtin"), ca, ca_n, "file:ca", KT_ADD_EXPLICIT,
                         NULL, &e) == 0, "add ca: %s", e.what);
    CHECK(kt_keyring_add(k, kt_keyrings_get(k, "secondary"), leaf, leaf_n, "file:leaf",
                         KT_ADD_EXPLICIT, NULL, &e) == 0, "add leaf: %s", e.what);
    const char *v[] = {"secondary", "builtin"};
    CHECK(kt_keyring_create(k, "mine", KT_RESTRICT_SIGNED_BY, v, 2, &e) == 0, "create");
    CHECK(kt_keyring_create(k, "loose", KT_RESTRICT_NONE, NULL, 0, &e) == 0, "create loose");
    CHECK(kt_keyring_add(k, kt_keyrings_get(k, "loose"), other, other_n, "file:other",
                         KT_ADD_EXPLICIT, &key, &e) == 0, "add other");
    CHECK(kt_keyring_add(k, kt_keyrings_get(k, "platform"), other, other_n, "run-only",
                         KT_ADD_EXPLICIT, &key, &e) == 0, "add run-only");
    kt_key_set_ephemeral(key, true);
    uint8_t h[32];
    memset(h, 0x5a, 32);
    CHECK(kt_blacklist_add_hash(k, "bin", KT_HASH_SHA256, h, "dbx") == 0, "bin hash");
    CHECK(kt_store_save(s, k, &e) == 0, "save: %s", e.what);
    CHECK(kt_store_commit(s, &e) == 0, "commit: %s", e.what);
    kt_store_close(s);
    kt_keyrings_free(k);

    k = load(path, &rc);
    CHECK(rc == 0, "reload");
    CHECK(kt_keyring_count(kt_keyrings_get(k, "builtin")) == 1, "builtin 1");
    CHECK(kt_keyring_count(kt_keyrings_get(k, "secondary")) == 1, "secondary 1");
    CHECK(kt_keyring_count(kt_keyrings_get(k, "platform")) == 0, "run-only key not saved");
    struct kt_keyring *mine = kt_keyrings_get(k, "mine");
    char rs[128];
    CHECK(mine && !strcmp(kt_keyring_restriction_str(mine, rs, sizeof(rs)),
                          "signed-by:secondary,builtin"),
          "restriction kept: %s", mine ? rs : "(no ring)");
    const struct kt_key *lk = kt_keyring_key(kt_keyrings_get(k, "secondary"), 0);
    CHECK(lk && lk->trusted && !strcmp(lk->source, "file:leaf") && lk->added > 0, "leaf fields");
    const struct kt_key *ok = kt_keyring_key(kt_keyrings_get(k, "loose"), 0);
    CHECK(ok && !ok->trusted, "untrusted stays untrusted");
    CHECK(kt_blacklist_has_bin(k, KT_HASH_SHA256, h), "hash kept");
    CHECK(kt_trust_find_by_skid(k, KT_VERIFY_PURPOSE_MODULE, lk->cert->skid) == lk, "lookups after load");
    kt_keyrings_free(k);

    /* remove + rollback: nothing changes; remove + commit: gone */
    for (int commit = 0; commit < 2; commit++) {
        kt_keyrings_new(&k);
        CHECK(kt_store_open(path, KT_STORE_WRITE, &s, &e) == 0, "open");
        kt_store_begin_write(s, &e);
        kt_store_load(s, k, &e);
        CHECK(kt_keyring_remove(k, kt_keyrings_get(k, "secondary"), "Store Test: Store Leaf") == 0,
              "description needs the id part");
        char desc[256];
        snprintf(desc, sizeof(desc), "%s",
                 kt_keyring_key(kt_keyrings_get(k, "secondary"), 0)->cert->description);
        CHECK(kt_keyring_remove(k, kt_keyrings_get(k, "secondary"), desc) == 1, "remove by desc");
        CHECK(kt_store_save(s, k, &e) == 0, "save");
        if (commit)
            kt_store_commit(s, &e);
        else
            kt_store_rollback(s);
        kt_store_close(s);
        kt_keyrings_free(k);
        k = load(path, &rc);
        CHECK(kt_keyring_count(kt_keyrings_get(k, "secondary")) == (commit ? 0u : 1u),
              "after %s", commit ? "commit" : "rollback");
        kt_keyrings_free(k);
    }

    /* an injected full disk in the middle of a save */
    kt_keyrings_new(&k);
    CHECK(kt_store_open(path, KT_STORE_WRITE, &s, &e) == 0, "open");
    kt_store_begin_write(s, &e);
    kt_store_load(s, k, &e);
    kt_keyring_add(k, kt_keyrings_get(k, "secondary"), leaf, leaf_n, "again", KT_ADD_EXPLICIT,
                   NULL, &e);
    kt_keyring_add(k, kt_keyrings_get(k, "machine"), other, other_n, "m", KT_ADD_EXPLICIT, NULL,
                   &e);
    kt_store_inject_full(s, 2);
    memset(&e, 0, sizeof(e));
    rc = kt_store_save(s, k, &e);
    CHECK(rc == -ENOSPC && strstr(e.what, "disk full"), "injected: %d %s", rc, e.what);
    kt_store_close(s); /* rolls back */
    kt_keyrings_free(k);
    k = load(path, &rc);
    CHECK(kt_keyring_count(kt_keyrings_get(k, "secondary")) == 0 &&
              kt_keyring_count(kt_keyrings_get(k, "machine")) == 0,
          "injected failure wrote nothing");
    kt_keyrings_free(k);

    /* the store diffs memory against its own rows: a second save in one
     * transaction writes no row twice (keyrings and keys are UNIQUE, so it
     * would fail); a removed hash and a removed revocation certificate are
     * deleted */
    kt_keyrings_new(&k);
    CHECK(kt_store_open(path, KT_STORE_WRITE, &s, &e) == 0, "open");
    kt_store_begin_write(s, &e);
    kt_store_load(s, k, &e);
    struct kt_keyring *bl = kt_keyrings_get(k, "blacklist");
    CHECK(kt_keyring_add(k, bl, other, other_n, "revoked", KT_ADD_EXPLICIT, NULL, &e) == 0,
          "revocation certificate");
    CHECK(kt_keyring_create(k, "twice", KT_RESTRICT_NONE, NULL, 0, &e) == 0, "create twice");
    CHECK(kt_store_save(s, k, &e) == 0, "save 1: %s", e.what);
    CHECK(kt_store_save(s, k, &e) == 0, "save 2 writes nothing twice: %s", e.what);
    CHECK(kt_store_commit(s, &e) == 0, "commit");
    kt_store_close(s);
    kt_keyrings_free(k);
    k = load(path, &rc);
    CHECK(kt_keyring_count(kt_keyrings_get(k, "blacklist")) == 1 &&
              kt_keyrings_get(k, "twice") && kt_blacklist_has_bin(k, KT_HASH_SHA256, h),
          "saved once");
    kt_keyrings_free(k);
    kt_keyrings_new(&k);
    CHECK(kt_store_open(path, KT_STORE_WRITE, &s, &e) == 0, "open");
    kt_store_begin_write(s, &e);
    kt_store_load(s, k, &e);
    char id[4 + 65] = "bin:";
    kt_hex(h, 32, id + 4);
    CHECK(kt_blacklist_remove_hash(k, id) == 1, "remove %s", id);
    bl = kt_keyrings_get(k, "blacklist");
    CHECK(kt_keyring_remove(k, bl, kt_keyring_key(bl, 0)->cert->description) == 1,
          "remove the revocation certificate");
    CHECK(kt_store_save(s, k, &e) == 0, "save removals: %s", e.what);
    CHECK(kt_store_commit(s, &e) == 0, "commit");
    kt_store_close(s);
    kt_keyrings_free(k);
    k = load(path, &rc);
    CHECK(rc == 0 && kt_keyring_count(kt_keyrings_get(k, "blacklist")) == 0 &&
              !kt_blacklist_has_bin(k, KT_HASH_SHA256, h) && kt_keyrings_get(k, "twice"),
          "removals saved, the rest kept");
    kt_keyrings_free(k);

    /* write to a store opened for reading is refused */
    CHECK(kt_store_open(path, KT_STORE_READ, &s, &e) == 0, "open read");
    memset(&e, 0, sizeof(e));
    CHECK(kt_store_begin_write(s, &e) == -EACCES, "no writes through a read handle");
    kt_store_close(s);

    free(ca);
    free(leaf);
    free(other);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 1;
    KT_TEST_END();
}
