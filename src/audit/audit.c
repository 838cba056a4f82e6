/* audit.c - kt_audit_run: the parts located, the variables read, the chain
 * simulated link by link, SBAT applied, the modules verified, the hints for
 * untrusted links written, and the revocation outlook. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "revoke/revoke.h"
#include "util/file.h"

typedef int (*link_fn)(struct kt_chain *, const uint8_t *, size_t, const char *,
                       struct kt_chain_link *);

static void run_link(struct kt_chain *ch, struct kt_audit_link *L, link_fn fn,
                     enum kt_chain_role role)
{
    if (!L->present)
        return;
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(L->path, &f, &e);
    if (rc < 0) {
        memset(&L->link, 0, sizeof(L->link));
        L->link.role = role;
        L->link.file = L->path;
        L->link.verdict = rc;
        kt_audit_fmt(L->link.reason, sizeof(L->link.reason), "%s", e.what);
        return;
    }
    fn(ch, f.data, f.len, L->path, &L->link);
    kt_file_close(&f);
}

/* What would vouch for an untrusted link, and how to supply it. */
static void hints(struct kt_audit *a)
{
    struct kt_audit_link *S = &a->links[KT_AUDIT_SHIM];
    bool shim_ok = S->present && S->link.verdict == 0;
    for (int i = KT_AUDIT_SHIM; i <= KT_AUDIT_KERNEL_LINK; i++) {
        struct kt_audit_link *L = &a->links[i];
        if (!L->present || L->link.verdict != -ENOKEY)
            continue;
        char signer[360];
        if (L->link.signer[0])
            kt_audit_fmt(signer, sizeof(signer), "signed by %s", L->link.signer);
        else
            kt_audit_fmt(signer, sizeof(signer), "its signer");
        if (i == KT_AUDIT_SHIM) {
            kt_audit_fmt(L->hint, sizeof(L->hint),
                     "%s, which no certificate in db vouches for: %s; the CA that issued it "
                     "must be in db (firmware setup), or try one with `ktrust chain --db CA.pem ...`",
                     signer, a->vars[KT_AUDIT_VAR_DB].present ? "db does not hold its CA"
                                                               : "no db variable was found");
        } else if (!shim_ok) {
            kt_audit_fmt(L->hint, sizeof(L->hint),
                     "%s, which only shim's vendor certificate or MOK would vouch for, and shim "
                     "is %s: load the vendor certificate from shim (`ktrust load-pe-key --keyring "
                     "platform %s` with the Microsoft CA in platform) or pass `--trust CA`",
                     signer, S->present ? "not trusted" : "missing", S->path);
        } else {
            kt_audit_fmt(L->hint, sizeof(L->hint),
                     "%s, which neither db, shim's vendor certificate nor MOK vouches for: enroll "
                     "its CA in MOK (`mokutil --import CA.der`) or pass `--trust CA`",
                     signer);
        }
    }
}

static void join(char *out, size_t cap, const char *s)
{
    size_t n = strlen(out);
    kt_audit_fmt(out + n, cap - n, "%s%s", n ? "; " : "", s);
}

