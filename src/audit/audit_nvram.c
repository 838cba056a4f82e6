/* audit_nvram.c - does it fit in NVRAM: the Secure Boot variables' sizes
 * against the firmware's limits (the machine's statfs numbers, or those
 * given), the --apply writes' fit in order, and room for shim's runtime
 * mirrors after them (ktrust/nvram.h). */
#include <errno.h>
#include <string.h>

#include "audit/audit.h"

static const enum kt_efivar_id sb_vars[6] = {KT_EFIVAR_PK, KT_EFIVAR_KEK, KT_EFIVAR_DB,
                                            KT_EFIVAR_DBX, KT_EFIVAR_DBT, KT_EFIVAR_DBR};

static bool differs(const struct kt_efivars *a, const struct kt_efivars *b, enum kt_efivar_id id)
{
    size_t la = 0, lb = 0;
    const uint8_t *pa = kt_efivar_data(&a->var[id], &la), *pb = kt_efivar_data(&b->var[id], &lb);
    if (!pa || !pb)
        return pa != pb;
    return la != lb || memcmp(pa, pb, la) != 0;
}

void kt_audit_nvram_limits(struct kt_audit *a, const struct kt_audit_opts *o)
{
    struct kt_nv_limits *l = &a->nvram.lim;
    kt_nv_limits_read(a->found[KT_AUDIT_EFIVARS] ? a->path[KT_AUDIT_EFIVARS] : NULL, l);
    if (!o->nv)
        return;
    l->max_var = o->nv->max_var;
    if (o->nv->free_known) {
        l->store_free = o->nv->store_free;
        l->free_known = true;
        memcpy(l->source, o->nv->source, sizeof(l->source));
    }
}

int kt_audit_apply_one(struct kt_audit *a, struct kt_efivars *s, const char *path,
                       struct kt_efivars_change *c, uint64_t *room)
{
    int rc = kt_efivars_apply_file_nv(s, path, &a->nvram.lim, room, c);
    a->nvram.n_refused += rc == -EPERM; /* the only -EPERM: the write does not fit */
    return rc;
}

void kt_audit_nvram(struct kt_audit *a, const struct kt_audit_opts *o,
                    const struct kt_audit_snap *s)
{
    struct kt_audit_nvram *n = &a->nvram;
    if (!a->found[KT_AUDIT_EFIVARS])
        return;
    n->checked = true;
    kt_audit_nvram_limits(a, o);
    const struct kt_efivars *was = s->have_was ? &s->was : &s->vars;
    uint64_t room = n->lim.store_free;
    for (int i = 0; i < 6; i++) {
        kt_nv_fit(was, &s->vars, sb_vars[i], &n->lim, room, n->lim.free_known, &n->fit[i]);
        n->changed[i] = s->have_was && differs(was, &s->vars, sb_vars[i]);
        if (n->changed[i])
            room = n->fit[i].free_after;
    }
    n->free_after = room;
    kt_nv_shim_mirrors(&s->vars, room, n->lim.free_known, &n->shim);
}
