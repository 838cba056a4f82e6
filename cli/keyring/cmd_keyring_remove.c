/* ktrust keyring remove: remove keys by id, one key per id unless --all, as
 * the kernel's "id:" lookup finds one key; --dry-run; says what went. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cert_print.h"
#include "keyring_cmd.h"
#include "ktrust/advanced.h"
#include "ktrust/x509.h"

#define MAX_SHOWN 20 /* matches listed in an "ambiguous id" error */

static void key_line(FILE *f, const char *verb, const char *ring, const struct kt_key *key)
{
    char hex[65];
    const struct kt_x509 *cert = kt_key_cert(key);
    const char *desc = kt_x509_description(cert);
    fprintf(f, "%s %s: %s (sha256 %s)\n", verb, tx(ring), desc ? tx(desc) : "?",
            kt_hex(kt_x509_sha256(cert), 32, hex));
}

/* The JSON object of one id: what it matches and whether that was removed. */
static void id_json(FILE *f, const struct kr_opts *o, const char *id, struct kt_keyring *r,
                    const struct kt_key *const *m, size_t n, bool removed, int rc,
                    const char *reason)
{
    struct jw w;
    jw_init(&w, f);
    jw_obj(&w, NULL);
    jw_str(&w, "type", "keyring_remove");
    jw_str(&w, "id", id);
    jw_str(&w, "keyring", kt_keyring_name(r));
    jw_arr(&w, "matches");
    for (size_t i = 0; i < n; i++) {
        jw_obj(&w, NULL);
        cli_cert_json_fields(&w, kt_key_cert(m[i]));
        jw_str(&w, "source", kt_key_source(m[i]));
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_bool(&w, "removed", removed);
    jw_bool(&w, "dry_run", o->dry_run);
    jw_str(&w, "error", kt_errno_name(rc));
    jw_str(&w, "reason", reason);
    jw_obj_end(&w);
    jw_newline(&w);
}

/* One key id: 0, or the exit code after printing why nothing is removed.
 * What is removed is said on out (kept until the commit is known). */
static int remove_key_id(FILE *out, const struct kr_opts *o, struct kt_keyrings *k,
                         struct kt_keyring *r, const char *id, bool check_only, int *total)
{
    size_t n = 0, cap = kt_keyring_count(r);
    const struct kt_key **m = calloc(cap ? cap : 1, sizeof(*m));
    if (!m)
        return EXIT_INTERNAL;
    for (size_t i = 0; i < cap; i++)
        if (kt_key_matches_id(kt_keyring_key(r, i), id))
            m[n++] = kt_keyring_key(r, i);
    int ret = 0;
    char reason[256];
    if (n == 0) {
        snprintf(reason, sizeof(reason), "no key in %s matches '%s' (nothing removed)",
                 kt_keyring_name(r), id);
        cli_errorf(NULL, "%s", reason);
        if (o->co.json)
            id_json(stdout, o, id, r, m, n, false, -ENOKEY, reason);
        ret = cli_exit_code(-ENOKEY);
    } else if (n > 1 && !o->all) {
        snprintf(reason, sizeof(reason),
                 "'%s' matches %zu keys in %s (nothing removed): give a longer id, 'ex:HEX', "
                 "or --all",
                 id, n, kt_keyring_name(r));
        cli_errorf(NULL, "%s", reason);
        for (size_t i = 0; i < n && i < MAX_SHOWN; i++)
            key_line(stderr, "  matches", kt_keyring_name(r), m[i]);
        if (n > MAX_SHOWN)
            fprintf(stderr, "  ... and %zu more\n", n - MAX_SHOWN);
        if (o->co.json)
            id_json(stdout, o, id, r, m, n, false, -EINVAL, reason);
        ret = EXIT_USAGE;
    } else if (!check_only) {
        for (size_t i = 0; !o->co.json && !o->co.quiet && i < n; i++)
            key_line(out, o->dry_run ? "would remove from" : "removed from",
                     kt_keyring_name(r), m[i]);
        if (o->co.json)
            id_json(out, o, id, r, m, n, !o->dry_run, 0, NULL);
        *total += (int)n;
    }
    free(m);
    /* the matches point into r: remove only after printing them */
    if (ret == 0 && !check_only && !o->dry_run && kt_keyring_remove(k, r, id) < 0)
        ret = EXIT_INTERNAL;
    return ret;
}

/* A blacklist hash id (bin:HEX, tbs:HEX): exact, so at most one. */
static int remove_hash_id(FILE *out, const struct kr_opts *o, struct kt_keyrings *k,
                          const char *id, bool check_only, int *total)
{
    int found = -1;
    for (size_t i = 0; i < kt_blacklist_hash_count(k); i++) {
        const struct kt_blacklist_hash *b = kt_blacklist_hash_at(k, i);
        char hex[2 * 64 + 1]; /* SHA-512 at most */
        size_t dlen;
        const uint8_t *digest = kt_blacklist_hash_digest(b, &dlen);
        kt_hex(digest, dlen, hex);
        if (!strncmp(id, kt_blacklist_hash_kind(b), 3) && !strcasecmp(id + 4, hex))
            found = (int)i;
    }
    if (found < 0) {
        cli_errorf(NULL, "blacklist: no hash matches '%s' (nothing removed)", id);
        return cli_exit_code(-ENOKEY);
    }
    if (check_only)
        return 0;
    if (o->co.json) {
        struct jw w;
        jw_init(&w, out);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "keyring_remove");
        jw_str(&w, "id", id);
        jw_str(&w, "keyring", "blacklist");
        jw_bool(&w, "removed", !o->dry_run);
        jw_bool(&w, "dry_run", o->dry_run);
        jw_null(&w, "error");
        jw_null(&w, "reason");
        jw_obj_end(&w);
        jw_newline(&w);
    } else if (!o->co.quiet) {
        fprintf(out, "%s blacklist: %s\n", o->dry_run ? "would remove from" : "removed from",
                tx(id));
    }
    (*total)++;
    if (o->dry_run)
        return 0;
    int n = kt_blacklist_remove_hash(k, id);
    if (n < 0) {
        cli_errorf(NULL, "cannot remove '%s': want bin:HEX or tbs:HEX of a SHA-256/384/512", id);
        return EXIT_USAGE;
    }
    return 0;
}

