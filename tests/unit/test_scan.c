/* test_scan.c - content detection (kt_detect) on real and generated files,
 * the directory walk (kt_walk, kt_pool_run, kt_scan_count): every regular
 * file once, symbolic links only on request, loops reported, never
 * followed, depth bounded on request; and kt_scan_verify: every file in
 * walk order whatever the number of workers, with its counts. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_test.h"
#include "ktrust/scan.h"
#include "scan/scan.h"
#include "util/walk.h"
#include "verify/detect.h"

static char dir[256];

static int sh(const char *cmd)
{
    char full[2048];
    snprintf(full, sizeof(full), "cd '%s' && { %s; } >/dev/null 2>&1", dir, cmd);
    int rc = system(full);
    CHECK(rc == 0, "command: %s", cmd);
    return rc;
}

static void detect(const char *corpus)
{
    /* generated: certificate DER/PEM, PKCS#7 DER/PEM, an ESL (efitools'
     * format, written by python), compressed and ELF modules, a fake bzImage */
    sh("openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -subj /CN=t -days 2 -out c.pem"
       " && openssl x509 -in c.pem -outform DER -out c.der"
       " && echo hi > data.txt"
       " && openssl cms -sign -binary -in data.txt -signer c.pem -inkey k.pem -outform DER"
       "    -out s.p7"
       " && openssl cms -sign -binary -in data.txt -signer c.pem -inkey k.pem -outform PEM"
       "    -out s.pem"
       " && : > empty"
       " && xz -c data.txt > m.ko.xz && cp m.ko.xz plain.xz"
       " && zstd -q -c data.txt > m.ko.zst && gzip -c data.txt > m.ko.gz"
       " && { cat c.der; printf '\\n\\n'; } > c_nl.der"
       " && { cat c.der; printf 'junk'; } > c_junk.der");
    sh("python3 -c \"import sys,struct,uuid\n"
       "x=open('c.der','rb').read()\n"
       "g=uuid.UUID('a5c059a1-94e4-4aa7-87b5-ab155c2bf072').bytes_le\n"
       "o=bytes(16)\n"
       "open('db.esl','wb').write(g+struct.pack('<III',28+16+len(x),0,16+len(x))+o+x)\n"
       "e=bytearray(64); e[0:4]=b'\\x7fELF'; e[16]=1; open('rel.ko','wb').write(bytes(e))\n"
       "e[16]=2; open('exec.elf','wb').write(bytes(e))\n"
       "k=bytearray(0x300); k[0x202:0x206]=b'HdrS'; open('bzImage.raw','wb').write(bytes(k))\n"
       "p=bytearray(0x80); p[0:2]=b'MZ'; p[0x3c]=0x40; p[0x40:0x44]=b'PE\\0\\0'\n"
       "open('tiny.pe','wb').write(bytes(p))\n"
       "p[0x3c]=0x7e; open('badlfanew.pe','wb').write(bytes(p))\n"
       "b=x[4:] if x[1]==0x82 else x[5:]\n"
       "open('c_ber.der','wb').write(b'\\x30\\x80'+b+b'\\0\\0')\n"
       "open('c_ber_noeoc.der','wb').write(b'\\x30\\x80'+b)\n"
       "open('c_ber_junk.der','wb').write(b'\\x30\\x80'+b+b'\\0\\0junk')\n"
       "\"");
    char mods[4200], signed_pe[4200], vmlinuz[4200], cert[4200], efivar[4200];
    snprintf(mods, sizeof(mods), "%s/debian/modules/crc7.ko", corpus);
    snprintf(signed_pe, sizeof(signed_pe), "%s/debian/shimx64.efi.signed", corpus);
    snprintf(vmlinuz, sizeof(vmlinuz), "%s/debian/vmlinuz-6.1.0-57-amd64", corpus);
    snprintf(cert, sizeof(cert), "%s/trust/microsoft-uefi-ca-2011.pem", corpus);
    snprintf(efivar, sizeof(efivar),
             "%s/peers/shim-efivars/efivars-0/db-d719b2cb-3d3a-4596-a3bc-dad00e67656f", corpus);
    static char paths[32][4200];
    struct {
        const char *path, *name; /* name: what kt_detect is told */
        enum kt_ftype want;
    } cases[] = {
        {mods, "crc7.ko", KT_FT_MODULE},
        {signed_pe, "shimx64.efi.signed", KT_FT_PE},
        {vmlinuz, "vmlinuz", KT_FT_PE}, /* a signed bzImage is a PE first */
        {cert, "ca.pem", KT_FT_X509},
        {efivar, "db-var", KT_FT_ESL}, /* efivarfs: attribute word, then lists */
        {"c.der", NULL, KT_FT_X509},
        {"c.pem", NULL, KT_FT_X509},
        {"c_nl.der", NULL, KT_FT_X509}, /* trailing newlines allowed */
        {"c_junk.der", NULL, KT_FT_UNKNOWN},
        {"c_ber.der", NULL, KT_FT_X509}, /* BER: an indefinite outer length */
        {"c_ber_noeoc.der", NULL, KT_FT_UNKNOWN}, /* ... without its end-of-contents */
        {"c_ber_junk.der", NULL, KT_FT_UNKNOWN},
        {"s.p7", NULL, KT_FT_PKCS7},
        {"s.pem", NULL, KT_FT_PKCS7},
        {"db.esl", NULL, KT_FT_ESL},
        {"data.txt", NULL, KT_FT_UNKNOWN},
        {"empty", NULL, KT_FT_EMPTY},
        {"m.ko.xz", "m.ko.xz", KT_FT_MODULE},
        {"m.ko.zst", "dir/m.ko.zst", KT_FT_MODULE},
        {"m.ko.gz", "m.ko.gz", KT_FT_MODULE},
        {"plain.xz", "plain.xz", KT_FT_UNKNOWN}, /* compressed, not named as a module */
        {"m.ko.xz", NULL, KT_FT_UNKNOWN},
        {"rel.ko", NULL, KT_FT_MODULE}, /* ELF ET_REL: an unsigned module */
        {"exec.elf", NULL, KT_FT_UNKNOWN},
        {"bzImage.raw", NULL, KT_FT_KERNEL},
        {"tiny.pe", NULL, KT_FT_PE},
        {"badlfanew.pe", NULL, KT_FT_UNKNOWN}, /* e_lfanew past the end */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *p = cases[i].path;
        if (p[0] != '/') {
            snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, p);
            p = paths[i];
        }
        size_t n;
        uint8_t *b = kt_test_slurp(p, &n);
        CHECK(b != NULL, "read %s", p);
        if (!b)
            continue;
        enum kt_ftype got = kt_detect(b, n, cases[i].name);
        CHECK(got == cases[i].want, "%s (as %s): %s, want %s", cases[i].path,
              cases[i].name ? cases[i].name : "-", kt_ftype_name(got),
              kt_ftype_name(cases[i].want));
        free(b);
    }
    CHECK_EQ_STR(kt_ftype_name((enum kt_ftype)99), "unknown", "name of a bad type");
    CHECK_EQ_INT(kt_ftype_purpose(KT_FT_PE), KT_VERIFY_PURPOSE_UEFI, "PE: UEFI purpose");
    CHECK_EQ_INT(kt_ftype_purpose(KT_FT_MODULE), KT_VERIFY_PURPOSE_MODULE, "module: module purpose");
}

