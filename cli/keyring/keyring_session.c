/* keyring_session.c - what every `ktrust keyring` action does around its
 * work: open the store (for reading or in a write transaction), find the
 * named keyring, commit, report a failure.  cmd_keyring.c and the action
 * files (cmd_keyring_io.c, cmd_keyring_remove.c) call it; it calls none of
 * them. */
#include <stdio.h>

#include "cli.h"
#include "keyload.h"
#include "keyring_cmd.h"

int kr_fail(const char *file, int rc, const struct kt_error *e)
{
    cli_error(file, e);
    return cli_exit_code(rc);
}

int kr_begin(const struct kr_opts *o, struct kt_ctx **ctx, struct kt_keyrings **k,
             const char **path, struct kt_error *e)
{
    static struct cli_ctx_opts c;
    struct cli_common co = o->co;
    co.n_trust = 0; /* add: the run-only keys come after the keyring is checked */
    co.kernel = NULL;
    cli_ctx_opts(&co, KT_CTX_STORE_WRITE, &c);
    c.o.msg_arg = (void *)&o->co;
    *path = c.o.store_path;
    *k = NULL;
    int rc = kt_ctx_open(&c.o, ctx, NULL, e);
    if (rc == 0)
        *k = kt_ctx_keyrings(*ctx);
    return rc;
}

int kr_finish(struct kt_ctx *ctx, struct kt_error *e) { return kt_ctx_commit(ctx, e); }

int kr_load_read(const struct kr_opts *o, struct kt_ctx **ctx, struct kt_keyrings **k,
                 const char **path)
{
    static struct cli_ctx_opts c;
    struct cli_common co = o->co;
    co.n_trust = 0;
    co.kernel = NULL;
    co.n_vouch = 0;
    cli_ctx_opts(&co, KT_CTX_STORE_WRITE, &c);
    c.o.store_mode = KT_CTX_STORE_READ;
    c.o.store_may_be_missing = false;
    c.o.missing_store_hint_keyring = true;
    c.o.msg_arg = (void *)&o->co;
    *path = c.o.store_path;
    *k = NULL;
    struct kt_error e = KT_ERROR_INIT;
    const char *bad = NULL;
    int rc = kt_ctx_open(&c.o, ctx, &bad, &e);
    if (rc < 0)
        return kr_fail(bad, rc, &e);
    *k = kt_ctx_keyrings(*ctx);
    return 0;
}

struct kt_keyring *kr_need_ring(struct kt_keyrings *k, const char *name, int *ret)
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
