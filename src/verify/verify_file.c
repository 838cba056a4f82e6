/* verify_file.c - kt_verify_file: detect what a file is, verify it under one
 * policy, return one result.  scan and the single-file commands all come
 * here, so the same file gets the same answer from each. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "policy/verify.h"
#include "uki/uki.h"
#include "verify/verify_int.h"

static enum kt_verify_purpose purpose_of(const struct kt_policy *p, enum kt_ftype t)
{
    if (p->purpose == KT_VERIFY_PURPOSE_DEFAULT || p->purpose > KT_VERIFY_PURPOSE_BUILTIN)
        return kt_ftype_purpose(t);
    return p->purpose;
}

static struct kt_pkcs7_policy pkcs7_policy(const struct kt_policy *p)
{
    struct kt_pkcs7_policy pp = {.allow_sha1 = p->allow_sha1, .check_time = p->check_time,
                                 .at_time = p->at_time};
    if (!pp.at_time)
        pp.at_time = (int64_t)time(NULL); /* dates are reported even unchecked */
    return pp;
}

static void verify_pe(const struct kt_ctx *ctx, const uint8_t *buf, size_t len,
                      const struct kt_policy *p, struct kt_result *r)
{
    struct kt_pe_verify_opts opts = {.purpose = purpose_of(p, KT_FT_PE),
                                     .allow_sha1 = p->allow_sha1,
                                     .check_time = p->check_time, .at_time = p->at_time};
    r->rc = kt_pe_verify(buf, len, ctx->rings, &opts, &r->pe, &r->err);
    if (p->sbat_level && r->pe && r->pe->pe) {
        /* shim's SBAT check: a revocation or an unreadable .sbat decides
         * unless a signature was rejected first */
        struct kt_error se = KT_ERROR_INIT;
        r->sbat_checked = true;
        r->sbat_level = p->sbat_level;
        r->sbat_rc = kt_sbat_from_pe(r->pe->pe, &r->sbat, &se);
        if (r->sbat_rc == 0)
            r->sbat_rc = kt_sbat_check(&r->sbat, p->sbat_level, &r->sbat_img, &r->sbat_lvl, &se);
        int folded = kt_sbat_fold(r->rc, r->sbat_rc);
        if (folded != r->rc) {
            r->err = se; /* SBAT decided: its reason is the file's */
            r->rc = folded;
        }
    }
    const uint8_t *lx;
    size_t nlx;
    if (r->pe && r->pe->pe) /* a UKI, told from the one parse */
        r->uki = kt_uki_linux_pe(r->pe->pe, buf, len, &lx, &nlx) == 0;
    if (r->pe && kt_signer_tree_from_pe(&r->sigs, r->pe->sigs, r->pe->n_sigs) < 0)
        r->rc = -ENOMEM;
}

/* A module in two halves (kt_modsig_prepare / _finish): what needs no key,
 * then the signatures against the module purpose's keyrings. */
static void module_finish(const struct kt_ctx *ctx, struct kt_result *r)
{
    struct kt_trust_set s;
    /* --kernel's build: a Debian kernel also takes platform keys */
    kt_trust_set_for_build(ctx->rings, KT_VERIFY_PURPOSE_MODULE, &ctx->build, &s);
    /* a --kernel image's release: the algorithms that kernel takes */
    r->mod.policy.linux_version = ctx->linux_version;
    if (r->mod.msg)
        r->mod.msg->policy.linux_version = ctx->linux_version;
    r->rc = kt_modsig_finish(&r->mod, &s, &r->err);
    r->via = r->rc == 0 ? r->mod.via : NULL;
    r->pending = false;
    if (kt_signer_tree_from_pkcs7(&r->sigs, r->mod.msg, r->rc, &r->err, true) < 0)
        r->rc = -ENOMEM;
}

static void verify_module(const struct kt_ctx *ctx, const uint8_t *buf, size_t len,
                          const struct kt_policy *p, bool keep, struct kt_result *r)
{
    r->mod.policy = pkcs7_policy(p);
    kt_modsig_prepare(buf, len, keep, &r->mod, &r->err);
    r->compression = kt_modsig_comp_name(r->mod.comp);
    r->pending = true;
    if (ctx)
        module_finish(ctx, r);
}

/* A detached signature FILE.p7s / FILE.sig / FILE.p7 signs FILE when it
 * exists (and can be read). */
static void pair_detached(const char *name, struct kt_result *r)
{
    const char *dot = name ? strrchr(name, '.') : NULL;
    if (!dot || (strcmp(dot, ".p7s") && strcmp(dot, ".sig") && strcmp(dot, ".p7")))
        return;
    char *data_path = strndup(name, (size_t)(dot - name));
    struct kt_error de = KT_ERROR_INIT;
    if (data_path && kt_file_open(data_path, &r->data, &de) == 0)
        r->has_data = true;
    free(data_path);
}

