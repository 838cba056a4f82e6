/* ktrust keyring list|add|remove|export|create|push: manage the key store.
 * Every command that changes the store is one transaction. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cert_print.h"
#include "cli.h"
#include "keyload.h"
#include "keyring_cmd.h"
#include "ktrust/advanced.h"
#include "ktrust/x509.h"

enum {
    OPT_KEYRING = OPT_FIRST_PRIVATE,
    OPT_FORMAT,
    OPT_TO,
    OPT_RESTRICT,
    OPT_ALL,
    OPT_DRY_RUN,
    OPT_PK,
    OPT_KEK,
};

static const struct cli_opt opts[] = {
    CLI_OPT("keyring", 0, required_argument, OPT_KEYRING, "NAME",
            "the keyring to list, add to, remove from, export or push"),
    CLI_OPT("kek", 0, required_argument, OPT_KEK, "FILE",
            "add: a KEK (certificates or an EFI signature list) that may sign a signed EFI "
            "variable update (repeatable)"),
    CLI_OPT("pk", 0, required_argument, OPT_PK, "FILE",
            "add: the same for the PK (repeatable)"),
    CLI_OPT("all", 0, no_argument, OPT_ALL, NULL,
            "remove: every key an ID matches, not only a single one"),
    CLI_OPT("dry-run", 0, no_argument, OPT_DRY_RUN, NULL,
            "remove: say what would go, remove nothing"),
    CLI_OPT("format", 0, required_argument, OPT_FORMAT, "pem|der|esl",
            "export: the file's format (default pem); der is the certificates back to back "
            "(the kernel's list)"),
    CLI_OPT("output", 'o', required_argument, 'o', "FILE",
            "export: write to FILE (default: standard output)"),
    CLI_OPT("restrict", 0, required_argument, OPT_RESTRICT, "SPEC",
            "create: none, trusted-only or signed-by:RING[,RING] (default none)"),
    CLI_OPT("to", 0, required_argument, OPT_TO, "@u|@s|SERIAL",
            "push: the kernel keyring the keys are added to"),
    CLI_OPTS(cli_opts_common),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(f,
            "usage: ktrust keyring list [--keyring NAME] [--json]\n"
            "       ktrust keyring add --keyring NAME [--kek FILE]... [--pk FILE]... FILE...\n"
            "       ktrust keyring remove --keyring NAME [--all] [--dry-run] ID...\n"
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
            "in the blacklist also bin:HEX or tbs:HEX for a hash.  remove takes one key per\n"
            "ID: an ID matching several keys is refused (64, listing them) unless --all;\n"
            "--dry-run shows what would go; what is removed is printed.\n"
            "A signed EFI variable update (dbx into blacklist, db otherwise) is verified\n"
            "first with --kek/--pk (nothing is added if it does not verify); without them\n"
            "it is added with a note that it was not verified.  --trust on add: run-only\n"
            "builtin keys that may sign what is added.  --json: one object per key, file\n"
            "or id.  Every option is accepted by every action; each says which uses it.\n",
            opts,
            "exit codes: 0 done, 2 no key matches an ID, 4 malformed input, 5 blacklisted,\n"
            "6 refused by the keyring's restriction (nothing is written), 64 usage,\n"
            "66 unreadable input or read-only store, 70 internal error\n");
}

/* ---- list ----------------------------------------------------------------- */

static void list_ring(const struct kr_opts *o, struct kt_keyrings *k, struct kt_keyring *r,
                      struct jw *w)
{
    for (size_t i = 0; i < kt_keyring_count(r); i++) {
        const struct kt_key *key = kt_keyring_key(r, i);
        if (o->co.json) {
            jw_obj(w, NULL);
            jw_str(w, "type", "key");
            cli_cert_json_fields(w, kt_key_cert(key));
            jw_str(w, "keyring", kt_keyring_name(r));
            jw_bool(w, "trusted", kt_key_is_trusted(key));
            jw_str(w, "source", kt_key_source(key));
            jw_time(w, "added", kt_key_added(key));
            jw_obj_end(w);
            jw_newline(w);
        } else {
            const char *desc = kt_x509_description(kt_key_cert(key));
            printf("%s\t%s\t%s\t%s\n", tx(kt_keyring_name(r)),
                   kt_key_is_trusted(key) ? "trusted" : "untrusted", desc ? tx(desc) : "?",
                   tx(kt_key_source(key)));
        }
    }
    if (strcmp(kt_keyring_name(r), "blacklist") != 0)
        return;
    for (size_t i = 0; i < kt_blacklist_hash_count(k); i++) {
        const struct kt_blacklist_hash *b = kt_blacklist_hash_at(k, i);
        char hex[2 * 64 + 1]; /* SHA-512 at most */
        size_t dlen;
        const uint8_t *digest = kt_blacklist_hash_digest(b, &dlen);
        kt_hex(digest, dlen, hex);
        if (o->co.json) {
            jw_obj(w, NULL);
            jw_str(w, "type", "blacklist_hash");
            jw_str(w, "keyring", "blacklist");
            jw_str(w, "kind", kt_blacklist_hash_kind(b));
            jw_str(w, "hash_algorithm", kt_blacklist_hash_algorithm(b));
            jw_str(w, "digest", hex);
            jw_str(w, "source", kt_blacklist_hash_source(b));
            jw_obj_end(w);
            jw_newline(w);
        } else {
            printf("blacklist\t%s:%s\t%s\t%s\n", kt_blacklist_hash_kind(b), kt_blacklist_hash_algorithm(b), hex,
                   kt_blacklist_hash_source(b) ? tx(kt_blacklist_hash_source(b)) : "");
        }
    }
}

