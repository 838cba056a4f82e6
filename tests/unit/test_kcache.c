/* test_kcache.c - the kernel-key cache directory (store/kcache_file.h): an
 * entry comes back as it was saved, only under its own digest; an entry cut
 * short anywhere or changed in any byte is a miss; the directory is made
 * 0700 and refused when open to others; the 16 entries used last are kept.
 * (chain and audit over it, with the corpus kernel: kernel_key_cache.sh.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kt_test.h"
#include "store/kcache_file.h"
#include "util/fmt.h"

static char dir[] = "/tmp/kt_test_kcache.XXXXXX";

static void list_of(struct kt_cert_list *l, int seed, size_t n)
{
    memset(l, 0, sizeof(*l));
    for (size_t i = 0; i < n; i++) {
        uint8_t der[300];
        for (size_t j = 0; j < sizeof(der); j++)
            der[j] = (uint8_t)(seed * 31 + i * 7 + j);
        kt_cert_list_push(l, der, 100 + 50 * i, 0);
    }
}

static int same(const struct kt_cert_list *a, const struct kt_cert_list *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->len[i] != b->len[i] || memcmp(a->der[i], b->der[i], a->len[i]))
            return 0;
    return 1;
}

static void sha_of(uint8_t sha[32], int seed)
{
    for (int i = 0; i < 32; i++)
        sha[i] = (uint8_t)(seed + i);
}

static void pause_ms(long ms)
{
    nanosleep(&(struct timespec){0, ms * 1000 * 1000}, NULL);
}

static char *entry_path(const uint8_t sha[32])
{
    static char p[512];
    char hex[65];
    snprintf(p, sizeof(p), "%s/kernel-keys/%s", dir, kt_hex(sha, 32, hex));
    return p;
}

static size_t read_all(const char *path, uint8_t *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, cap, f) : 0;
    if (f)
        fclose(f);
    return n;
}

static void write_all(const char *path, const uint8_t *buf, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
}

/* Every truncation and every single-byte change of a saved entry is a miss. */
static void damaged_entries(void)
{
    uint8_t sha[32], good[4096], bad[4096];
    struct kt_cert_list l, got = {0};
    sha_of(sha, 1);
    list_of(&l, 1, 3);
    CHECK_EQ_INT(kt_kcache_file_put(dir, sha, &l), 0, "put");
    size_t n = read_all(entry_path(sha), good, sizeof(good));
    CHECK(n > 100 && n < sizeof(good), "entry size %zu", n);
    int hits = 0;
    for (size_t cut = 0; cut < n; cut++) {
        write_all(entry_path(sha), good, cut);
        hits += kt_kcache_file_get(dir, sha, &got);
        kt_cert_list_free(&got);
    }
    CHECK_EQ_INT(hits, 0, "a truncated entry is never used");
    hits = 0;
    for (size_t at = 0; at < n; at++) {
        memcpy(bad, good, n);
        bad[at] ^= 0x01;
        write_all(entry_path(sha), bad, n);
        hits += kt_kcache_file_get(dir, sha, &got);
        kt_cert_list_free(&got);
    }
    CHECK_EQ_INT(hits, 0, "an entry with any byte changed is never used");
    write_all(entry_path(sha), good, n);
    CHECK(kt_kcache_file_get(dir, sha, &got) && same(&got, &l), "the whole entry is used");
    kt_cert_list_free(&got);
    kt_cert_list_free(&l);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    uint8_t sha[32], other[32];
    struct kt_cert_list l, got = {0};
    sha_of(sha, 0);
    sha_of(other, 100);
    list_of(&l, 0, 2);
    CHECK_EQ_INT(kt_kcache_file_get(dir, sha, &got), 0, "no directory yet: miss");
    CHECK_EQ_INT(kt_kcache_file_put(dir, sha, &l), 0, "put");
    struct stat st;
    char sub[512];
    snprintf(sub, sizeof(sub), "%s/kernel-keys", dir);
    CHECK(stat(sub, &st) == 0 && (st.st_mode & 0777) == 0700, "kernel-keys is 0700");
    CHECK(stat(entry_path(sha), &st) == 0 && (st.st_mode & 0777) == 0600, "entry is 0600");
    CHECK(kt_kcache_file_get(dir, sha, &got) == 1 && same(&got, &l), "hit: the same list");
    kt_cert_list_free(&got);
    CHECK_EQ_INT(kt_kcache_file_get(dir, other, &got), 0, "another digest: miss");
    /* the entry under another image's name still names its own image inside */
    char to[512];
    snprintf(to, sizeof(to), "%s", entry_path(other));
    CHECK(link(entry_path(sha), to) == 0, "link");
    CHECK_EQ_INT(kt_kcache_file_get(dir, other, &got), 0, "an entry renamed: miss");
    unlink(to);
    struct kt_cert_list empty = {0};
    CHECK(kt_kcache_file_put(dir, other, &empty) < 0, "an empty list is not saved");
    CHECK(kt_kcache_file_put(NULL, other, &l) < 0 && kt_kcache_file_put("", other, &l) < 0,
          "no directory: not saved");
    chmod(sub, 0750);
    CHECK_EQ_INT(kt_kcache_file_get(dir, sha, &got), 0, "kernel-keys open to the group: miss");
    CHECK(kt_kcache_file_put(dir, sha, &l) < 0, "... and not written");
    chmod(sub, 0700);
    kt_cert_list_free(&l);
    damaged_entries();

    /* the 16 used last are kept: entry 0 used again stays, entry 1 goes */
    pause_ms(20);
    for (int i = 0; i < 17; i++) {
        sha_of(sha, 1000 + i);
        list_of(&l, i, 1);
        CHECK_EQ_INT(kt_kcache_file_put(dir, sha, &l), 0, "put");
        kt_cert_list_free(&l);
        if (i == 15) {
            sha_of(other, 1000);
            CHECK_EQ_INT(kt_kcache_file_get(dir, other, &got), 1, "entry 0 used again");
            kt_cert_list_free(&got);
        }
        pause_ms(20); /* distinct mtimes (the file system's clock may tick in ms) */
    }
    int n = 0;
    for (int i = 0; i < 17; i++) {
        sha_of(sha, 1000 + i);
        n += access(entry_path(sha), F_OK) == 0;
    }
    CHECK_EQ_INT(n, 16, "16 entries kept");
    sha_of(sha, 1000);
    CHECK(access(entry_path(sha), F_OK) == 0, "the entry used again is kept");
    sha_of(sha, 1001);
    CHECK(access(entry_path(sha), F_OK) != 0, "the least recently used entry went");
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 2;
    KT_TEST_END();
}
