/* ktrust keyring list|add|remove|export|create|push: manage the key store.
 * Every command that changes the store is one transaction. */
#include <errno.h>
#include <keyutils.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cert_print.h"
#include "cli.h"
#include "esl/esl.h"
#include "keyload.h"
#include "update_check.h"
#include "util/file.h"

enum {
    OPT_KEYRING = OPT_FIRST_PRIVATE,
    OPT_FORMAT,
    OPT_TO,
    OPT_RESTRICT,
    OPT_PK,
    OPT_KEK,
};

struct kr_opts {
    struct cli_common co;
    const char *keyring, *format, *out, *to, *restrict_spec;
    struct cli_update_auth ua; /* add: --pk/--kek for signed EFI variable updates */
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ktrust keyring list [--keyring NAME] [--json]\n"
            "       ktrust keyring add --keyring NAME [--kek FILE]... [--pk FILE]... FILE...\n"
            "       ktrust keyring remove --keyring NAME ID...\n"
            "       ktrust keyring export --keyring NAME --format pem|der|esl [-o FILE]\n"
            "       ktrust keyring create NAME --restrict none|trusted-only|signed-by:RING[,RING]\n"
            "       ktrust keyring push --keyring NAME --to @u|@s|SERIAL\n\n"
            "Keyrings: builtin (trusted-only: an explicit add is 'compiled in'),\n"
            "secondary (a key must be signed by a key in builtin, secondary or machine),\n"
            "platform (UEFI db/MOK: vouches for PE images, never modules), machine (MOK),\n"
            "blacklist (revocation certificates and ESL hashes), and user keyrings.\n"
            "FILE: DER, PEM, PEM bundle, concatenated DER certificates or EFI signature\n"
            "lists (X509 entries become keys; SHA256 entries bin: and X509_SHA* entries\n"
            "tbs: blacklist hashes).  ID: a description, or hex of the SKID, serial or\n"
            "SHA-256 (a trailing part matches, as the kernel's 'id:'; 'ex:HEX' is exact);\n"
            "in the blacklist also bin:HEX or tbs:HEX for a hash.\n"
            "A signed EFI variable update (dbx into blacklist, db otherwise) is verified\n"
            "first with --kek/--pk (nothing is added if it does not verify); without them\n"
            "it is added with a note that it was not verified.\n"
            "Export as der writes the certificates back to back (the kernel's list).\n\n"
            "options: --store PATH (else $KTRUST_STORE, else $XDG_DATA_HOME/ktrust/keyrings.db)\n"
            "         --trust FILE (add: run-only builtin keys that may sign what is added)\n"
            "         --json, -q, -o FILE\n\n"
            "exit codes: 0 done, 2 no key matches an ID, 4 malformed input, 5 blacklisted,\n"
            "6 refused by the keyring's restriction (nothing is written), 64 usage,\n"
            "66 unreadable input or read-only store, 70 internal error\n");
}

/* The store path for keyring commands: --store, $KTRUST_STORE, else XDG
 * (--trust never disables the store here). */
static const char *store_path(const struct cli_common *co, char *buf, size_t cap)
{
    struct cli_common c = *co;
    c.n_trust = 0;
    c.kernel = NULL;
    return cli_store_path(&c, buf, cap);
}

static int fail(const char *file, int rc, const struct kt_error *e)
{
    cli_error(file, e);
    return cli_exit_code(rc);
}

/* Open the store for writing, start the transaction and load everything. */
static int begin(const struct kr_opts *o, struct kt_store **s, struct kt_keyrings **k,
                 const char **path, struct kt_error *e)
{
    static char buf[4096];
    *path = store_path(&o->co, buf, sizeof(buf));
    int rc = kt_keyrings_new(k);
    if (rc < 0)
        return kt_fail(e, rc, KT_NO_OFFSET, "out of memory");
    if ((rc = kt_store_open(*path, KT_STORE_WRITE, s, e)) < 0 ||
        (rc = kt_store_begin_write(*s, e)) < 0 || (rc = kt_store_load(*s, *k, e)) < 0) {
        kt_store_close(*s);
        *s = NULL;
        kt_keyrings_free(*k);
        *k = NULL;
    }
    return rc;
}

