/* audit.c - kt_audit_run: the parts located, the variables read, the boot
 * engine run on them (every link and module, SBAT), the modules that would
 * not load grouped, and the revocation outlook. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/audit.h"
#include "audit/rollover.h"
#include "ktrust/update.h"
#include "util/file.h"

static void join(char *out, size_t cap, const char *s)
{
    size_t n = strlen(out);
    kt_fmt(out + n, cap - n, "%s%s", n ? "; " : "", s);
}

/* What the dbx updates and the latest SbatLevel would do to each boot file. */
static int outlook(struct kt_audit *a, const struct kt_audit_opts *o,
                   const struct kt_audit_snap *s, struct kt_error *err)
{
    struct kt_update_check *u;
    struct kt_sbat_level latest = {0};
    bool have_latest = false;
    int rc = kt_update_check_new(&u);
    for (size_t i = 0; rc == 0 && i < o->n_dbx; i++) {
        rc = kt_update_check_add_dbx_file(u, o->dbx[i], err);
        if (rc < 0)
            a->error_file = o->dbx[i];
    }
    if (rc < 0)
        goto out;
    a->n_dbx_entries = kt_update_check_dbx_entries(u);
    if (!o->no_latest) {
        struct kt_error e = KT_ERROR_INIT;
        if (kt_sbat_level_spec("latest", &latest, &e) == 0 &&
            kt_update_check_set_level(u, &latest, &e) == 0) {
            have_latest = true;
            kt_fmt(a->latest_stamp, sizeof(a->latest_stamp), "%s", latest.stamp);
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
        O->today = L->link.verdict;
        struct kt_update_verdict v;
        if (s->file_rc[order[k]] < 0) { /* the snapshot could not read it */
            memset(&v, 0, sizeof(v));
            v.db = -1;
            v.rc = O->rc = s->file_rc[order[k]];
            v.error = s->file_error[order[k]];
        } else {
            O->rc = kt_update_check_image(u, s->file[order[k]].data, s->file[order[k]].len, &v);
        }
        if (O->rc == -ENOMEM) {
            rc = O->rc;
            kt_update_verdict_free(&v);
            break;
        }
        if (O->rc < 0)
            kt_fmt(O->error, sizeof(O->error), "%s", v.error.what);
        for (size_t i = 0; i < v.n; i++) {
            if (v.reasons[i].by == KT_REVOKE_SBAT)
                O->by_sbat = true;
            else
                O->by_dbx = true;
            join(O->detail, sizeof(O->detail), v.reasons[i].detail);
        }
        kt_update_verdict_free(&v);
    }
out:
    kt_update_check_free(u);
    kt_sbat_level_free(&latest);
    return rc;
}

/* The audit's one verdict (a->verdict). */
static int fold(const struct kt_audit *a)
{
    bool any = false;
    for (int i = 0; i < KT_AUDIT__PARTS; i++)
        any |= a->found[i];
    if (!any)
        return -ENOENT;
    int applied = 0; /* an update asked for but not applied: the answer is not for it */
    for (size_t i = 0; i < a->n_applied; i++)
        applied = kt_verdict_worse(applied, a->applied[i].verdict);
    if (applied || a->unanswered[0])
        return applied ? applied : -ENOENT;
    int worst = 0;
    for (int i = KT_AUDIT_SHIM; i <= KT_AUDIT_KERNEL_LINK; i++)
        if (a->links[i].present)
            worst = kt_verdict_worse(worst, a->links[i].link.verdict);
    for (size_t i = 0; i < a->n_groups; i++)
        worst = kt_verdict_worse(worst, a->groups[i].verdict);
    return worst;
}

struct run_ctx {
    struct kt_audit *a;
    const struct kt_audit_opts *o;
};

static int group(void *ctx, size_t i, const struct kt_chain_link *l)
{
    struct kt_audit *a = ((struct run_ctx *)ctx)->a;
    (void)i;
    if (l->verdict == 0)
        return 0;
    size_t dl = strlen(a->path[KT_AUDIT_MODULES]);
    return kt_audit_group_module(a, l, l->file + dl + (l->file[dl] == '/'));
}

static void progress(void *ctx, size_t done, size_t total)
{
    const struct kt_audit_opts *o = ((struct run_ctx *)ctx)->o;
    o->progress(o->progress_ctx, done, total);
}

/* Does --root name a root `audit --save-root` wrote (its modules may be
 * saved ones)? */
static bool saved_root(const struct kt_audit_opts *o)
{
    const char *root = o->root && *o->root && strcmp(o->root, "/") ? o->root : NULL;
    char path[PATH_MAX];
    struct stat st;
    return root &&
           kt_root_resolve(root, "/" KT_AUDIT_SAVED_META, path, sizeof(path), &st) == 0 &&
           S_ISREG(st.st_mode);
}

/* The boot engine on the located parts and the variables in force. */
static int run_chain(struct kt_audit *a, const struct kt_audit_opts *o,
                     const struct kt_efivars *vars, struct kt_error *err)
{
    char **mods = NULL;
    size_t n_mods = 0;
    int rc = kt_audit_module_list(a, &mods, &n_mods);
    if (rc < 0)
        return rc;
    struct run_ctx rc_ctx = {a, o};
    const char *link_path[KT_CHAIN__BOOT] = {0};
    for (int i = KT_AUDIT_SHIM; i <= KT_AUDIT_KERNEL_LINK; i++)
        link_path[i] = a->links[i].present ? a->links[i].path : NULL;
    struct kt_chain_opts co = {
        .vars = a->found[KT_AUDIT_EFIVARS] ? vars : NULL,
        .sbat = true,
        .sbat_level = o->sbat_level,
        .shim = link_path[KT_AUDIT_SHIM],
        .loader = link_path[KT_AUDIT_LOADER],
        .kernel = link_path[KT_AUDIT_KERNEL_LINK],
        .firmware_only = a->sdboot.no_shim,
        .modules = (const char *const *)mods,
        .n_modules = n_mods,
        .saved_modules = saved_root(o),
        .on_module = group,
        .progress = a->found[KT_AUDIT_MODULES] && o->progress ? progress : NULL,
        .ctx = &rc_ctx,
        .kernel_cache = o->kernel_cache,
    };
    struct kt_chain_report r;
    rc = kt_chain_run(&co, &r, err);
    if (rc == 0) {
        for (int i = KT_AUDIT_SHIM; i <= KT_AUDIT_KERNEL_LINK; i++) {
            if (!a->links[i].present)
                continue;
            a->links[i].link = r.link[i];
            a->links[i].link.file = a->links[i].path;
            kt_fmt(a->links[i].sbat, sizeof(a->links[i].sbat), "%s", r.sbat[i]);
        }
        a->mok_trusted = r.mok_trusted;
        kt_fmt(a->sbat_policy, sizeof(a->sbat_policy), "%s", r.sbat_policy);
        kt_fmt(a->sbat_note, sizeof(a->sbat_note), "%s", r.sbat_note);
        memcpy(a->sbat_current, r.sbat_current, sizeof(a->sbat_current));
        a->have_sbat_current = r.have_sbat_current;
        memcpy(a->sbat_next, r.sbat_applied, sizeof(a->sbat_next));
        a->have_sbat_next = r.have_sbat_applied;
        a->n_modules = r.n_modules;
        a->n_modules_trusted = r.n_modules_trusted;
        a->worst = r.worst;
        for (int i = KT_AUDIT_VAR_DB; i <= KT_AUDIT_VAR_MOKX; i++) {
            static const enum kt_efivar_id ids[] = {KT_EFIVAR_DB, KT_EFIVAR_DBX,
                                                    KT_EFIVAR_MOKLIST, KT_EFIVAR_MOKLISTX};
            const struct kt_error *ve = &r.var_error[ids[i - KT_AUDIT_VAR_DB]];
            if (ve->code && !a->vars[i].error) {
                a->vars[i].error = ve->code;
                kt_fmt(a->vars[i].error_what, sizeof(a->vars[i].error_what), "%s", ve->what);
            }
        }
    }
    kt_chain_report_free(&r);
    for (size_t i = 0; i < n_mods; i++)
        free(mods[i]);
    free(mods);
    return rc;
}

int kt_audit_run(const struct kt_audit_opts *o, struct kt_audit *a, struct kt_error *err)
{
    memset(a, 0, sizeof(*a));
    kt_audit_locate(o, a);
    /* a part named but not there is a mistyped path, not a system without it */
    const char *given[] = {o->efivars, o->esp, o->eventlog};
    for (int i = 0; i < 3; i++)
        if (given[i] && (i < 2 ? !a->found[i] : access(given[i], R_OK) != 0)) {
            a->error_file = given[i];
            return kt_fail(err, -ENOENT, KT_NO_OFFSET, "cannot open: %s",
                           i < 2 ? "no such directory" : strerror(errno));
        }
    struct kt_audit_snap *s = malloc(sizeof(*s));
    int rc = s ? kt_audit_snap_read(a, o, s) : -ENOMEM;
    if (rc == 0 && o->eventlog && s->log_rc < 0) { /* asked for, not a clue left out */
        a->error_file = o->eventlog;
        rc = kt_fail(err, s->log_rc, KT_NO_OFFSET, "%s", s->log_error);
    }
    if (rc == 0)
        rc = kt_audit_vars(a, &s->vars);
    if (rc == 0)
        rc = run_chain(a, o, &s->vars, err);
    if (rc == 0)
        kt_audit_boot_entries(a, s);
    if (rc == 0)
        rc = outlook(a, o, s, err);
    if (rc == 0)
        rc = kt_audit_rollover(a, o, s, err);
    if (rc == 0)
        rc = kt_audit_pcr7(a, s);
    if (rc == 0)
        kt_audit_nvram(a, o, s);
    if (rc == 0)
        rc = kt_audit_windows(a, &s->vars);
    if (rc == 0)
        rc = kt_audit_ima(a, o, s);
    if (s)
        kt_audit_snap_free(s);
    free(s);
    for (size_t i = 0; i < a->n_applied && !a->unanswered[0]; i++)
        if (a->applied[i].verdict)
            kt_fmt(a->unanswered, sizeof(a->unanswered), "%s: not applied: %s", o->apply[i],
                   a->applied[i].error.what);
    if (!a->unanswered[0] && !a->links[KT_AUDIT_SHIM].present &&
        !a->links[KT_AUDIT_LOADER].present &&
        !a->links[KT_AUDIT_KERNEL_LINK].present) /* variables alone are not "trusted" */
        kt_fmt(a->unanswered, sizeof(a->unanswered),
               "the boot chain: no shim, loader or kernel found to judge");
    if (rc == 0)
        a->verdict = fold(a);
    if (rc == -ENOMEM)
        kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    return rc;
}

void kt_audit_free(struct kt_audit *a)
{
    kt_seal_found_free(&a->sealed);
    free(a->sealed_check);
    a->sealed_check = NULL;
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
    for (size_t i = 0; i < a->n_applied; i++)
        kt_efivars_change_free(&a->applied[i]);
    memset(a, 0, sizeof(*a));
}