/* ---- the walk ------------------------------------------------------------ */

struct seen {
    pthread_mutex_t mu;
    char paths[64][512];
    enum kt_ftype types[64];
    size_t n, errors, loops;
    unsigned max_worker;
};

static void on_item(void *ctx, const struct kt_pool_item *it)
{
    struct seen *s = ctx;
    pthread_mutex_lock(&s->mu);
    if (it->rc < 0) {
        s->errors++;
        if (it->rc == -ELOOP)
            s->loops++;
    } else if (s->n < 64) {
        snprintf(s->paths[s->n], sizeof(s->paths[s->n]), "%s", it->path + strlen(dir) + 1);
        s->types[s->n] = kt_detect(it->buf, it->len, it->path);
        s->n++;
    }
    if (it->worker > s->max_worker)
        s->max_worker = it->worker;
    pthread_mutex_unlock(&s->mu);
}

static size_t count_of(const struct seen *s, const char *path)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++)
        k += strcmp(s->paths[i], path) == 0;
    return k;
}

static void walk(void)
{
    sh("mkdir -p tree/a/b tree/c && cp c.der tree/a/cert.der && cp s.p7 tree/a/b/sig.p7"
       " && cp data.txt tree/c/notes.txt && : > tree/c/empty && cp db.esl tree/db.esl"
       " && ln -s .. tree/a/b/up && ln -s ../../c.pem tree/c/link.pem && mkfifo tree/c/fifo");
    char root[300];
    snprintf(root, sizeof(root), "%s/tree", dir);
    const char *paths[] = {root};
    static const struct {
        const char *path;
        enum kt_ftype type;
    } want[] = {
        {"tree/a/cert.der", KT_FT_X509},  {"tree/a/b/sig.p7", KT_FT_PKCS7},
        {"tree/c/notes.txt", KT_FT_UNKNOWN}, {"tree/c/empty", KT_FT_EMPTY},
        {"tree/db.esl", KT_FT_ESL},
    };
    size_t nwant = sizeof(want) / sizeof(want[0]);
    for (int follow = 0; follow <= 1; follow++) {
        struct seen s = {.mu = PTHREAD_MUTEX_INITIALIZER};
        struct kt_pool_opts o = {.jobs = 2, .follow_symlinks = follow};
        struct kt_error e = {0};
        CHECK_EQ_INT(kt_pool_run(paths, 1, &o, on_item, &s, &e), 0, "kt_pool_run");
        for (size_t i = 0; i < nwant; i++) {
            CHECK(count_of(&s, want[i].path) == 1, "follow=%d: %s seen %zu times", follow,
                  want[i].path, count_of(&s, want[i].path));
            for (size_t j = 0; j < s.n; j++)
                if (!strcmp(s.paths[j], want[i].path))
                    CHECK(s.types[j] == want[i].type, "%s: %s", want[i].path,
                          kt_ftype_name(s.types[j]));
        }
        /* the link to a file outside: a file only when links are followed;
         * the fifo: never (not a regular file) */
        CHECK_EQ_INT(count_of(&s, "tree/c/link.pem"), follow, "symlinked file");
        CHECK_EQ_INT(count_of(&s, "tree/c/fifo"), 0, "fifo not handed out");
        CHECK_EQ_INT(s.n, nwant + (size_t)follow, "no file twice, nothing else");
        CHECK(s.max_worker < 2, "worker ids below jobs: %u", s.max_worker);
        if (follow)
            CHECK(s.loops >= 1, "the up link's loop is reported (%zu errors)", s.errors);
        else
            CHECK_EQ_INT(s.errors, 0, "links not followed: no loop, no error");
        uint64_t files = 0, bytes = 0;
        kt_scan_count(paths, 1, follow, &files, &bytes);
        CHECK_EQ_INT(files, nwant + (size_t)follow, "kt_scan_count files");
    }
    /* a path that does not exist: reported through fn, not a start failure */
    char missing[300];
    snprintf(missing, sizeof(missing), "%s/nope", dir);
    const char *mp[] = {missing};
    struct seen s = {.mu = PTHREAD_MUTEX_INITIALIZER};
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_pool_run(mp, 1, &(struct kt_pool_opts){.jobs = 1}, on_item, &s, &e), 0,
                 "kt_pool_run of a missing path");
    CHECK(s.errors == 1 && s.n == 0, "missing path: one error (%zu), no file", s.errors);
    CHECK(kt_scan_default_jobs() >= 1, "default jobs");
}

