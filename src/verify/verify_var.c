/* verify_var.c - a signed EFI variable update as one result: parsed, its
 * signature and authority checked against the policy's PK and KEK
 * (authvar/), its signers as a tree; and its details for printing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "esl/esl_svn.h"
#include "verify/verify_int.h"

int kt_var_keys_new(struct kt_var_keys **out)
{
    *out = calloc(1, sizeof(**out));
    return *out ? 0 : -ENOMEM;
}

int kt_var_keys_add(struct kt_var_keys *keys, bool kek, const uint8_t *buf, size_t len,
                    struct kt_error *err)
{
    return kt_certset_add(kek ? &keys->kek : &keys->pk, buf, len, err);
}

void kt_var_keys_free(struct kt_var_keys *keys)
{
    if (!keys)
        return;
    kt_certset_free(&keys->pk);
    kt_certset_free(&keys->kek);
    free(keys);
}

bool kt_var_name_known(const char *name) { return name && kt_authvar_vendor(name) != NULL; }

void kt_verify_var(const uint8_t *buf, size_t len, const struct kt_policy *p, struct kt_result *r)
{
    static const struct kt_var_keys none;
    const struct kt_var_keys *keys = p->var_keys ? p->var_keys : &none;
    struct kt_var_update *vi = &r->var_info;
    vi->name = p->var_name;
    if (!kt_var_name_known(p->var_name)) {
        r->rc = kt_fail(&r->err, -EINVAL, KT_NO_OFFSET, "not a variable with signed updates: %s",
                        p->var_name ? p->var_name : "(none)");
        return;
    }
    int rc = kt_authvar_parse(buf, len, &r->var, &r->err);
    if (rc == 0) {
        vi->parsed = true;
        rc = kt_authvar_verify(&r->var, p->var_name, NULL, &keys->pk, &keys->kek, &r->av);
        r->err = r->av.error;
        if (kt_signer_tree_from_authvar(&r->sigs, &r->av, rc, &r->err) < 0) {
            kt_fail(&r->err, -ENOMEM, KT_NO_OFFSET, "out of memory");
            rc = -ENOMEM;
        }
        vi->attributes = r->av.attributes;
        vi->append = r->av.append;
        vi->timestamp = r->var.timestamp;
        vi->content_info_wrapped = r->var.content_info_wrapped;
        vi->accepted_from = r->av.accepted_from;
        const struct kt_authvar_counts *c = &r->av.counts;
        vi->n_x509 = c->x509;
        vi->n_sha256 = c->sha256;
        vi->n_x509_sha256 = c->x509_sha256;
        vi->n_sha384 = c->sha384;
        vi->n_sha512 = c->sha512;
        vi->n_svn = c->svn;
        vi->n_other = c->other;
    }
    r->rc = rc;
}

const struct kt_var_update *kt_result_var(const struct kt_result *r)
{
    return r->ftype == KT_FT_VAR ? &r->var_info : NULL;
}

struct entry_walk {
    int (*fn)(void *arg, const struct kt_var_entry *e);
    void *arg;
};

static int one_entry(void *ctx, const struct kt_esl_entry *en)
{
    struct entry_walk *w = ctx;
    struct kt_var_entry e = {.type = kt_authvar_entry_type(en), .data = en->data.p,
                             .len = en->data.len, .x509 = en->type == KT_ESL_X509};
    kt_guid_str(en->owner, e.owner);
    struct kt_esl_svn svn;
    if (kt_esl_svn_parse(en, &svn) == 0) {
        e.svn = true;
        e.svn_version = svn.version;
        e.svn_major = svn.major;
        e.svn_minor = svn.minor;
        kt_guid_str(svn.guid, e.svn_guid);
    }
    return w->fn(w->arg, &e);
}

int kt_result_var_entries(const struct kt_result *r,
                          int (*fn)(void *arg, const struct kt_var_entry *e), void *arg)
{
    if (r->ftype != KT_FT_VAR || !r->var_info.parsed)
        return 0;
    struct entry_walk w = {fn, arg};
    struct kt_error e = KT_ERROR_INIT;
    return kt_esl_foreach(r->var.payload.p, r->var.payload.len, one_entry, &w, &e);
}

int kt_result_var_signed(const struct kt_result *r, uint8_t **out, size_t *len)
{
    if (r->ftype != KT_FT_VAR || !r->var_info.parsed)
        return -ENODATA;
    const char *name = r->var_info.name;
    uint32_t attrs = r->av.attributes ? r->av.attributes
                                      : KT_EFI_VAR_AUTH_ATTRS | KT_EFI_VAR_APPEND_WRITE;
    return kt_authvar_signed(&r->var, name, kt_authvar_vendor(name), attrs, out, len);
}