/* Save and commit; on failure everything is rolled back. */
static int finish(struct kt_store *s, struct kt_keyrings *k, struct kt_error *e)
{
    int rc = kt_store_save(s, k, e);
    if (rc == 0)
        rc = kt_store_commit(s, e);
    else
        kt_store_rollback(s);
    return rc;
}

static struct kt_keyring *need_ring(struct kt_keyrings *k, const char *name, int *ret)
{
    struct kt_keyring *r = kt_keyrings_get(k, name);
    if (!r) {
        cli_errorf(NULL, "no keyring '%s' (builtin, secondary, platform, machine, blacklist, or "
                         "one made by 'keyring create')",
                   name);
        *ret = EXIT_USAGE;
    }
    return r;
}

/* ---- list ----------------------------------------------------------------- */

static void list_ring(const struct kr_opts *o, struct kt_keyrings *k, struct kt_keyring *r,
                      struct jw *w)
{
    for (size_t i = 0; i < kt_keyring_count(r); i++) {
        const struct kt_key *key = kt_keyring_key(r, i);
        if (o->co.json) {
            jw_obj(w, NULL);
            cli_cert_json_fields(w, key->cert);
            jw_str(w, "keyring", kt_keyring_name(r));
            jw_bool(w, "trusted", key->trusted);
            jw_str(w, "source", key->source);
            jw_time(w, "added", key->added);
            jw_obj_end(w);
            jw_newline(w);
        } else {
            printf("%s\t%s\t%s\t%s\n", kt_keyring_name(r), key->trusted ? "trusted" : "untrusted",
                   key->cert->description ? key->cert->description : "?", key->source);
        }
    }
    if (strcmp(kt_keyring_name(r), "blacklist") != 0)
        return;
    for (size_t i = 0; i < kt_blacklist_hash_count(k); i++) {
        const struct kt_blacklist_hash *b = kt_blacklist_hash_at(k, i);
        char hex[2 * KT_HASH_MAX_SIZE + 1];
        kt_hex(b->digest, b->len, hex);
        if (o->co.json) {
            jw_obj(w, NULL);
            jw_str(w, "keyring", "blacklist");
            jw_str(w, "kind", b->kind);
            jw_str(w, "hash_algorithm", kt_hash_name(b->hash));
            jw_str(w, "digest", hex);
            jw_str(w, "source", b->source);
            jw_obj_end(w);
            jw_newline(w);
        } else {
            printf("blacklist\t%s:%s\t%s\t%s\n", b->kind, kt_hash_name(b->hash), hex,
                   b->source ? b->source : "");
        }
    }
}

static int do_list(const struct kr_opts *o)
{
    char buf[4096];
    const char *path = store_path(&o->co, buf, sizeof(buf));
    struct kt_keyrings *k;
    struct kt_store *s = NULL;
    struct kt_error e = {0};
    e.offset = KT_NO_OFFSET;
    if (kt_keyrings_new(&k) < 0)
        return EXIT_INTERNAL;
    int rc = kt_store_open(path, KT_STORE_READ, &s, &e);
    if (rc == 0)
        rc = kt_store_load(s, k, &e);
    else if (rc == -ENOENT)
        rc = 0; /* no store yet: nothing to list */
    kt_store_close(s);
    if (rc < 0) {
        kt_keyrings_free(k);
        return fail(path, rc, &e);
    }
    int ret = 0;
    struct jw w;
    jw_init(&w, stdout);
    if (o->keyring) {
        struct kt_keyring *r = need_ring(k, o->keyring, &ret);
        if (r && !o->co.quiet)
            list_ring(o, k, r, &w);
    } else if (!o->co.quiet) {
        for (size_t i = 0; i < kt_keyrings_count(k); i++)
            list_ring(o, k, kt_keyrings_at(k, i), &w);
    }
    kt_keyrings_free(k);
    return ret;
}

/* ---- add / remove / create ------------------------------------------------ */