static void verify_pkcs7(const struct kt_ctx *ctx, const char *name, const uint8_t *buf,
                         size_t len, const struct kt_policy *p, struct kt_result *r)
{
    const uint8_t *data = NULL;
    size_t data_len = 0;
    if (p->has_detached) {
        data = p->detached;
        data_len = p->detached_len;
    } else if (p->pair_detached) {
        pair_detached(name, r);
        if (r->has_data) {
            data = r->data.data;
            data_len = r->data.len;
        }
    }
    struct kt_pkcs7_policy pp = pkcs7_policy(p);
    r->rc = kt_pkcs7_check(buf, len, data, data_len, ctx->rings, purpose_of(p, KT_FT_PKCS7),
                           p->purpose != KT_VERIFY_PURPOSE_DEFAULT, &pp, &r->p7, &r->err);
    if (kt_signer_tree_from_pkcs7(&r->sigs, r->p7.msg, r->rc, &r->err, false) < 0)
        r->rc = -ENOMEM;
}

enum kt_ftype kt_policy_ftype(const struct kt_policy *p, const char *name, const uint8_t *buf,
                              size_t len)
{
    switch (p->type) {
    case KT_VERIFY_PE: return KT_FT_PE;
    case KT_VERIFY_MODULE: return KT_FT_MODULE;
    case KT_VERIFY_PKCS7: return KT_FT_PKCS7;
    case KT_VERIFY_VAR: return KT_FT_VAR;
    default:
        if (p->var_name && kt_authvar_looks_like(buf, len))
            return KT_FT_VAR;
        return kt_detect(buf, len, name);
    }
}

static const struct kt_policy default_policy;

int kt_verify_buf(const struct kt_ctx *ctx, const char *name, const uint8_t *buf, size_t len,
                  const struct kt_policy *policy, struct kt_result **res, struct kt_error *err)
{
    const struct kt_policy *p = policy ? policy : &default_policy;
    return kt_verify_buf_as(ctx, name, buf, len, p, kt_policy_ftype(p, name, buf, len), res, err);
}

int kt_verify_buf_as(const struct kt_ctx *ctx, const char *name, const uint8_t *buf, size_t len,
                     const struct kt_policy *policy, enum kt_ftype t, struct kt_result **res,
                     struct kt_error *err)
{
    const struct kt_policy *p = policy ? policy : &default_policy;
    struct kt_result *r = calloc(1, sizeof(*r));
    *res = NULL;
    if (!r)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    r->ftype = t;
    r->type = kt_ftype_name(r->ftype);
    if (!ctx && t >= KT_FT_PE && t <= KT_FT_ESL) { /* these need the context's keys */
        r->rc = kt_fail(&r->err, -EINVAL, KT_NO_OFFSET, "no verification context for a %s",
                        r->type);
        goto out;
    }
    switch (r->ftype) {
    case KT_FT_PE: verify_pe(ctx, buf, len, p, r); break;
    case KT_FT_MODULE: verify_module(ctx, buf, len, p, false, r); break;
    case KT_FT_PKCS7: verify_pkcs7(ctx, name, buf, len, p, r); break;
    case KT_FT_X509:
    case KT_FT_ESL: kt_verify_certs(ctx->rings, buf, len, r->ftype, r); break;
    case KT_FT_VAR: kt_verify_var(buf, len, p, r); break;
    case KT_FT_KERNEL:
        /* a kernel image that is no PE carries no Authenticode signature: to
         * firmware, shim and kexec it is unsigned */
        r->rc = kt_fail(&r->err, -ENODATA, KT_NO_OFFSET,
                        "kernel image without an Authenticode signature");
        break;
    default:
        r->skipped = true;
        r->rc = kt_fail(&r->err, -ENODATA, KT_NO_OFFSET,
                        "skipped: not a signed object ktrust verifies");
        break;
    }
out:
    if (r->rc < 0 && err && !err->code)
        *err = r->err;
    *res = r;
    return r->rc;
}

int kt_verify_prepare(const uint8_t *buf, size_t len, const struct kt_policy *policy,
                      enum kt_ftype t, struct kt_result **res)
{
    const struct kt_policy *p = policy ? policy : &default_policy;
    *res = NULL;
    if (t != KT_FT_MODULE)
        return 0;
    struct kt_result *r = calloc(1, sizeof(*r));
    if (!r)
        return -ENOMEM;
    r->ftype = KT_FT_MODULE;
    r->type = kt_ftype_name(r->ftype);
    verify_module(NULL, buf, len, p, true, r);
    *res = r;
    return 1;
}

int kt_verify_finish(const struct kt_ctx *ctx, struct kt_result *r, struct kt_error *err)
{
    if (r->pending)
        module_finish(ctx, r);
    if (r->rc < 0 && err && !err->code)
        *err = r->err;
    return r->rc;
}

int kt_verify_file(const struct kt_ctx *ctx, const char *path, const struct kt_policy *policy,
                   struct kt_result **res, struct kt_error *err)
{
    struct kt_file f;
    *res = NULL;
    int rc = kt_file_open(path, &f, err);
    if (rc < 0)
        return rc;
    rc = kt_verify_buf(ctx, path, f.data, f.len, policy, res, err);
    if (!*res) {
        kt_file_close(&f);
        return rc;
    }
    (*res)->self = f;
    (*res)->has_self = true;
    return rc;
}

void kt_result_free(struct kt_result *r)
{
    if (!r)
        return;
    kt_signer_tree_free(&r->sigs);
    kt_sbat_free(&r->sbat);
    kt_pe_result_free(r->pe);
    kt_modsig_result_free(&r->mod);
    kt_pkcs7_check_free(&r->p7);
    kt_authvar_result_free(&r->av);
    if (r->has_data)
        kt_file_close(&r->data);
    if (r->has_self)
        kt_file_close(&r->self);
    free(r);
}
