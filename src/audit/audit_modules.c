/* audit_modules.c - the modules under the modules directory (the boot
 * engine verifies them), and those that would not load grouped by verdict,
 * reason and signer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "util/walk.h"

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

int kt_audit_group_module(struct kt_audit *a, const struct kt_chain_link *l, const char *rel)
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
        kt_fmt(g->reason, sizeof(g->reason), "%s", l->reason);
        kt_fmt(g->signer, sizeof(g->signer), "%s", l->signer);
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

int kt_audit_module_list(const struct kt_audit *a, char ***list, size_t *n)
{
    struct names s = {0};
    *list = NULL;
    *n = 0;
    if (!a->found[KT_AUDIT_MODULES])
        return 0;
    int rc = walk(a->path[KT_AUDIT_MODULES], &s);
    if (rc < 0) {
        for (size_t i = 0; i < s.n; i++)
            free(s.v[i]);
        free(s.v);
        return rc;
    }
    if (s.n) /* qsort(NULL, 0) is undefined (UBSan): an empty modules folder */
        qsort(s.v, s.n, sizeof(*s.v), cmp_str);
    *list = s.v;
    *n = s.n;
    return 0;
}