static int outlook(struct kt_audit *a, const struct kt_audit_opts *o, struct kt_error *err)
{
    struct kt_dbx dbx = {0};
    struct kt_sbat_level latest = {0};
    bool have_latest = false;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < o->n_dbx; i++) {
        struct kt_file f = {0};
        rc = kt_file_open(o->dbx[i], &f, err);
        if (rc == 0)
            rc = kt_dbx_add(&dbx, f.data, f.len, o->dbx[i], err);
        kt_file_close(&f);
        if (rc < 0)
            a->error_file = o->dbx[i];
    }
    if (rc < 0)
        goto out;
    a->n_dbx_entries = dbx.n_hashes + dbx.n_certs;
    if (!o->no_latest) {
        struct kt_error e = KT_ERROR_INIT;
        if (kt_sbat_level_spec("latest", &latest, &e) == 0) {
            have_latest = true;
            kt_audit_fmt(a->latest_stamp, sizeof(a->latest_stamp), "%s", latest.stamp);
        }
    }
    if (!o->n_dbx && !have_latest)
        goto out;
    static const int order[] = {KT_AUDIT_SHIM, KT_AUDIT_LOADER, KT_AUDIT_MOKMANAGER,
                                KT_AUDIT_KERNEL_LINK};
    for (size_t k = 0; k < 4; k++) {
        const struct kt_audit_link *L = &a->links[order[k]];
        if (!L->present)
            continue;
        struct kt_audit_outlook *O = &a->outlook[a->n_outlook++];
        memset(O, 0, sizeof(*O));
        O->link = order[k];
        struct kt_file f = {0};
        struct kt_error e = KT_ERROR_INIT;
        struct kt_revoke_result res = {0};
        O->rc = kt_file_open(L->path, &f, &e);
        if (O->rc == 0)
            O->rc = kt_revoke_check(f.data, f.len, o->n_dbx ? &dbx : NULL,
                                    have_latest ? &latest : NULL, &res, &e);
        kt_file_close(&f);
        if (O->rc == -ENOMEM) {
            rc = O->rc;
            kt_revoke_result_free(&res);
            break;
        }
        if (O->rc < 0)
            kt_audit_fmt(O->error, sizeof(O->error), "%s", e.what);
        for (size_t i = 0; i < res.n; i++) {
            if (res.reasons[i].by == KT_REVOKE_SBAT)
                O->by_sbat = true;
            else
                O->by_dbx = true;
            join(O->detail, sizeof(O->detail), res.reasons[i].detail);
        }
        kt_revoke_result_free(&res);
    }
out:
    kt_dbx_free(&dbx);
    kt_sbat_level_free(&latest);
    return rc;
}

static void worst_of(struct kt_audit *a, int verdict)
{
    int v = (int)kt_verdict_of(verdict);
    if (v > a->worst)
        a->worst = v;
}

int kt_audit_run(const struct kt_audit_opts *o, struct kt_audit *a, struct kt_error *err)
{
    memset(a, 0, sizeof(*a));
    kt_audit_locate(o, a);
    struct kt_chain *ch;
    int rc = kt_chain_new(&ch);
    if (rc < 0)
        return rc;
    rc = kt_audit_vars(a, ch);
    if (rc == 0) {
        run_link(ch, &a->links[KT_AUDIT_SHIM], kt_chain_shim, KT_LINK_SHIM);
        run_link(ch, &a->links[KT_AUDIT_LOADER], kt_chain_loader, KT_LINK_LOADER);
        run_link(ch, &a->links[KT_AUDIT_KERNEL_LINK], kt_chain_kernel, KT_LINK_KERNEL);
        kt_audit_sbat(a);
        hints(a);
        kt_audit_boot_entries(a);
        rc = kt_audit_modules(a, ch, o);
    }
    if (rc == 0)
        rc = outlook(a, o, err);
    kt_chain_free(ch);
    for (int i = KT_AUDIT_SHIM; i <= KT_AUDIT_KERNEL_LINK; i++)
        if (a->links[i].present)
            worst_of(a, a->links[i].link.verdict);
    for (size_t i = 0; i < a->n_groups; i++)
        worst_of(a, a->groups[i].verdict);
    if (rc == -ENOMEM)
        kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    return rc;
}

void kt_audit_free(struct kt_audit *a)
{
    for (int i = 0; i < KT_AUDIT__VARS; i++) {
        for (size_t j = 0; j < a->vars[i].n_certs; j++)
            free(a->vars[i].certs[j]);
        free(a->vars[i].certs);
    }
    for (size_t i = 0; i < a->n_groups; i++) {
        for (size_t j = 0; j < a->groups[i].n; j++)
            free(a->groups[i].modules[j]);
        free(a->groups[i].modules);
    }
    free(a->groups);
    kt_sbat_level_free(&a->sbat_current);
    kt_sbat_level_free(&a->sbat_next);
    memset(a, 0, sizeof(*a));
}
