/* plan_nvram.c - does each step's write fit in the firmware's NVRAM: the
 * variable's size before and after (after the firmware's duplicate
 * filtering: the state after kt_efivars_apply), the bytes the write needs,
 * the per-variable limit and the store's free space (ktrust/nvram.h). */
#include <stdio.h>
#include <string.h>

#include "plan/plan_nvram.h"
#include "util/fmt.h"

bool kt_plan_nv_refuses(struct kt_plan *p, const struct kt_efivars *was,
                        const struct kt_efivars *now, struct kt_plan_file *f)
{
    kt_nv_fit(was, now, f->change.target, &p->nv, p->nv_free, p->nv.free_known, &f->nv);
    f->no_fit = f->nv.too_big == 1 || f->nv.no_room == 1;
    if (!f->no_fit && p->nv.free_known)
        p->nv_free = f->nv.free_after;
    p->n_no_fit += f->no_fit;
    return f->no_fit;
}

/* Who may clear stale entries with a replace write of the variable. */
static void whose(const struct kt_plan *p, const struct kt_plan_file *f, char *out, size_t cap)
{
    if (f->change.target == KT_EFIVAR_KEK || f->change.target == KT_EFIVAR_PK)
        kt_fmt(out, cap, "the PK holder (%s)", p->pk[0] ? p->pk : "this machine's PK");
    else
        kt_fmt(out, cap, "a KEK holder (this update's signer: %s) or the PK holder (%s)",
               f->change.authority[0] ? f->change.authority : "?",
               p->pk[0] ? p->pk : "this machine's PK");
}

void kt_plan_nv_say(const struct kt_plan *p, struct kt_plan_file *f)
{
    const char *var = kt_efivar_name(f->change.target);
    char a[32], b[32], who[640], what[160];
    if (f->nv.too_big == 1)
        kt_fmt(what, sizeof(what), "this %s would be %s bytes; this firmware takes at most %s "
               "per variable", var, kt_thousands(f->nv.after, a),
               kt_thousands(p->nv.max_var, b));
    else
        kt_fmt(what, sizeof(what), "the write needs %s bytes free (a new copy of %s before the "
               "old one is reclaimed); the store has %s", kt_thousands(f->nv.write, a), var,
               kt_thousands(p->nv_free, b));
    whose(p, f, who, sizeof(who));
    /* a dbx that revokes a certificate and carries SVN records has an
     * SVN-only sibling (DBXUpdate2024.bin, DBXUpdateSVN.bin) */
    bool svn = f->change.target == KT_EFIVAR_DBX && strstr(f->revokes, "every image") &&
               strstr(f->revokes, "SVN");
    kt_fmt(f->reason, sizeof(f->reason), "does not fit: %s; the way out: a smaller update%s, or "
           "clearing stale entries with a replace write of %s signed by %s", what,
           svn ? " (the SVN-only dbx instead of the full one)" : "", var, who);
}
