/* audit_vars.c - the firmware and MOK variables of an efivars directory:
 * Secure Boot and setup mode, what PK/KEK/db/dbx/MOK hold, and db, dbx and
 * the MOK lists into the chain (as `chain --efivars` reads them). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "audit/efivars.h"
#include "esl/esl.h"
#include "esl/esl_svn.h"
#include "util/file.h"
#include "x509/x509.h"

const char *kt_audit_find_var(const char *dir, const char *name, char *buf, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    struct dirent *de;
    const char *found = NULL;
    size_t nl = strlen(name);
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, name, nl) || de->d_name[nl] != '-' ||
            strlen(de->d_name + nl + 1) != 36)
            continue;
        kt_audit_fmt(buf, cap, "%s/%s", dir, de->d_name);
        found = buf;
        break;
    }
    closedir(d);
    return found;
}

const char *kt_audit_owner_name(const char *guid)
{
    static const struct {
        const char *guid, *name;
    } known[] = {
        {"77fa9abd-0359-4d32-bd60-28f4e78f784b", "Microsoft"},
        {"605dab50-e046-4300-abb6-3dd810dd8b23", "shim"},
        {"00000000-0000-0000-0000-000000000000", "zero GUID"},
    };
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (!strcmp(guid, known[i].guid))
            return known[i].name;
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
        kt_audit_fmt(v->owners[KT_AUDIT_MAX_OWNERS - 1].guid, 37, "(more owners)");
        return;
    }
    kt_audit_fmt(v->owners[v->n_owners].guid, 37, "%s", g);
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

typedef int (*add_fn)(struct kt_chain *, const uint8_t *, size_t, const char *, struct kt_error *);

/* One variable: count its entries and (fn) give it to the chain. */
static int read_var(struct kt_audit *a, struct kt_chain *ch, int which, const char *name,
                    add_fn fn)
{
    struct kt_audit_var *v = &a->vars[which];
    char buf[KT_AUDIT_PATH + 64];
    v->name = name;
    const char *p = kt_audit_find_var(a->path[KT_AUDIT_EFIVARS], name, buf, sizeof(buf));
    if (!p)
        return 0;
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(p, &f, &e);
    if (rc == 0) {
        v->present = true;
        rc = kt_esl_foreach(f.data, f.len, count_entry, v, &e);
        if (rc == 0 && fn && f.len > 4) /* an attribute word alone: an empty variable */
            rc = fn(ch, f.data, f.len, p, &e);
    }
    kt_file_close(&f);
    if (rc == -ENOMEM)
        return rc;
    if (rc < 0) {
        v->error = rc;
        kt_audit_fmt(v->error_what, sizeof(v->error_what), "%s", e.what);
    }
    return 0;
}

int kt_audit_vars(struct kt_audit *a, struct kt_chain *ch)
{
    static const struct {
        int which;
        const char *name;
        add_fn fn;
    } vars[] = {
        {KT_AUDIT_VAR_PK, "PK", NULL},
        {KT_AUDIT_VAR_KEK, "KEK", NULL},
        /* then db, dbx, MokListRT, MokListXRT as chain --efivars reads them */
    };
    _Static_assert(KT_AUDIT_VAR_MOKX - KT_AUDIT_VAR_DB + 1 == KT_EFIVAR_FEEDS,
                   "the chain's variables follow PK and KEK");
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        a->vars[vars[i].which].name = vars[i].name;
        if (!a->found[KT_AUDIT_EFIVARS])
            continue;
        int rc = read_var(a, ch, vars[i].which, vars[i].name, vars[i].fn);
        if (rc < 0)
            return rc;
    }
    for (size_t i = 0; i < KT_EFIVAR_FEEDS; i++) {
        int which = KT_AUDIT_VAR_DB + (int)i;
        a->vars[which].name = kt_efivar_feeds[i].name;
        if (!a->found[KT_AUDIT_EFIVARS])
            continue;
        int rc = read_var(a, ch, which, kt_efivar_feeds[i].name, kt_efivar_feeds[i].add);
        if (rc < 0)
            return rc;
    }
    a->secure_boot = a->setup_mode = -1;
    if (!a->found[KT_AUDIT_EFIVARS])
        return 0;
    const char *dir = a->path[KT_AUDIT_EFIVARS];
    a->secure_boot = kt_efivar_byte(dir, "SecureBoot");
    a->setup_mode = kt_efivar_byte(dir, "SetupMode");
    char buf[KT_AUDIT_PATH + 64];
    /* the kernel checks only that MokListTrustedRT exists (uefi_check_trust_mok_keys) */
    a->mok_trusted = kt_audit_find_var(dir, "MokListTrustedRT", buf, sizeof(buf)) != NULL;
    kt_chain_set_mok_trusted(ch, a->mok_trusted);
    struct kt_error se = KT_ERROR_INIT;
    int src = kt_efivar_sbat_level(dir, &a->sbat_current, buf, sizeof(buf), &se);
    if (src > 0)
        a->have_sbat_current = true;
    else if (src < 0)
        kt_audit_fmt(a->sbat_note, sizeof(a->sbat_note), "%s: %s", buf, se.what);
    const char *p = kt_audit_find_var(dir, "SbatPolicy", buf, sizeof(buf));
    if (p) {
        struct kt_file f = {0};
        struct kt_error e = KT_ERROR_INIT;
        static const char *const pol[] = {"", "latest", "automatic", "reset"};
        if (kt_file_open(p, &f, &e) == 0 && f.len >= 5 && f.data[4] >= 1 && f.data[4] <= 3)
            kt_audit_fmt(a->sbat_policy, sizeof(a->sbat_policy), "%s", pol[f.data[4]]);
        kt_file_close(&f);
    }
    return 0;
}
