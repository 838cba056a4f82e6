/* keyload.c - the verification context from the common options. */
#include <stdio.h>
#include <string.h>

#include "keyload.h"
#include "ktrust/ima.h"

/* A certificate of the system bundle the strict parser skips: the same one on
 * every run, in a file the user did not pick, so said with -v only (a --trust
 * FILE's skips are always said: the user chose that file). */
static bool system_skip(enum kt_ctx_msg kind, const char *text)
{
    static const char pre[] = "warning: --trust-system ";
    return kind == KT_CTX_MSG_WARNING && strncmp(text, pre, sizeof(pre) - 1) == 0;
}

static void on_msg(void *arg, enum kt_ctx_msg kind, const char *text)
{
    const struct cli_common *co = arg;
    bool verbose_only = kind == KT_CTX_MSG_STORE || kind == KT_CTX_MSG_INFO ||
                        system_skip(kind, text);
    if (verbose_only ? co->verbose : !co->quiet)
        fprintf(stderr, "ktrust: %s\n", tx(text));
}

const char *cli_write_store_path(const struct cli_common *co, char *buf, size_t cap)
{
    struct cli_common c = *co;
    c.n_trust = 0;
    c.kernel = NULL;
    return cli_store_path(&c, buf, cap);
}

void cli_ctx_opts(const struct cli_common *co, enum kt_ctx_store_mode mode,
                  struct cli_ctx_opts *c)
{
    memset(c, 0, sizeof(*c));
    struct kt_ctx_opts *o = &c->o;
    for (size_t i = 0; i < co->n_trust; i++) {
        c->trust[i].path = co->trust[i];
        c->trust[i].option = co->trust[i] == cli_system_bundle ? "--trust-system" : "--trust";
    }
    o->trust = c->trust;
    o->n_trust = co->n_trust;
    o->kernel = co->kernel;
    o->kernel_cache = co->kernel ? cli_cache_dir(c->cache, sizeof(c->cache)) : NULL;
    o->msg = on_msg;
    o->msg_arg = (void *)co;
    o->store_make_dirs = cli_store_is_default(co);
    if (mode == KT_CTX_STORE_WRITE) {
        o->store_mode = KT_CTX_STORE_WRITE;
        o->store_path = cli_write_store_path(co, c->path, sizeof(c->path));
        return;
    }
    o->vouch = co->vouch;
    o->n_vouch = co->n_vouch;
    o->store_path = cli_store_path(co, c->path, sizeof(c->path));
    o->store_mode = o->store_path ? KT_CTX_STORE_READ : KT_CTX_STORE_NONE;
    o->store_may_be_missing = cli_store_is_default(co);
}

int cli_open_ctx(const struct cli_common *co, struct kt_ctx **ctx, struct kt_error *err,
                 const char **bad_file)
{
    static struct cli_ctx_opts c; /* *bad_file may point into it */
    cli_ctx_opts(co, KT_CTX_STORE_READ, &c);
    return kt_ctx_open(&c.o, ctx, bad_file, err);
}

int cli_open_ctx_write(const struct cli_common *co, struct kt_ctx **ctx, struct kt_error *err,
                       const char **bad_file)
{
    static struct cli_ctx_opts c;
    cli_ctx_opts(co, KT_CTX_STORE_WRITE, &c);
    c.o.store_may_be_missing = true; /* made only if keys are added */
    c.o.store_count_keys = true;
    return kt_ctx_open(&c.o, ctx, bad_file, err);
}

int cli_ima_key_add(struct cli_ima_keys *a, const char *cmd, const char *ring, const char *file)
{
    if (a->n == CLI_IMA_MAX_KEYS)
        return cli_usage_error(cmd, "at most %d certificate files (--ima-key%s)",
                               CLI_IMA_MAX_KEYS, strcmp(cmd, "verify-ima") ? "" : ", --evm-key");
    a->rings[a->n] = ring;
    a->files[a->n++] = file;
    return 0;
}

int cli_ima_opt(struct cli_ima_keys *a, const char *cmd, int c, const char *arg)
{
    switch (c) {
    case OPT_IMA_KEY: {
        int rc = cli_ima_key_add(a, cmd, "ima", arg);
        return rc ? rc : 1;
    }
    case OPT_MACHINE_CA: a->machine_ca = true; return 1;
    case OPT_KERNEL_CONFIG: a->kernel_config = arg; return 1;
    default: return 0;
    }
}

int cli_ima_keys_load(struct kt_keyrings *k, struct cli_ima_keys *a, bool quiet, const char **bad,
                      struct kt_error *err)
{
    *bad = NULL;
    kt_ima_kconfig_assume(&a->config, a->machine_ca);
    if (a->kernel_config) {
        *bad = a->kernel_config;
        KT_TRY(kt_ima_kconfig_read(a->kernel_config, &a->config, err));
        if (a->machine_ca) /* said on the command line: .machine is linked */
            a->config.machine_keyring = a->config.ca_machine = true;
        *bad = NULL;
    }
    kt_ima_ring_rule(&a->config, &a->rule);
    a->store_ring = kt_keyrings_get(k, "ima") != NULL;
    int rc = kt_ima_ring_prepare_config(k, &a->config, err);
    for (size_t i = 0; rc == 0 && i < a->n; i++) {
        size_t added = 0, refused = 0;
        *bad = a->files[i];
        rc = kt_ima_ring_add_file_to(k, a->rings[i], a->files[i], &added, &refused, err);
        if (rc == 0 && refused && !quiet)
            fprintf(stderr, "ktrust: %s: %zu certificate%s refused by the .%s restriction\n",
                    tx(a->files[i]), refused, refused == 1 ? "" : "s", a->rings[i]);
    }
    return rc;
}

void cli_ima_rule_json(struct jw *w, const char *key, const struct cli_ima_keys *a)
{
    const struct kt_ima_ring_rule *r = &a->rule;
    jw_obj(w, key);
    jw_str(w, "name", r->name);
    jw_bool(w, "restricted", r->restricted);
    jw_arr(w, "vouched_by");
    for (size_t i = 0; i < r->n_vouchers; i++)
        jw_str(w, NULL, r->vouchers[i]);
    jw_arr_end(w);
    jw_str(w, "source", a->store_ring ? "store" : r->assumed ? "assumed" : "kernel_config");
    jw_str(w, "kernel_config", r->assumed ? NULL : a->kernel_config);
    jw_bool(w, "modsig", a->config.modsig);
    jw_str(w, "rule", r->text);
    jw_obj_end(w);
}

void cli_ima_rule_text(FILE *f, const char *indent, const struct cli_ima_keys *a)
{
    if (a->store_ring)
        fprintf(f, "%skeyring: the store's ima keyring, used as it is (for this run's it would "
                "be: ", indent);
    else
        fprintf(f, "%skeyring: ", indent);
    fprintf(f, "%s%s%s%s%s\n", a->rule.text, a->rule.assumed ? "" : " (from ",
            a->rule.assumed ? "" : tx(a->kernel_config), a->rule.assumed ? "" : ")",
            a->store_ring ? ")" : "");
}
