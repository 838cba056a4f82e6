/* audit_vars.c - what the firmware and MOK variables hold (PK, KEK, db,
 * dbx, MokListRT, MokListXRT: entries by type and owner, the certificates),
 * Secure Boot and setup mode, from the variable state (efivars/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "boot/vars.h"
#include "esl/esl.h"
#include "esl/esl_svn.h"
#include "util/file.h"
#include "x509/x509.h"

const char *kt_audit_owner_name(const char *guid)
{
    static const struct {
        const char *guid, *name;
    } known[] = {
        {"77fa9abd-0359-4d32-bd60-28f4e78f784b", "Microsoft"},
        {"00000000-0000-0000-0000-000000000000", "zero GUID"},
    };
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (!strcmp(guid, known[i].guid))
            return known[i].name;
    if (!strcmp(guid, kt_var_vendor_str(KT_VENDOR_SHIM))) /* shim owns its entries by SHIM_LOCK_GUID */
        return "shim";
    return NULL;
}

static void count_owner(struct kt_audit_var *v, const uint8_t *owner)
{
    char g[40];
    kt_guid_str(owner, g);
    for (size_t i = 0; i < v->n_owners; i++)
        if (!strcmp(v->owners[i].guid, g)) {
            v->owners[i].n++;
            return;
        }
    if (v->n_owners == KT_AUDIT_MAX_OWNERS) {
        v->owners[KT_AUDIT_MAX_OWNERS - 1].n++; /* "and others" */
        kt_fmt(v->owners[KT_AUDIT_MAX_OWNERS - 1].guid, 37, "(more owners)");
        return;
    }
    kt_fmt(v->owners[v->n_owners].guid, 37, "%s", g);
    v->owners[v->n_owners++].n = 1;
}

static int count_entry(void *ctx, const struct kt_esl_entry *e)
{
    struct kt_audit_var *v = ctx;
    count_owner(v, e->owner);
    switch (e->type) {
    case KT_ESL_X509: {
        v->n_x509++;
        struct kt_x509 *c = NULL;
        struct kt_error err = KT_ERROR_INIT;
        char *desc = NULL;
        if (kt_x509_parse(e->data.p, e->data.len, &c, &err) == 0 && c->description)
            desc = strdup(c->description);
        else
            desc = strdup("(certificate that cannot be parsed)");
        kt_x509_free(c);
        char **n = realloc(v->certs, (v->n_certs + 1) * sizeof(*n));
        if (!n || !desc) {
            free(desc);
            if (n)
                v->certs = n;
            return -ENOMEM;
        }
        v->certs = n;
        v->certs[v->n_certs++] = desc;
        break;
    }
    case KT_ESL_SHA256: v->n_sha256++; break;
    case KT_ESL_X509_SHA256:
    case KT_ESL_X509_SHA384:
    case KT_ESL_X509_SHA512: v->n_x509_hash++; break;
    default: v->n_other++; break;
    }
    return 0;
}

/* One variable: count its entries (an unreadable file or lists that do
 * not parse are its error). */
static int read_var(struct kt_audit *a, const struct kt_efivars *s, int which,
                    enum kt_efivar_id id)
{
    struct kt_audit_var *v = &a->vars[which];
    const struct kt_efivar *ev = &s->var[id];
    struct kt_error e = KT_ERROR_INIT;
    int rc = 0;
    v->name = kt_efivar_name(id);
    if (ev->state == KT_EFIVAR_ABSENT)
        return 0;
    if (ev->state == KT_EFIVAR_UNREADABLE) {
        e = ev->error;
        rc = e.code ? e.code : -EIO;
    } else {
        v->present = true;
        rc = kt_esl_foreach(ev->raw, ev->raw_len, count_entry, v, &e);
    }
    if (rc == -ENOMEM)
        return rc;
    if (rc < 0) {
        v->error = rc;
        kt_fmt(v->error_what, sizeof(v->error_what), "%s", e.what);
    }
    return 0;
}

int kt_audit_vars(struct kt_audit *a, const struct kt_efivars *s)
{
    static const struct {
        int which;
        enum kt_efivar_id id;
    } vars[] = {
        {KT_AUDIT_VAR_PK, KT_EFIVAR_PK},        {KT_AUDIT_VAR_KEK, KT_EFIVAR_KEK},
        {KT_AUDIT_VAR_DB, KT_EFIVAR_DB},        {KT_AUDIT_VAR_DBX, KT_EFIVAR_DBX},
        {KT_AUDIT_VAR_MOK, KT_EFIVAR_MOKLIST},  {KT_AUDIT_VAR_MOKX, KT_EFIVAR_MOKLISTX},
    };
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        a->vars[vars[i].which].name = kt_efivar_name(vars[i].id);
        if (!a->found[KT_AUDIT_EFIVARS])
            continue;
        int rc = read_var(a, s, vars[i].which, vars[i].id);
        if (rc < 0)
            return rc;
    }
    a->secure_boot = a->setup_mode = -1;
    if (!a->found[KT_AUDIT_EFIVARS])
        return 0;
    a->secure_boot = kt_efivars_byte(s, KT_EFIVAR_SECURE_BOOT);
    a->setup_mode = kt_efivars_byte(s, KT_EFIVAR_SETUP_MODE);
    return 0;
}
