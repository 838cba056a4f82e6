/* ktrust keyring export|push: the store's keys out, to a file or to a real
 * kernel keyring. */
#include <errno.h>
#include <keyutils.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert_print.h"
#include "keyring_cmd.h"
#include "ktrust/advanced.h"
#include "ktrust/x509.h"

/* ---- export ---------------------------------------------------------------- */

/* --json to stdout: one object per key (the listing fields and its PEM),
 * then the blacklist's hashes. */
static int export_json(struct kt_keyring *r, struct kt_keyrings *k)
{
    struct jw w;
    jw_init(&w, stdout);
    for (size_t i = 0; i < kt_keyring_count(r); i++) {
        const struct kt_key *key = kt_keyring_key(r, i);
        size_t n, der_len;
        const uint8_t *der = kt_x509_der(kt_key_cert(key), &der_len);
        char *pem = kt_pem_encode_cert(der, der_len, &n);
        if (!pem)
            return EXIT_INTERNAL;
        jw_obj(&w, NULL);
        jw_str(&w, "type", "key");
        cli_cert_json_fields(&w, kt_key_cert(key));
        jw_str(&w, "keyring", kt_keyring_name(r));
        jw_bool(&w, "trusted", kt_key_is_trusted(key));
        jw_str(&w, "source", kt_key_source(key));
        jw_str(&w, "pem", pem);
        jw_obj_end(&w);
        jw_newline(&w);
        free(pem);
    }
    if (strcmp(kt_keyring_name(r), "blacklist") != 0)
        return 0;
    for (size_t i = 0; i < kt_blacklist_hash_count(k); i++) {
        const struct kt_blacklist_hash *h = kt_blacklist_hash_at(k, i);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "blacklist_hash");
        jw_str(&w, "keyring", "blacklist");
        jw_str(&w, "kind", kt_blacklist_hash_kind(h));
        jw_str(&w, "hash_algorithm", kt_blacklist_hash_algorithm(h));
        size_t dlen;
        const uint8_t *digest = kt_blacklist_hash_digest(h, &dlen);
        jw_hex(&w, "digest", digest, dlen);
        jw_str(&w, "source", kt_blacklist_hash_source(h));
        jw_obj_end(&w);
        jw_newline(&w);
    }
    return 0;
}

/* --json with -o FILE: what was written. */
static void export_summary_json(const struct kr_opts *o, const char *fmt, size_t keys,
                                size_t hashes, size_t bytes, int rc, const struct kt_error *e)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "file", o->out);
    jw_str(&w, "type", "keyring_export");
    jw_str(&w, "keyring", o->keyring);
    jw_str(&w, "format", fmt);
    jw_int(&w, "keys", (long long)keys);
    jw_int(&w, "hashes", (long long)hashes);
    jw_int(&w, "bytes", rc ? 0 : (long long)bytes);
    jw_str(&w, "error", kt_errno_name(rc));
    jw_str(&w, "reason", rc ? e->what : NULL);
    jw_obj_end(&w);
    jw_newline(&w);
}

int kr_do_export(const struct kr_opts *o, int nargs)
{
    if (!o->keyring)
        return cli_usage_error("keyring", "export needs --keyring NAME");
    if (nargs)
        return cli_usage_error("keyring", "export takes no FILE (use -o FILE)");
    const char *fmt = o->format ? o->format : "pem";
    enum kt_export_format f;
    if (kt_export_format_parse(fmt, &f) < 0)
        return cli_usage_error("keyring", "--format '%s': want pem, der or esl", fmt);
    const char *path;
    struct kt_ctx *ctx;
    struct kt_keyrings *k;
    int rc = kr_load_read(o, &ctx, &k, &path);
    if (rc)
        return rc;
    struct kt_error e = KT_ERROR_INIT;
    int ret = 0;
    struct kt_keyring *r = kr_need_ring(k, o->keyring, &ret);
    uint8_t *buf = NULL;
    size_t len = 0, hashes = 0;
    if (!r)
        goto out;
    if ((rc = kt_keyring_export(k, r, f, &buf, &len, &hashes)) < 0) {
        kt_fail(&e, rc, KT_NO_OFFSET, "cannot build the %s export", fmt);
        ret = kr_fail(NULL, rc, &e);
        goto out;
    }
    bool to_file = o->out && strcmp(o->out, "-") != 0;
    if (to_file) {
        if ((rc = kt_file_write_atomic(o->out, buf ? (void *)buf : (void *)"", len, &e)) < 0)
            ret = kr_fail(o->out, rc, &e);
        if (o->co.json)
            export_summary_json(o, fmt, kt_keyring_count(r), hashes, len, rc, &e);
    } else if (o->co.json) {
        ret = export_json(r, k);
    } else if (len && fwrite(buf, 1, len, stdout) != len) {
        cli_errorf(NULL, "write error on standard output");
        ret = EXIT_INTERNAL;
    }
out:
    free(buf);
    kt_ctx_free(ctx);
    return ret;
}

/* ---- push ------------------------------------------------------------------ */

int kr_do_push(const struct kr_opts *o, int nargs)
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
    const char *path;
    struct kt_ctx *ctx;
    struct kt_keyrings *k;
    int rc = kr_load_read(o, &ctx, &k, &path);
    if (rc)
        return rc;
    int ret = 0;
    size_t pushed = 0;
    struct kt_keyring *r = kr_need_ring(k, o->keyring, &ret);
    struct jw w;
    jw_init(&w, stdout);
    for (size_t i = 0; r && i < kt_keyring_count(r); i++) {
        const struct kt_key *key = kt_keyring_key(r, i);
        const struct kt_x509 *cert = kt_key_cert(key);
        const char *want = kt_x509_description(cert) ? kt_x509_description(cert) : "";
        size_t der_len;
        const uint8_t *der = kt_x509_der(cert, &der_len);
        key_serial_t id = add_key("asymmetric", NULL, der, der_len, dest);
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
        pushed++;
        if (o->co.json) {
            jw_obj(&w, NULL);
            jw_str(&w, "type", "keyring_push");
            jw_str(&w, "description", want);
            jw_int(&w, "serial", id);
            jw_str(&w, "kernel_description", kdesc);
            jw_bool(&w, "match", same);
            jw_obj_end(&w);
            jw_newline(&w);
        } else if (!o->co.quiet) {
            printf("%d\t%s\n", id, tx(kdesc));
        }
        if (!same) {
            cli_errorf(want, "the kernel describes key %d as '%s'", id, kdesc);
            ret = ret ? ret : EXIT_INTERNAL;
        }
        free(desc);
    }
    if (r && !o->co.quiet && !o->co.json)
        fprintf(stderr, "ktrust: %zu pushed from %s to %s\n", pushed, tx(o->keyring), tx(o->to));
    kt_ctx_free(ctx);
    return ret;
}

