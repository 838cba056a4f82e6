/* keyload.c - the shared keyring loading of verifying commands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keyload.h"
#include "util/file.h"

/* Mark keys [from, count) of r ephemeral. */
static void mark_run_only(struct kt_keyring *r, size_t from)
{
    for (size_t i = from; i < kt_keyring_count(r); i++)
        kt_key_set_ephemeral(kt_keyring_key(r, i), true);
}

int cli_add_key_file(struct kt_keyrings *k, struct kt_keyring *r, const char *path,
                     enum kt_add_how how, bool run_only, size_t *n_added, struct kt_error *err)
{
    struct kt_file f;
    int rc = kt_file_open(path, &f, err);
    if (rc < 0)
        return rc;
    char src[4096];
    snprintf(src, sizeof(src), "file:%s", path);
    size_t before = kt_keyring_count(r);
    rc = kt_keyrings_add_blob(k, r, f.data, f.len, src, how, n_added, err);
    if (run_only)
        mark_run_only(r, before);
    kt_file_close(&f);
    return rc;
}

/* The run-only keys of --trust and --kernel, into builtin. */
static int add_run_keys(const struct cli_common *co, struct kt_keyrings *k, struct kt_error *err,
                        const char **bad_file)
{
    int rc;
    for (size_t i = 0; i < co->n_trust; i++) {
        rc = cli_add_key_file(k, kt_keyrings_get(k, "builtin"), co->trust[i], KT_ADD_EXPLICIT,
                              true, NULL, err);
        if (rc < 0) {
            *bad_file = co->trust[i];
            return rc;
        }
    }
    if (co->kernel) {
        struct kt_file f;
        if ((rc = kt_file_open(co->kernel, &f, err)) < 0) {
            *bad_file = co->kernel;
            return rc;
        }
        rc = kt_keyrings_add_kernel_keys(k, f.data, f.len, co->kernel, true, NULL, err);
        kt_file_close(&f);
        if (rc < 0) {
            *bad_file = co->kernel;
            return rc;
        }
    }
    return 0;
}

/* --keyring NAME: let each named keyring vouch for every purpose this run. */
static int name_vouchers(const struct cli_common *co, struct kt_keyrings *k, struct kt_error *err)
{
    for (size_t i = 0; i < co->n_vouch; i++) {
        struct kt_keyring *r = kt_keyrings_get(k, co->vouch[i]);
        if (!r)
            return kt_fail(err, -ESRCH, KT_NO_OFFSET,
                           "--keyring %s: no such keyring in the store (see keyring list)",
                           co->vouch[i]);
        if (kt_keyring_set_run_voucher(r, true) < 0)
            return kt_fail(err, -ESRCH, KT_NO_OFFSET,
                           "--keyring %s: the blacklist revokes, it never vouches", co->vouch[i]);
    }
    return 0;
}

int cli_load_keyrings(const struct cli_common *co, struct kt_keyrings **rings,
                      struct kt_store **store, struct kt_error *err, const char **bad_file)
{
    struct kt_keyrings *k = NULL;
    struct kt_store *s = NULL;
    char buf[4096];
    int rc;
    *rings = NULL;
    if (store)
        *store = NULL;
    *bad_file = NULL;
    if (kt_keyrings_new(&k) < 0)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");

    const char *path = cli_store_path(co, buf, sizeof(buf));
    if (path) {
        struct kt_error e = {0};
        e.offset = KT_NO_OFFSET;
        rc = kt_store_open(path, KT_STORE_READ, &s, &e);
        if (rc == -ENOENT) {
            s = NULL; /* no store yet: empty keyrings */
        } else if (rc < 0) {
            *bad_file = path;
            kt_fail(err, rc, e.offset, "%s", e.what);
            goto fail;
        } else if ((rc = kt_store_load(s, k, err)) < 0) {
            *bad_file = path;
            goto fail;
        }
    }
    if ((rc = add_run_keys(co, k, err, bad_file)) < 0 || (rc = name_vouchers(co, k, err)) < 0)
        goto fail;
    *rings = k;
    if (store)
        *store = s;
    else
        kt_store_close(s);
    return 0;
fail:
    kt_store_close(s);
    kt_keyrings_free(k);
    return rc;
}

int cli_open_keyrings_for_write(const struct cli_common *co, struct kt_keyrings **rings,
                                struct kt_store **store, struct kt_error *err,
                                const char **bad_file)
{
    char buf[4096];
    struct cli_common only_store = *co;
    only_store.n_trust = 0;
    only_store.kernel = NULL;
    const char *path = cli_store_path(&only_store, buf, sizeof(buf));
    struct kt_keyrings *k = NULL;
    struct kt_store *s = NULL;
    int rc;
    *bad_file = path;
    if (kt_keyrings_new(&k) < 0)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    if ((rc = kt_store_open(path, KT_STORE_WRITE, &s, err)) < 0 ||
        (rc = kt_store_begin_write(s, err)) < 0 || (rc = kt_store_load(s, k, err)) < 0)
        goto fail;
    *bad_file = NULL;
    if ((rc = add_run_keys(co, k, err, bad_file)) < 0)
        goto fail;
    *rings = k;
    *store = s;
    return 0;
fail:
    kt_store_close(s);
    kt_keyrings_free(k);
    return rc;
}