struct names {
    char v[64][512];
    size_t n;
};

static int on_entry(void *arg, const struct kt_walk_entry *e)
{
    struct names *n = arg;
    if (e->kind == KT_WALK_FILE && n->n < 64)
        snprintf(n->v[n->n++], sizeof(n->v[0]), "%s", e->path + strlen(dir) + 1);
    return 0;
}

/* kt_walk: name order (not readdir order), depth bound, stop by return. */
static void walk_api(void)
{
    sh("mkdir -p deep/a/b/c && : > deep/z && : > deep/a/y && : > deep/a/b/x && : > deep/a/b/c/w"
       " && : > deep/a.txt");
    char root[300];
    snprintf(root, sizeof(root), "%s/deep", dir);
    const char *paths[] = {root};
    struct names n = {.n = 0};
    CHECK_EQ_INT(kt_walk(paths, 1, NULL, on_entry, &n), 0, "kt_walk");
    static const char *const want[] = {"deep/a/b/c/w", "deep/a/b/x", "deep/a/y", "deep/a.txt",
                                       "deep/z"};
    CHECK_EQ_INT(n.n, 5, "every file once");
    for (size_t i = 0; i < 5 && i < n.n; i++)
        CHECK(strcmp(n.v[i], want[i]) == 0, "walk order %zu: %s, want %s", i, n.v[i], want[i]);
    /* depth: directories deeper than 2 are not read (deep/a/b/c is level 3) */
    n.n = 0;
    struct kt_walk_opts o = {.max_depth = 2};
    kt_walk(paths, 1, &o, on_entry, &n);
    CHECK_EQ_INT(n.n, 4, "max_depth 2: deep/a/b/c/w left out");
}