int kr_do_remove(const struct kr_opts *o, int nids, char **ids)
{
    if (!o->keyring)
        return cli_usage_error("keyring", "remove needs --keyring NAME");
    if (nids == 0)
        return cli_usage_error("keyring", "remove needs at least one ID");
    struct kt_ctx *ctx;
    struct kt_keyrings *k;
    const char *path;
    struct kt_error e = KT_ERROR_INIT;
    int ret = 0, rc = kr_begin(o, &ctx, &k, &path, &e);
    if (rc < 0)
        return kr_fail(path, rc, &e);
    struct kt_keyring *r = kr_need_ring(k, o->keyring, &ret);
    int total = 0;
    bool is_bl = r && r == kt_keyrings_get(k, "blacklist");
    /* what is removed is said only once the commit succeeded */
    char *said = NULL;
    size_t said_len = 0;
    FILE *out = o->dry_run ? stdout : open_memstream(&said, &said_len);
    if (!out)
        ret = EXIT_INTERNAL;
    /* every id is checked before anything is removed or said removed */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; out && r && i < nids && ret == 0; i++) {
            bool hash_id = !strncmp(ids[i], "bin:", 4) || !strncmp(ids[i], "tbs:", 4);
            ret = hash_id && is_bl ? remove_hash_id(out, o, k, ids[i], pass == 0, &total)
                                   : remove_key_id(out, o, k, r, ids[i], pass == 0, &total);
        }
    }
    if (ret == 0 && !o->dry_run && (rc = kr_finish(ctx, &e)) < 0) {
        ret = kr_fail(path, rc, &e);
        for (int i = 0; o->co.json && i < nids; i++) /* nothing was removed */
            id_json(stdout, o, ids[i], r, NULL, 0, false, rc, e.what);
        if (!o->co.json && !o->co.quiet)
            fprintf(stderr, "ktrust: nothing removed from %s\n", tx(o->keyring));
    }
    if (out && out != stdout) {
        fclose(out);
        if (ret == 0)
            fwrite(said, 1, said_len, stdout);
        free(said);
    }
    if (ret == 0 && !o->co.quiet && !o->co.json)
        fprintf(stderr, "ktrust: %s %d from %s\n", o->dry_run ? "would remove" : "removed", total,
                tx(o->keyring));
    kt_ctx_free(ctx); /* rolls back anything not committed */
    return ret;
}