static int do_list(const struct kr_opts *o)
{
    const char *path;
    struct kt_ctx *ctx;
    struct kt_keyrings *k;
    int rc = kr_load_read(o, &ctx, &k, &path);
    if (rc)
        return rc;
    int ret = 0;
    struct jw w;
    jw_init(&w, stdout);
    if (o->keyring) {
        struct kt_keyring *r = kr_need_ring(k, o->keyring, &ret);
        if (r && !o->co.quiet)
            list_ring(o, k, r, &w);
    } else if (!o->co.quiet) {
        for (size_t i = 0; i < kt_keyrings_count(k); i++)
            list_ring(o, k, kt_keyrings_at(k, i), &w);
    }
    kt_ctx_free(ctx);
    return ret;
}

/* ---- add / remove / create ------------------------------------------------ */

/* A file that is not certificates at all (a PE, a module, a binary with a
 * PEM "BEGIN" inside): say what it is rather than the parser's complaint. */
static void name_wrong_kind(const char *path, int rc, struct kt_error *e)
{
    struct kt_file f;
    struct kt_error fe = KT_ERROR_INIT;
    if (cli_exit_code(rc) == EXIT_NOINPUT || kt_file_open(path, &f, &fe) < 0)
        return;
    const char *kind = kt_ctx_wrong_kind(f.data, f.len, path);
    char why[sizeof(e->what)];
    snprintf(why, sizeof(why), "%s", e->what);
    if (kind)
        kt_fail_over(e, rc, KT_NO_OFFSET, "%s, not certificates or an EFI signature list (%s)",
                     kind, why);
    kt_file_close(&f);
}

/* --json: one object per FILE once the transaction is over: the keys it
 * added (r's keys [from[i], to[i])), its hashes, stored or not and why. */