static int do_add(const struct kr_opts *o, int nfiles, char **files)
{
    if (!o->keyring)
        return cli_usage_error("keyring", "add needs --keyring NAME");
    if (nfiles == 0)
        return cli_usage_error("keyring", "add needs at least one FILE");
    struct kt_store *s;
    struct kt_keyrings *k;
    const char *path;
    struct kt_error e = {0};
    e.offset = KT_NO_OFFSET;
    int ret = 0, rc = begin(o, &s, &k, &path, &e);
    if (rc < 0)
        return fail(path, rc, &e);
    struct kt_keyring *r = need_ring(k, o->keyring, &ret);
    size_t total = 0;
    if (!r)
        goto out;
    for (size_t i = 0; i < o->co.n_trust; i++) {
        if ((rc = cli_add_key_file(k, kt_keyrings_get(k, "builtin"), o->co.trust[i],
                                   KT_ADD_EXPLICIT, true, NULL, &e)) < 0) {
            ret = fail(o->co.trust[i], rc, &e);
            goto out;
        }
    }
    for (int i = 0; i < nfiles; i++) {
        size_t n = 0;
        if ((ret = cli_update_check(files[i], o->keyring, &o->ua, o->co.quiet)) != 0)
            goto out;
        if ((rc = cli_add_key_file(k, r, files[i], KT_ADD_EXPLICIT, false, &n, &e)) < 0) {
            ret = fail(files[i], rc, &e);
            goto out;
        }
        total += n;
    }
    if ((rc = finish(s, k, &e)) < 0) {
        ret = fail(path, rc, &e);
        goto out;
    }
    if (!o->co.quiet)
        fprintf(stderr, "ktrust: added %zu to %s\n", total, o->keyring);
out:
    kt_store_close(s); /* rolls back anything not committed */
    kt_keyrings_free(k);
    return ret;
}

static int do_remove(const struct kr_opts *o, int nids, char **ids)
{
    if (!o->keyring)
        return cli_usage_error("keyring", "remove needs --keyring NAME");
    if (nids == 0)
        return cli_usage_error("keyring", "remove needs at least one ID");
    struct kt_store *s;
    struct kt_keyrings *k;
    const char *path;
    struct kt_error e = {0};
    e.offset = KT_NO_OFFSET;
    int ret = 0, rc = begin(o, &s, &k, &path, &e);
    if (rc < 0)
        return fail(path, rc, &e);
    struct kt_keyring *r = need_ring(k, o->keyring, &ret);
    int total = 0;
    if (!r)
        goto out;
    for (int i = 0; i < nids; i++) {
        bool hash_id = !strncmp(ids[i], "bin:", 4) || !strncmp(ids[i], "tbs:", 4);
        int n = hash_id && r == kt_keyrings_get(k, "blacklist") ? kt_blacklist_remove_hash(k, ids[i])
                                                                 : kt_keyring_remove(k, r, ids[i]);
        if (n < 0) {
            kt_fail(&e, n, KT_NO_OFFSET, "cannot remove '%s'", ids[i]);
            ret = fail(NULL, n, &e);
            goto out;
        }
        if (n == 0) {
            cli_errorf(NULL, "%s: no key matches '%s' (nothing removed)", o->keyring, ids[i]);
            ret = cli_exit_code(-ENOKEY);
            goto out;
        }
        total += n;
    }
    if ((rc = finish(s, k, &e)) < 0) {
        ret = fail(path, rc, &e);
        goto out;
    }
    if (!o->co.quiet)
        fprintf(stderr, "ktrust: removed %d from %s\n", total, o->keyring);
out:
    kt_store_close(s);
    kt_keyrings_free(k);
    return ret;
}

