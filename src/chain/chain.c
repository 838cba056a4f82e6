#include "chain/chain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modsig/modsig.h"
#include "pe/pe_verify.h"
#include "policy/load.h"
#include "policy/verify.h"
#include "wrapped/pe_keys.h"

#define MAX_MOK 16

struct kt_chain {
    struct kt_keyrings *rings;
    struct {
        uint8_t *buf;
        size_t len;
        char *name;
    } mok[MAX_MOK];
    size_t n_mok;
    bool mok_trusted; /* MokListTrustedRT: MOK keys go to machine */
    bool shim_trusted, kernel_trusted;
};

void kt_chain_set_mok_trusted(struct kt_chain *c, bool trusted) { c->mok_trusted = trusted; }

const char *kt_chain_role_name(enum kt_chain_role r)
{
    static const char *const names[] = {"db", "shim", "loader", "kernel", "module"};
    return r <= KT_LINK_MODULE ? names[r] : "?";
}

int kt_chain_new(struct kt_chain **out)
{
    struct kt_chain *c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    int rc = kt_keyrings_new(&c->rings);
    if (rc < 0) {
        free(c);
        return rc;
    }
    *out = c;
    return 0;
}

void kt_chain_free(struct kt_chain *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_mok; i++) {
        free(c->mok[i].buf);
        free(c->mok[i].name);
    }
    kt_keyrings_free(c->rings);
    free(c);
}

const struct kt_keyrings *kt_chain_keyrings(const struct kt_chain *c)
{
    return c->rings;
}

static int add_to(struct kt_chain *c, const char *ring, const uint8_t *buf, size_t len,
                  const char *name, const char *what, struct kt_error *err)
{
    char src[512];
    snprintf(src, sizeof(src), "%s:%s", what, name);
    return kt_keyrings_add_blob(c->rings, kt_keyrings_get(c->rings, ring), buf, len, src,
                                KT_ADD_EXPLICIT, NULL, err);
}

int kt_chain_add_db(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                    struct kt_error *err)
{
    return add_to(c, "platform", buf, len, name, "db", err);
}

int kt_chain_add_dbx(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                     struct kt_error *err)
{
    return add_to(c, "blacklist", buf, len, name, "dbx", err);
}

int kt_chain_add_mok(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                     struct kt_error *err)
{
    if (c->n_mok >= MAX_MOK)
        return kt_fail(err, -E2BIG, KT_NO_OFFSET, "too many MOK lists (at most %d)", MAX_MOK);
    uint8_t *copy = malloc(len ? len : 1);
    char *n = strdup(name);
    if (!copy || !n) {
        free(copy);
        free(n);
        return -ENOMEM;
    }
    memcpy(copy, buf, len);
    c->mok[c->n_mok].buf = copy;
    c->mok[c->n_mok].len = len;
    c->mok[c->n_mok].name = n;
    c->n_mok++;
    return 0;
}

static void link_init(struct kt_chain_link *l, enum kt_chain_role role, const char *name,
                      int parent)
{
    memset(l, 0, sizeof(*l));
    l->role = role;
    l->file = name;
    l->parent = parent;
}

static void describe_key(char *out, size_t cap, const struct kt_key *k)
{
    if (k && k->cert && k->cert->description)
        snprintf(out, cap, "%s", k->cert->description);
}

/* Describe a PE link from its verification: signer and vouching key of the
 * first trusted signature (or of the first one), and the reason. */
static void pe_describe(struct kt_chain_link *l, const struct kt_pe_result *r,
                        const struct kt_error *e, const char *vouchers)
{
    const struct kt_pe_signature *pick = NULL;
    for (size_t i = 0; r && i < r->n_sigs; i++)
        if (r->sigs[i].verdict == 0) {
            pick = &r->sigs[i];
            break;
        }
    if (!pick && r && r->n_sigs)
        pick = &r->sigs[0];
    if (pick && pick->signer && pick->signer->description)
        snprintf(l->signer, sizeof(l->signer), "%s", pick->signer->description);
    if (l->verdict == 0) {
        describe_key(l->trusted_by, sizeof(l->trusted_by), pick ? pick->trusted_by : NULL);
        snprintf(l->reason, sizeof(l->reason), "signature %d trusted: %s vouches",
                 pick ? pick->index : 0, l->trusted_by[0] ? l->trusted_by : vouchers);
    } else if (l->verdict == -ENOKEY) {
        snprintf(l->reason, sizeof(l->reason), "no key in %s vouches for its signer", vouchers);
    } else {
        snprintf(l->reason, sizeof(l->reason), "%s", e->what[0] ? e->what : "verification failed");
    }
}

static int pe_link(struct kt_chain *c, const uint8_t *buf, size_t len, struct kt_chain_link *l,
                   const char *vouchers)
{
    struct kt_pe_verify_opts opts = {.purpose = KT_VERIFY_PURPOSE_UEFI, .allow_sha1 = false};
    struct kt_pe_result *r = NULL;
    struct kt_error e = KT_ERROR_INIT;
    l->verdict = kt_pe_verify(buf, len, c->rings, &opts, &r, &e);
    pe_describe(l, r, &e, vouchers);
    kt_pe_result_free(r);
    return l->verdict;
}

