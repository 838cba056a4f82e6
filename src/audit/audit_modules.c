/* audit_modules.c - every module under the modules directory verified
 * against the chain's keyrings (builtin from a trusted kernel, machine from
 * trusted MOK); those that would not load grouped by verdict and reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "scan/walk.h"
#include "util/file.h"

struct names {
    char **v;
    size_t n, cap;
};

static bool is_module_name(const char *n)
{
    static const char *const ext[] = {".ko", ".ko.xz", ".ko.zst", ".ko.gz"};
    size_t l = strlen(n);
    for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
        size_t e = strlen(ext[i]);
        if (l > e && !strcmp(n + l - e, ext[i]))
            return true;
    }
    return false;
}

static int push(struct names *s, const char *p)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        char **v = realloc(s->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    if (!(s->v[s->n] = strdup(p)))
        return -ENOMEM;
    s->n++;
    return 0;
}

/* Regular files named *.ko[.xz|.zst|.gz] under dir (symlinks not followed:
 * lib/modules/X/build points at the sources); depth-bounded. */
static int walk_one(void *arg, const struct kt_walk_entry *e)
{
    if (e->kind != KT_WALK_FILE || !is_module_name(e->name) || strlen(e->path) >= KT_AUDIT_PATH)
        return 0;
    return push(arg, e->path);
}

static int walk(const char *dir, struct names *out)
{
    struct kt_walk_opts wo = {.max_depth = 16};
    return kt_walk(&dir, 1, &wo, walk_one, out);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* What would vouch for modules that are untrusted, and how to supply it. */
static void group_hint(const struct kt_audit *a, struct kt_audit_group *g)
{
    if (g->verdict != -ENOKEY)
        return;
    const struct kt_audit_link *K = &a->links[KT_AUDIT_KERNEL_LINK];
    char who[360];
    if (g->signer[0])
        kt_audit_fmt(who, sizeof(who), "signed by %s", g->signer);
    else
        kt_audit_fmt(who, sizeof(who), "signed by a key the signatures do not name by certificate");
    if (!K->present || K->link.verdict != 0)
        kt_audit_fmt(g->hint, sizeof(g->hint),
                     "%s: the kernel's builtin keys would vouch, but the kernel is %s: fix the "
                     "kernel link first, or pass `--kernel VMLINUZ` to verify-module",
                     who, K->present ? "not trusted" : "missing");
    else
        kt_audit_fmt(g->hint, sizeof(g->hint),
                     "%s, which no builtin, secondary or machine key holds: enroll its "
                     "certificate in MOK and trust MOK for the kernel (`mokutil --import CERT.der` "
                     "and `mokutil --trust-mok`: MokListTrustedRT), or pass `--trust CERT`",
                     who);
}

static int add_to_group(struct kt_audit *a, const struct kt_chain_link *l, const char *rel)
{
    struct kt_audit_group *g = NULL;
    for (size_t i = 0; i < a->n_groups; i++)
        if (a->groups[i].verdict == l->verdict && !strcmp(a->groups[i].reason, l->reason) &&
            !strcmp(a->groups[i].signer, l->signer))
            g = &a->groups[i];
    if (!g) {
        struct kt_audit_group *n = realloc(a->groups, (a->n_groups + 1) * sizeof(*n));
        if (!n)
            return -ENOMEM;
        a->groups = n;
        g = &a->groups[a->n_groups++];
        memset(g, 0, sizeof(*g));
        g->verdict = l->verdict;
        kt_audit_fmt(g->reason, sizeof(g->reason), "%s", l->reason);
        kt_audit_fmt(g->signer, sizeof(g->signer), "%s", l->signer);
        group_hint(a, g);
    }
    char **m = realloc(g->modules, (g->n + 1) * sizeof(*m));
    if (!m)
        return -ENOMEM;
    g->modules = m;
    if (!(g->modules[g->n] = strdup(rel)))
        return -ENOMEM;
    g->n++;
    return 0;
}

int kt_audit_modules(struct kt_audit *a, struct kt_chain *ch, const struct kt_audit_opts *o)
{
    if (!a->found[KT_AUDIT_MODULES])
        return 0;
    struct names s = {0};
    const char *dir = a->path[KT_AUDIT_MODULES];
    int rc = walk(dir, &s);
    if (rc == 0)
        qsort(s.v, s.n, sizeof(*s.v), cmp_str);
    size_t dl = strlen(dir);
    for (size_t i = 0; rc == 0 && i < s.n; i++) {
        if (o->progress)
            o->progress(o->progress_ctx, i, s.n);
        struct kt_chain_link l;
        struct kt_file f = {0};
        struct kt_error e = {0};
        int frc = kt_file_open(s.v[i], &f, &e);
        if (frc < 0) {
            memset(&l, 0, sizeof(l));
            l.role = KT_LINK_MODULE;
            l.verdict = frc;
            kt_audit_fmt(l.reason, sizeof(l.reason), "%s", e.what);
        } else {
            kt_chain_module(ch, f.data, f.len, s.v[i], &l);
            kt_file_close(&f);
        }
        a->n_modules++;
        if (l.verdict == 0)
            a->n_modules_trusted++;
        else
            rc = add_to_group(a, &l, s.v[i] + dl + (s.v[i][dl] == '/'));
    }
    if (o->progress && rc == 0)
        o->progress(o->progress_ctx, s.n, s.n);
    for (size_t i = 0; i < s.n; i++)
        free(s.v[i]);
    free(s.v);
    return rc;
}