static int do_create(const struct kr_opts *o, int nargs, char **args)
{
    if (nargs != 1)
        return cli_usage_error("keyring", "create needs one NAME");
    const char *spec = o->restrict_spec ? o->restrict_spec : "none";
    enum kt_restrict rs;
    char *vbuf = NULL;
    const char *v[32];
    size_t nv = 0;
    int rc = kt_restriction_parse(spec, &rs, &vbuf, v, 32, &nv);
    if (rc < 0)
        return cli_usage_error("keyring",
                               "--restrict '%s': want none, trusted-only or signed-by:RING[,RING]",
                               spec);
    struct kt_store *s;
    struct kt_keyrings *k;
    const char *path;
    struct kt_error e = {0};
    e.offset = KT_NO_OFFSET;
    int ret = 0;
    if ((rc = begin(o, &s, &k, &path, &e)) < 0) {
        free(vbuf);
        return fail(path, rc, &e);
    }
    if ((rc = kt_keyring_create(k, args[0], rs, v, nv, &e)) < 0) {
        cli_error(NULL, &e);
        ret = EXIT_USAGE;
    } else if ((rc = finish(s, k, &e)) < 0) {
        ret = fail(path, rc, &e);
    }
    free(vbuf);
    kt_store_close(s);
    kt_keyrings_free(k);
    return ret;
}

/* ---- export ---------------------------------------------------------------- */

struct obuf {
    uint8_t *p;
    size_t n, cap;
};

static int put(struct obuf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap : 4096;
        while (nc < b->n + n)
            nc *= 2;
        uint8_t *np = realloc(b->p, nc);
        if (!np)
            return -ENOMEM;
        b->p = np;
        b->cap = nc;
    }
    if (n)
        memcpy(b->p + b->n, d, n);
    b->n += n;
    return 0;
}

static int put_pem(struct obuf *b, const uint8_t *der, size_t len)
{
    size_t n;
    char *pem = kt_pem_encode_cert(der, len, &n);
    if (!pem)
        return -ENOMEM;
    int rc = put(b, pem, n);
    free(pem);
    return rc;
}

static int export_esl_hashes(struct kt_keyrings *k, struct obuf *b)
{
    static const struct {
        const char *kind;
        enum kt_hash h;
        enum kt_esl_type t;
    } kinds[] = {{"bin", KT_HASH_SHA256, KT_ESL_SHA256},
                 {"tbs", KT_HASH_SHA256, KT_ESL_X509_SHA256},
                 {"tbs", KT_HASH_SHA384, KT_ESL_X509_SHA384},
                 {"tbs", KT_HASH_SHA512, KT_ESL_X509_SHA512}};
    size_t nh = kt_blacklist_hash_count(k);
    if (!nh)
        return 0;
    const uint8_t **d = calloc(nh, sizeof(*d));
    if (!d)
        return -ENOMEM;
    int rc = 0;
    for (size_t t = 0; t < 4 && rc == 0; t++) {
        size_t n = 0;
        for (size_t i = 0; i < nh; i++) {
            const struct kt_blacklist_hash *h = kt_blacklist_hash_at(k, i);
            if (!strcmp(h->kind, kinds[t].kind) && h->hash == kinds[t].h)
                d[n++] = h->digest;
        }
        if (!n)
            continue;
        uint8_t *esl = NULL;
        size_t len = 0;
        rc = kt_esl_build_hashes(kinds[t].t, d, n, NULL, &esl, &len);
        if (rc == 0)
            rc = put(b, esl, len);
        free(esl);
    }
    free(d);
    return rc;
}