static void add_json(const struct kr_opts *o, struct kt_keyring *r, char **files, int nfiles,
                     const size_t *from, const size_t *to, const size_t *hashes, int failed,
                     int rc, const struct kt_error *e)
{
    struct jw w;
    jw_init(&w, stdout);
    for (int i = 0; i < nfiles; i++) {
        jw_obj(&w, NULL);
        jw_str(&w, "file", files[i]);
        jw_str(&w, "type", "keyring_add");
        jw_str(&w, "keyring", o->keyring);
        jw_bool(&w, "stored", rc == 0);
        jw_arr(&w, "keys");
        for (size_t j = from[i]; rc == 0 && r && j < to[i]; j++) {
            const struct kt_key *key = kt_keyring_key(r, j);
            jw_obj(&w, NULL);
            cli_cert_json_fields(&w, kt_key_cert(key));
            jw_bool(&w, "trusted", kt_key_is_trusted(key));
            jw_str(&w, "source", kt_key_source(key));
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_int(&w, "hashes", rc == 0 ? (long long)hashes[i] : 0);
        jw_str(&w, "error", i == failed || failed < 0 ? kt_errno_name(rc) : NULL);
        jw_str(&w, "reason", rc == 0 ? NULL : i == failed || failed < 0 ? e->what
                                                                        : "not stored: another file failed");
        jw_obj_end(&w);
        jw_newline(&w);
    }
}

static int do_add(const struct kr_opts *o, int nfiles, char **files)
{
    if (!o->keyring)
        return cli_usage_error("keyring", "add needs --keyring NAME");
    if (nfiles == 0)
        return cli_usage_error("keyring", "add needs at least one FILE");
    struct kt_ctx *ctx;
    struct kt_keyrings *k;
    const char *path;
    struct kt_error e = KT_ERROR_INIT;
    int ret = 0, failed = -1, rc = kr_begin(o, &ctx, &k, &path, &e);
    if (rc < 0) {
        if (o->co.json) {
            size_t *z = calloc((size_t)nfiles * 3, sizeof(*z));
            if (z)
                add_json(o, NULL, files, nfiles, z, z + nfiles, z + 2 * nfiles, -1, rc, &e);
            free(z);
        }
        return kr_fail(path, rc, &e);
    }
    struct kt_keyring *r = kr_need_ring(k, o->keyring, &ret);
    size_t total = 0;
    size_t *from = calloc((size_t)nfiles * 3, sizeof(*from));
    size_t *to = from + nfiles, *hashes = from + 2 * nfiles;
    if (!r || !from) {
        ret = ret ? ret : EXIT_INTERNAL;
        goto out;
    }
    struct cli_ctx_opts run;
    cli_ctx_opts(&o->co, KT_CTX_STORE_WRITE, &run);
    if ((rc = kt_ctx_add_run_keys(ctx, &run.o, &e)) < 0) {
        ret = kr_fail(NULL, rc, &e); /* "--trust FILE: ..." */
        goto out;
    }
    for (int i = 0; i < nfiles; i++) {
        size_t n = 0, h0 = kt_blacklist_hash_count(k);
        from[i] = kt_keyring_count(r);
        if ((ret = cli_update_check(files[i], o->keyring, &o->ua, o->co.quiet)) != 0) {
            failed = i;
            rc = ret == KT_REJECTED ? -EKEYREJECTED : ret == KT_UNTRUSTED ? -ENOKEY : -EBADMSG;
            kt_fail(&e, rc, KT_NO_OFFSET, "signed variable update not verified by --pk/--kek");
            goto out;
        }
        rc = kt_ctx_add_key_file(k, r, files[i], KT_ADD_EXPLICIT, false, &n, &e);
        to[i] = kt_keyring_count(r);
        hashes[i] = kt_blacklist_hash_count(k) - h0;
        if (rc < 0) {
            failed = i;
            name_wrong_kind(files[i], rc, &e);
            ret = kr_fail(files[i], rc, &e);
            goto out;
        }
        total += n;
    }
    if ((rc = kr_finish(ctx, &e)) < 0) {
        ret = kr_fail(path, rc, &e);
        goto out;
    }
    if (!o->co.quiet && !o->co.json)
        fprintf(stderr, "ktrust: added %zu to %s\n", total, tx(o->keyring));
out:
    if (o->co.json && from && r)
        add_json(o, r, files, nfiles, from, to, hashes, failed, rc, &e);
    free(from);
    kt_ctx_free(ctx); /* rolls back anything not committed */
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
    struct kt_ctx *ctx;
    struct kt_keyrings *k;
    const char *path;
    struct kt_error e = KT_ERROR_INIT;
    int ret = 0;
    if ((rc = kr_begin(o, &ctx, &k, &path, &e)) < 0) {
        free(vbuf);
        return kr_fail(path, rc, &e);
    }
    if ((rc = kt_keyring_create(k, args[0], rs, v, nv, &e)) < 0) {
        cli_error(NULL, &e);
        ret = EXIT_USAGE;
    } else if ((rc = kr_finish(ctx, &e)) < 0) {
        ret = kr_fail(path, rc, &e);
    }
    if (o->co.json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "keyring_create");
        jw_str(&w, "keyring", args[0]);
        jw_str(&w, "restriction", spec);
        jw_bool(&w, "created", ret == 0);
        jw_str(&w, "error", kt_errno_name(rc));
        jw_str(&w, "reason", rc ? e.what : NULL);
        jw_obj_end(&w);
        jw_newline(&w);
    }
    free(vbuf);
    kt_ctx_free(ctx);
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
    struct kr_opts o;
    memset(&o, 0, sizeof(o));
    struct cli_getopt g;
    int c;
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc - 1, argv + 1, &g)) != -1) {
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
        case OPT_ALL: o.all = true; break;
        case OPT_DRY_RUN: o.dry_run = true; break;
        case OPT_PK:
        case OPT_KEK:
            if (cli_update_auth_add(&o.ua, c == OPT_PK, optarg) < 0)
                return EXIT_USAGE;
            break;
        case 'h': usage(stdout); return 0;
        default: return EXIT_USAGE; /* cli_getopt said why */
        }
    }
    int nargs = argc - 1 - optind;
    char **args = argv + 1 + optind;
    if (!strcmp(action, "list"))
        return nargs ? cli_usage_error("keyring", "list takes no arguments") : do_list(&o);
    if (!strcmp(action, "add"))
        return do_add(&o, nargs, args);
    if (!strcmp(action, "remove"))
        return kr_do_remove(&o, nargs, args);
    if (!strcmp(action, "export"))
        return kr_do_export(&o, nargs);
    if (!strcmp(action, "create"))
        return do_create(&o, nargs, args);
    if (!strcmp(action, "push"))
        return kr_do_push(&o, nargs);
    return cli_usage_error("keyring", "unknown action '%s' (list, add, remove, export, create, push)",
                           action);
}