int kt_chain_shim(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                  struct kt_chain_link *l)
{
    link_init(l, KT_LINK_SHIM, name, KT_LINK_DB);
    struct kt_pe_load_result res;
    struct kt_error e = KT_ERROR_INIT;
    /* verify with db; if trusted, its .vendor_cert joins platform, vendor dbx the blacklist */
    int rc = kt_pe_load_keys(buf, len, c->rings, kt_keyrings_get(c->rings, "platform"), NULL,
                             name, &res, &e);
    l->verdict = res.verify ? res.verify->verdict : rc;
    pe_describe(l, res.verify, &e, "db");
    kt_pe_load_result_free(&res);
    if (l->verdict == 0 && rc < 0) {
        l->verdict = rc;
        snprintf(l->reason, sizeof(l->reason), "signature trusted, but: %s", e.what);
    }
    c->shim_trusted = l->verdict == 0;
    if (!c->shim_trusted)
        return l->verdict;
    l->keys_added = res.n_added;
    /* the kernel loads MokListRT into platform, into machine only when
     * MokListTrustedRT is set (load_uefi.c / machine_keyring.c) */
    struct kt_keyring *mok = kt_keyrings_get(c->rings, c->mok_trusted ? "machine" : "platform");
    for (size_t i = 0; i < c->n_mok; i++) {
        size_t n = 0;
        struct kt_error me = KT_ERROR_INIT;
        char src[512];
        snprintf(src, sizeof(src), "mok:%s", c->mok[i].name);
        if (kt_keyrings_add_blob(c->rings, mok, c->mok[i].buf, c->mok[i].len, src,
                                 KT_ADD_EXPLICIT, &n, &me) == 0)
            l->keys_added += n;
    }
    size_t n = strlen(l->reason);
    snprintf(l->reason + n, sizeof(l->reason) - n,
             "; its vendor certificate (%zu key%s) and %zu vendor dbx entr%s now apply",
             res.n_added, res.n_added == 1 ? "" : "s", res.n_blacklisted,
             res.n_blacklisted == 1 ? "y" : "ies");
    return l->verdict;
}

int kt_chain_loader(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                    struct kt_chain_link *l)
{
    link_init(l, KT_LINK_LOADER, name, KT_LINK_SHIM);
    pe_link(c, buf, len, l, c->shim_trusted ? "db, shim's vendor certificate or MOK" : "db (shim is not trusted)");
    return l->verdict;
}

int kt_chain_kernel(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                    struct kt_chain_link *l)
{
    link_init(l, KT_LINK_KERNEL, name, KT_LINK_SHIM);
    pe_link(c, buf, len, l, c->shim_trusted ? "db, shim's vendor certificate or MOK" : "db (shim is not trusted)");
    c->kernel_trusted = l->verdict == 0;
    if (!c->kernel_trusted)
        return l->verdict;
    struct kt_error e = KT_ERROR_INIT;
    size_t n_keys = 0;
    int rc = kt_keyrings_add_kernel_keys(c->rings, buf, len, name, false, &n_keys, &e);
    l->keys_added = n_keys;
    size_t n = strlen(l->reason);
    if (rc < 0) {
        l->verdict = rc;
        snprintf(l->reason + n, sizeof(l->reason) - n, "; but its builtin keys: %s", e.what);
    } else {
        snprintf(l->reason + n, sizeof(l->reason) - n, "; its %zu builtin key%s now vouch%s for modules",
                 n_keys, n_keys == 1 ? "" : "s", n_keys == 1 ? "es" : "");
    }
    return l->verdict;
}

int kt_chain_module(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                    struct kt_chain_link *l)
{
    link_init(l, KT_LINK_MODULE, name, KT_LINK_KERNEL);
    struct kt_modsig_result res;
    memset(&res, 0, sizeof(res));
    struct kt_error e = KT_ERROR_INIT;
    l->verdict = kt_modsig_verify(buf, len, c->rings, &res, &e);
    const struct kt_pkcs7_signer *si = res.msg && res.msg->n_signers ? &res.msg->signers[0] : NULL;
    if (si && si->signer_cert && si->signer_cert->description)
        snprintf(l->signer, sizeof(l->signer), "%s", si->signer_cert->description);
    if (l->verdict == 0) {
        describe_key(l->trusted_by, sizeof(l->trusted_by), si ? si->trusted_by : NULL);
        snprintf(l->reason, sizeof(l->reason), "%s vouches", l->trusted_by);
    } else if (l->verdict == -ENOKEY) {
        snprintf(l->reason, sizeof(l->reason), "no builtin, secondary or machine key vouches%s",
                 c->kernel_trusted ? "" : " (the kernel is not trusted, so its keys are not loaded)");
    } else {
        snprintf(l->reason, sizeof(l->reason), "%s", e.what[0] ? e.what : "verification failed");
    }
    kt_modsig_result_free(&res);
    return l->verdict;
}