struct order {
    char text[8192];
    size_t len, delivered;
    bool in_order;
};

static void render(void *arg, const struct kt_scan_file *f, FILE *out)
{
    (void)arg;
    fprintf(out, "%s %s %d\n", f->path + strlen(dir) + 1,
            f->result ? kt_result_type(f->result) : "-", f->rc);
}

static void deliver(void *arg, const struct kt_scan_done *d)
{
    struct order *o = arg;
    if (d->stats->files != ++o->delivered)
        o->in_order = false;
    if (o->len + d->len < sizeof(o->text)) {
        memcpy(o->text + o->len, d->text, d->len);
        o->len += d->len;
    }
}

/* kt_scan_verify: the same lines in the same order on 1 and 3 workers, and
 * the counts (no keys: the certificates are untrusted, the text skipped). */
static void scan_verify(void)
{
    char root[300];
    snprintf(root, sizeof(root), "%s/tree", dir);
    const char *paths[] = {root};
    struct order o1 = {.in_order = true}, o3 = {.in_order = true};
    struct kt_scan_stats st;
    struct kt_error e = {0};
    struct kt_scan_opts so = {.jobs = 1, .render = render, .deliver = deliver, .arg = &o1};
    CHECK_EQ_INT(kt_scan_verify(paths, 1, &so, &st, NULL, &e), 0, "kt_scan_verify -j1");
    CHECK(st.walked, "walked");
    CHECK_EQ_INT(st.files, 5, "five files");
    CHECK_EQ_INT(st.skipped, 2, "the text and the empty file skipped");
    CHECK_EQ_INT(st.unreadable, 0, "none unreadable");
    CHECK_EQ_INT(st.types[3], 1, "one x509 (types[3])");
    CHECK_EQ_STR(kt_scan_type_name(3), "x509", "type 3");
    CHECK_EQ_STR(kt_scan_type_name(0), "pe", "type 0");
    CHECK(kt_scan_type_name(KT_SCAN_N_TYPES) == NULL, "no type past the last");
    CHECK(o1.in_order, "delivered one at a time, counted as delivered");
    so.jobs = 3;
    so.arg = &o3;
    CHECK_EQ_INT(kt_scan_verify(paths, 1, &so, &st, NULL, &e), 0, "kt_scan_verify -j3");
    CHECK(o3.len == o1.len && memcmp(o1.text, o3.text, o1.len) == 0,
          "-j1 and -j3: the same lines in the same order:\n%.*s---\n%.*s", (int)o1.len,
          o1.text, (int)o3.len, o3.text);
    /* a setup failure: nothing delivered, walked false */
    struct kt_ctx_opts bad = {.store_mode = KT_CTX_STORE_READ, .store_path = "/nonexistent/s.db"};
    struct order o0 = {.in_order = true};
    so.keys = &bad;
    so.arg = &o0;
    e = (struct kt_error){0};
    CHECK(kt_scan_verify(paths, 1, &so, &st, NULL, &e) < 0, "a missing store fails");
    CHECK(!st.walked && o0.delivered == 0, "... before anything is delivered");
}

int main(void)
{
    const char *corpus = kt_test_require_corpus();
    snprintf(dir, sizeof(dir), "%s/kt-scan.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    detect(corpus);
    walk();
    walk_api();
    scan_verify();
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    KT_TEST_END();
}