static int do_export(const struct kr_opts *o, int nargs)
{
    if (!o->keyring)
        return cli_usage_error("keyring", "export needs --keyring NAME");
    if (nargs)
        return cli_usage_error("keyring", "export takes no FILE (use -o FILE)");
    const char *fmt = o->format ? o->format : "pem";
    if (strcmp(fmt, "pem") && strcmp(fmt, "der") && strcmp(fmt, "esl"))
        return cli_usage_error("keyring", "--format '%s': want pem, der or esl", fmt);
    char buf[4096];
    const char *path = store_path(&o->co, buf, sizeof(buf));
    struct kt_keyrings *k;
    struct kt_store *s = NULL;
    struct kt_error e = {0};
    e.offset = KT_NO_OFFSET;
    if (kt_keyrings_new(&k) < 0)
        return EXIT_INTERNAL;
    int rc = kt_store_open(path, KT_STORE_READ, &s, &e);
    if (rc == 0)
        rc = kt_store_load(s, k, &e);
    else if (rc == -ENOENT)
        rc = 0;
    kt_store_close(s);
    if (rc < 0) {
        kt_keyrings_free(k);
        return fail(path, rc, &e);
    }
    int ret = 0;
    struct kt_keyring *r = need_ring(k, o->keyring, &ret);
    struct obuf b = {0};
    if (!r)
        goto out;
    size_t n = kt_keyring_count(r);
    if (!strcmp(fmt, "esl")) {
        kt_span *spans = calloc(n ? n : 1, sizeof(*spans));
        if (!spans) {
            ret = EXIT_INTERNAL;
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            spans[i] = (kt_span){kt_keyring_key(r, i)->der, kt_keyring_key(r, i)->der_len};
        uint8_t *esl = NULL;
        size_t len = 0;
        rc = kt_esl_build_x509(spans, n, NULL, &esl, &len);
        free(spans);
        if (rc == 0)
            rc = put(&b, esl, len);
        free(esl);
        if (rc == 0 && !strcmp(o->keyring, "blacklist"))
            rc = export_esl_hashes(k, &b);
    } else {
        for (size_t i = 0; i < n && rc == 0; i++) {
            const struct kt_key *key = kt_keyring_key(r, i);
            rc = !strcmp(fmt, "der") ? put(&b, key->der, key->der_len)
                                     : put_pem(&b, key->der, key->der_len);
        }
    }
    if (rc < 0) {
        kt_fail(&e, rc, KT_NO_OFFSET, "cannot build the %s export", fmt);
        ret = fail(NULL, rc, &e);
        goto out;
    }
    if (o->out && strcmp(o->out, "-") != 0) {
        if ((rc = kt_file_write_atomic(o->out, b.p ? (void *)b.p : (void *)"", b.n, &e)) < 0)
            ret = fail(o->out, rc, &e);
    } else if (b.n && fwrite(b.p, 1, b.n, stdout) != b.n) {
        cli_errorf(NULL, "write error on standard output");
        ret = EXIT_INTERNAL;
    }
out:
    free(b.p);
    kt_keyrings_free(k);
    return ret;
}

/* ---- push ------------------------------------------------------------------ */

static int do_push(const struct kr_opts *o, int nargs)
{
    if (!o->keyring || !o->to)
        return cli_usage_error("keyring", "push needs --keyring NAME and --to @u|@s|SERIAL");
    if (nargs)
        return cli_usage_error("keyring", "push takes no FILE");
    key_serial_t dest;
    if (!strcmp(o->to, "@u"))
        dest = KEY_SPEC_USER_KEYRING;
    else if (!strcmp(o->to, "@s"))
        dest = KEY_SPEC_SESSION_KEYRING;
    else if (!strcmp(o->to, "@us"))
        dest = KEY_SPEC_USER_SESSION_KEYRING;
    else {
        char *end;
        long v = strtol(o->to, &end, 0);
        if (*o->to == 0 || *end || v <= 0 || v > 0x7fffffff)
            return cli_usage_error("keyring", "--to '%s': want @u, @s or a keyring serial",
                                   o->to);
        dest = (key_serial_t)v;
    }
    char buf[4096];
    const char *path = store_path(&o->co, buf, sizeof(buf));
    struct kt_keyrings *k;
    struct kt_store *s = NULL;
    struct kt_error e = {0};
    e.offset = KT_NO_OFFSET;
    if (kt_keyrings_new(&k) < 0)
        return EXIT_INTERNAL;
    int rc = kt_store_open(path, KT_STORE_READ, &s, &e);
    if (rc == 0)
        rc = kt_store_load(s, k, &e);
    else if (rc == -ENOENT)
        rc = 0;
    kt_store_close(s);
    if (rc < 0) {
        kt_keyrings_free(k);
        return fail(path, rc, &e);
    }
    int ret = 0;
    struct kt_keyring *r = need_ring(k, o->keyring, &ret);
    struct jw w;
    jw_init(&w, stdout);
    for (size_t i = 0; r && i < kt_keyring_count(r); i++) {
        const struct kt_key *key = kt_keyring_key(r, i);
        const char *want = key->cert->description ? key->cert->description : "";
        key_serial_t id = add_key("asymmetric", NULL, key->der, key->der_len, dest);
        if (id < 0) {
            int er = errno;
            cli_errorf(want, "the kernel refused the key: %s", strerror(er));
            ret = ret > EXIT_NOINPUT ? ret : (er == EKEYREJECTED ? 5 : er == EBADMSG ? 4
                                              : er == ENOPKG       ? 3
                                              : er == EPERM || er == EACCES ? 6
                                                                            : EXIT_INTERNAL);
            continue;
        }
        char *desc = NULL;
        const char *kdesc = "";
        if (keyctl_describe_alloc(id, &desc) >= 0 && desc) {
            /* "type;uid;gid;perm;description" */
            const char *p = desc;
            for (int f = 0; f < 4 && p; f++) {
                p = strchr(p, ';');
                if (p)
                    p++;
            }
            kdesc = p ? p : "";
        }
        bool same = !strcmp(kdesc, want);
        if (o->co.json) {
            jw_obj(&w, NULL);
            jw_str(&w, "description", want);
            jw_int(&w, "serial", id);
            jw_str(&w, "kernel_description", kdesc);
            jw_bool(&w, "match", same);
            jw_obj_end(&w);
            jw_newline(&w);
        } else if (!o->co.quiet) {
            printf("%d\t%s\n", id, kdesc);
        }
        if (!same) {
            cli_errorf(want, "the kernel describes key %d as '%s'", id, kdesc);
            ret = ret ? ret : EXIT_INTERNAL;
        }
        free(desc);
    }
    kt_keyrings_free(k);
    return ret;
}

/* ---- dispatch -------------------------------------------------------------- */

int cmd_keyring(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *action = argv[1];
    if (!strcmp(action, "--help") || !strcmp(action, "-h") || !strcmp(action, "help")) {
        usage(stdout);
        return 0;
    }
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"keyring", required_argument, NULL, OPT_KEYRING},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"output", required_argument, NULL, 'o'},
        {"to", required_argument, NULL, OPT_TO},
        {"restrict", required_argument, NULL, OPT_RESTRICT},
        {"pk", required_argument, NULL, OPT_PK},
        {"kek", required_argument, NULL, OPT_KEK},
        {NULL, 0, NULL, 0},
    };
    struct kr_opts o;
    memset(&o, 0, sizeof(o));
    int c;
    optind = 1;
    while ((c = getopt_long(argc - 1, argv + 1, "qho:", longopts, NULL)) != -1) {
        int r = cli_common_opt(&o.co, c, optarg);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case OPT_KEYRING: o.keyring = optarg; break;
        case OPT_FORMAT: o.format = optarg; break;
        case 'o': o.out = optarg; break;
        case OPT_TO: o.to = optarg; break;
        case OPT_RESTRICT: o.restrict_spec = optarg; break;
        case OPT_PK:
        case OPT_KEK:
            if (cli_update_auth_add(&o.ua, c == OPT_PK, optarg) < 0)
                return EXIT_USAGE;
            break;
        case 'h': usage(stdout); return 0;
        default: return cli_usage_error("keyring", "bad option");
        }
    }
    int nargs = argc - 1 - optind;
    char **args = argv + 1 + optind;
    if (!strcmp(action, "list"))
        return nargs ? cli_usage_error("keyring", "list takes no arguments") : do_list(&o);
    if (!strcmp(action, "add"))
        return do_add(&o, nargs, args);
    if (!strcmp(action, "remove"))
        return do_remove(&o, nargs, args);
    if (!strcmp(action, "export"))
        return do_export(&o, nargs);
    if (!strcmp(action, "create"))
        return do_create(&o, nargs, args);
    if (!strcmp(action, "push"))
        return do_push(&o, nargs);
    return cli_usage_error("keyring", "unknown action '%s' (list, add, remove, export, create, push)",
                           action);
}
