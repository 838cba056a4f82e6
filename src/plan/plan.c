/* plan.c - plan the signed db/dbx/KEK/PK updates for one machine: find the
 * update files, apply what verifies in a firmware-safe order (KEK, db,
 * dbx, PK; again until nothing more applies), and judge the ESP's chain
 * after each step (ktrust/plan.h). */
#include "ktrust/plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "authvar/authvar.h"
#include "crypto/crypto.h"
#include "efivars/efivars.h"
#include "esl/esl.h"
#include "ktrust/advanced.h"
#include "ktrust/audit.h"
#include "ktrust/chain.h"
#include "plan/plan_arch.h"
#include "plan/plan_kek.h"
#include "plan/plan_predict.h"
#include "plan/plan_nvram.h"
#include "plan/plan_windows.h"
#include "util/file.h"
#include "util/fmt.h"
#include "util/walk.h"

/* ---- the update files -------------------------------------------------- */

struct collect {
    struct kt_plan *p;
    struct kt_error *err;
    int rc;
};

static int take(void *arg, const struct kt_walk_entry *e)
{
    struct collect *c = arg;
    if (e->kind != KT_WALK_FILE)
        return 0;
    if (!strcmp(e->name, "kek_update_map.json")) {
        kt_fmt(c->p->map, sizeof(c->p->map), "%s", e->path);
        return 0;
    }
    if (!strncmp(e->name, "dbx_info", 8) && strstr(e->name, ".json")) {
        kt_fmt(c->p->dbx_info, sizeof(c->p->dbx_info), "%s", e->path);
        return 0;
    }
    uint8_t head[40];
    FILE *f = fopen(e->path, "rb");
    size_t n = f ? fread(head, 1, sizeof(head), f) : 0;
    if (f)
        fclose(f);
    if (!kt_authvar_looks_like(head, n))
        return 0; /* certificates, JSON, readmes: not updates */
    struct kt_plan_file *v = realloc(c->p->files, (c->p->n_files + 1) * sizeof(*v));
    if (!v)
        return c->rc = -ENOMEM;
    c->p->files = v;
    v += c->p->n_files++;
    memset(v, 0, sizeof(*v));
    v->change.target = KT_EFIVAR__COUNT;
    kt_fmt(v->path, sizeof(v->path), "%s", e->path);
    return 0;
}

/* KEK first, then db, dbt/dbr, dbx (db before the dbx updates that revoke
 * what they replace), PK last. */
static int rank(enum kt_efivar_id t)
{
    switch (t) {
    case KT_EFIVAR_KEK: return 0;
    case KT_EFIVAR_DB: return 1;
    case KT_EFIVAR_DBT: case KT_EFIVAR_DBR: return 2;
    case KT_EFIVAR_DBX: return 3;
    case KT_EFIVAR_PK: return 4;
    default: return 5;
    }
}

/* ---- judging a state --------------------------------------------------- */

/* The boot files an ESP's chain is judged by: its shim and the loader
 * beside it, as audit finds them (nothing else of any system is looked at). */
struct esp_files {
    bool found[2];
    char path[2][KT_AUDIT_PATH];
};

static int locate_esp(const char *esp, struct esp_files *ef)
{
    memset(ef, 0, sizeof(*ef));
    if (!esp)
        return 0;
    /* "" for every other part: looked up nowhere (an offline run reads
     * nothing of the host) */
    struct kt_audit_opts o = {.esp = esp, .efivars = "", .kernel = "", .modules = "",
                              .release = ""};
    struct kt_audit *a = malloc(sizeof(*a));
    if (!a)
        return -ENOMEM;
    memset(a, 0, sizeof(*a));
    kt_audit_locate(&o, a);
    static const int links[2] = {KT_AUDIT_SHIM, KT_AUDIT_LOADER};
    for (int i = 0; i < 2; i++) {
        ef->found[i] = a->links[links[i]].present;
        kt_fmt(ef->path[i], sizeof(ef->path[i]), "%s", a->links[links[i]].path);
    }
    free(a);
    return 0;
}

/* The boot engine on the ESP's shim and loader with variables s (SBAT as
 * shim applies it): one chain run per state. */
static int judge_chain(const struct kt_efivars *s, const struct esp_files *ef,
                       struct kt_plan_state *st)
{
    struct kt_chain_opts co = {.vars = s, .sbat = true,
                               .shim = ef->found[0] ? ef->path[0] : NULL,
                               .loader = ef->found[1] ? ef->path[1] : NULL};
    struct kt_chain_report r;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_chain_run(&co, &r, &e);
    if (rc == 0) {
        bool *found[2] = {&st->shim_found, &st->loader_found};
        int *verdict[2] = {&st->shim_verdict, &st->loader_verdict};
        char *reason[2] = {st->shim_reason, st->loader_reason};
        st->checked = true;
        for (int i = 0; i < 2; i++) {
            *found[i] = ef->found[i];
            *verdict[i] = ef->found[i] ? r.link[i].verdict : 0;
            kt_fmt(reason[i], sizeof(st->shim_reason), "%s",
                   ef->found[i] ? r.link[i].reason : "not found on the ESP");
        }
    }
    kt_chain_report_free(&r);
    return rc == -ENOMEM ? rc : 0;
}

static int judge(const struct kt_plan *p, const struct kt_efivars *s,
                 const struct kt_plan_opts *o, const struct esp_files *ef,
                 struct kt_plan_state *st)
{
    const char *esp = o->esp;
    memset(st, 0, sizeof(*st));
    kt_plan_windows_judge(p, s, st);
    st->kek_2023 = kt_plan_var_holds(s, KT_EFIVAR_KEK, KT_MS_CA_KEK, 2023);
    st->db_uefi_2011 = kt_plan_var_holds(s, KT_EFIVAR_DB, KT_MS_CA_3P, 2011);
    st->db_uefi_2023 = kt_plan_var_holds(s, KT_EFIVAR_DB, KT_MS_CA_3P, 2023);
    st->dbx_uefi_2011 = kt_plan_var_holds(s, KT_EFIVAR_DBX, KT_MS_CA_3P, 2011);
    st->shim_2023_only_boots =
        st->db_uefi_2023 && !kt_plan_var_holds(s, KT_EFIVAR_DBX, KT_MS_CA_3P, 2023);
    if (o->eventlog && kt_plan_predict(o, s, st) < 0)
        return -ENOMEM;
    return esp ? judge_chain(s, ef, st) : 0;
}

/* ---- the plan ---------------------------------------------------------- */

/* Try file f on a copy of *s: 0 applied (*trial holds the new state), else
 * the reason's code; -ENOMEM. */
static int trial(const struct kt_efivars *s, struct kt_efivars_auth *auth,
                 struct kt_plan_file *f, struct kt_efivars *out)
{
    kt_efivars_change_free(&f->change);
    int rc = kt_efivars_copy(s, out);
    if (rc < 0)
        return rc;
    rc = kt_efivars_apply_file_auth(out, auth, f->path, &f->change);
    if (f->change.target != KT_EFIVAR__COUNT) /* updates come in runs of one variable */
        auth->guess = f->change.target;
    if (rc < 0)
        kt_efivars_free(out);
    return rc;
}

static void say(const struct kt_plan *p, struct kt_plan_file *f)
{
    const struct kt_efivars_change *c = &f->change;
    const char *var = c->target < KT_EFIVAR__COUNT ? kt_efivar_name(c->target) : "?";
    f->other_pk = !f->applies && c->verdict == -ENOKEY &&
                  (c->target == KT_EFIVAR_KEK || c->target == KT_EFIVAR_PK);
    if (f->held)
        return; /* kt_plan_windows_holds said why */
    if (f->no_fit)
        kt_plan_nv_say(p, f);
    else if (f->other_arch)
        kt_fmt(f->reason, sizeof(f->reason),
               "skipped: for %s (%s), not this machine's %s (%s): it would protect nothing "
               "here and take %s space", f->arch,
               f->arch_listed ? "dbx_info lists its hashes there" : "its folder", p->arch,
               p->arch_from, var);
    else if (!f->applies)
        kt_fmt(f->reason, sizeof(f->reason), "does not apply: %s", c->error.what);
    else if (!f->step)
        kt_fmt(f->reason, sizeof(f->reason), "already in force: %s holds every entry", var);
    else if (c->setup_mode)
        kt_fmt(f->reason, sizeof(f->reason), "applies to %s (setup mode: no authority needed)",
               var);
    else
        kt_fmt(f->reason, sizeof(f->reason), "applies to %s: signed under %s, which this %s holds",
               var, c->authority, c->target == KT_EFIVAR_PK || c->target == KT_EFIVAR_KEK
                                      ? "PK" : "PK/KEK");
}

/* Where the plan is: the state, which files are done, and the authority
 * generation each file last failed under (only a PK or KEK step can make a
 * refused file apply: db and dbx steps do not change who may sign). */
struct walk_state {
    struct kt_efivars s;
    const struct kt_json *dbx_info; /* Microsoft's per-architecture lists, or NULL */
    bool all_arches;
    struct kt_efivars_auth auth; /* s's PK and KEK, parsed once per state */
    bool *done;
    unsigned *failed_gen; /* 0: never tried; else gen + 1 */
    unsigned gen;
};

/* One pass: apply the first file (by rank, then walk order) that verifies
 * and changes something.  1 when a step was taken, 0 when none, -ENOMEM. */
static int step(struct kt_plan *p, struct walk_state *w, const struct kt_plan_opts *o,
                const struct esp_files *ef)
{
    struct kt_efivars *s = &w->s;
    bool *done = w->done;
    for (int r = 0; r <= 5; r++) {
        for (size_t i = 0; i < p->n_files; i++) {
            struct kt_plan_file *f = &p->files[i];
            if (done[i] || rank(f->change.target) != r || w->failed_gen[i] == w->gen + 1)
                continue;
            struct kt_efivars next;
            int rc = trial(s, &w->auth, f, &next);
            if (rc == -ENOMEM)
                return rc;
            if (rc < 0) {
                w->failed_gen[i] = w->gen + 1;
                continue;
            }
            done[i] = true;
            f->applies = true;
            bool other = kt_plan_file_arch(p, w->dbx_info, f);
            f->other_arch = other && f->change.n_gained && !w->all_arches;
            if ((!f->change.n_gained && !f->change.n_lost) || f->other_arch ||
                kt_plan_nv_refuses(p, s, &next, f) || kt_plan_windows_holds(p, s, &next, f)) {
                p->n_other_arch += f->other_arch;
                kt_efivars_free(&next);
                say(p, f);
                continue;
            }
            kt_efivars_free(s);
            *s = next;
            kt_efivars_auth_free(&w->auth);
            kt_efivars_auth_of(s, &w->auth);
            if (f->change.target == KT_EFIVAR_PK || f->change.target == KT_EFIVAR_KEK)
                w->gen++;
            p->order[p->n_steps] = i;
            f->step = ++p->n_steps;
            say(p, f);
            return judge(p, s, o, ef, &p->after[p->n_steps - 1]) < 0 ? -ENOMEM : 1;
        }
    }
    return 0;
}

/* The first step that stops a chain that booted before it, or 0. */
static size_t breaks(const struct kt_plan *p)
{
    const struct kt_plan_state *prev = &p->before;
    for (size_t i = 0; i < p->n_steps; i++) {
        const struct kt_plan_state *s = &p->after[i];
        if ((s->shim_found && s->shim_verdict && !prev->shim_verdict) ||
            (s->loader_found && s->loader_verdict && !prev->loader_verdict) ||
            (s->windows_found && s->windows_verdict && !prev->windows_verdict))
            return i + 1;
        prev = s;
    }
    return 0;
}

/* Every UPDATES path given must have given something: a file an update
 * (or the KEK map), a directory at least one update.  "0 found" from a
 * mistyped path or a failed download would read as "nothing to do". */
static int check_inputs(const struct kt_plan_opts *o, const struct kt_plan *p,
                        struct kt_error *err)
{
    for (size_t i = 0; i < o->n_updates; i++) {
        const char *u = o->updates[i];
        struct stat st;
        if (stat(u, &st) < 0)
            return kt_fail(err, -errno, KT_NO_OFFSET, "%s: cannot open: %s", u, strerror(errno));
        size_t n = strlen(u), found = !strcmp(p->map, u);
        for (size_t j = 0; j < p->n_files && !found; j++)
            found = S_ISDIR(st.st_mode) ? !strncmp(p->files[j].path, u, n)
                                        : !strcmp(p->files[j].path, u);
        if (found)
            continue;
        if (S_ISDIR(st.st_mode))
            return kt_fail(err, -ENOENT, KT_NO_OFFSET,
                           "%s: no signed update (EFI_VARIABLE_AUTHENTICATION_2 file) in it", u);
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "%s: %s", u,
                       st.st_size ? "not a signed update (no EFI_VARIABLE_AUTHENTICATION_2 header)"
                                  : "empty file, not a signed update");
    }
    return 0;
}

int kt_plan_run(const struct kt_plan_opts *o, struct kt_plan *p, struct kt_error *err)
{
    memset(p, 0, sizeof(*p));
    if (o->nv)
        p->nv = *o->nv;
    p->nv_free = p->nv.store_free;
    struct collect c = {p, err, 0};
    int rc = kt_walk(o->updates, o->n_updates, NULL, take, &c);
    if (c.rc < 0 || rc < 0)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    if ((rc = check_inputs(o, p, err)) < 0)
        return rc;
    if (o->kek_map)
        kt_fmt(p->map, sizeof(p->map), "%s", o->kek_map);
    struct walk_state w = {.gen = 0};
    p->order = calloc(p->n_files + 1, sizeof(*p->order));
    p->after = calloc(p->n_files + 1, sizeof(*p->after));
    w.done = calloc(p->n_files + 1, sizeof(*w.done));
    w.failed_gen = calloc(p->n_files + 1, sizeof(*w.failed_gen));
    if (!p->order || !p->after || !w.done || !w.failed_gen || kt_efivars_copy(o->vars, &w.s) < 0) {
        free(w.done);
        free(w.failed_gen);
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    }
    kt_efivars_auth_of(&w.s, &w.auth);
    struct esp_files ef;
    struct kt_json *info = NULL;
    rc = locate_esp(o->esp, &ef);
    if (rc == 0) {
        const char *paths[2] = {ef.path[0], ef.path[1]};
        kt_plan_machine_arch(p, paths, ef.found, 2);
        kt_plan_windows_find(p, o->esp);
        rc = kt_plan_arch_info(p, &info);
        w.dbx_info = info;
        w.all_arches = o->all_arches;
    }
    if (rc == 0)
        rc = judge(p, &w.s, o, &ef, &p->before);
    /* each file's target (the name its signature covers), and whether it
     * verifies now */
    for (size_t i = 0; rc == 0 && i < p->n_files; i++) {
        struct kt_efivars t;
        int tr = trial(&w.s, &w.auth, &p->files[i], &t);
        if (tr == 0)
            kt_efivars_free(&t);
        else if (tr == -ENOMEM)
            rc = tr;
        else
            w.failed_gen[i] = 1;
    }
    while (rc == 0 && (rc = step(p, &w, o, &ef)) == 1)
        rc = 0;
    /* what did not apply: why, against the final state (the reason is
     * already there when it failed under the final authorities) */
    for (size_t i = 0; rc == 0 && i < p->n_files; i++) {
        if (w.done[i])
            continue;
        if (w.failed_gen[i] != w.gen + 1) {
            struct kt_efivars t;
            if (trial(&w.s, &w.auth, &p->files[i], &t) == 0) /* cannot happen after the loop */
                kt_efivars_free(&t);
        }
        say(p, &p->files[i]);
    }
    for (size_t i = 0; i < p->n_files; i++)
        p->n_other_pk += p->files[i].other_pk;
    if (rc == 0)
        rc = kt_plan_kek_story(p, o->vars, &w.s);
    kt_nv_shim_mirrors(&w.s, p->nv_free, p->nv.free_known, &p->shim_nv);
    for (size_t i = 0; i < p->n_files; i++) /* the refusals name the PK, known only now */
        if (p->files[i].no_fit)
            kt_plan_nv_say(p, &p->files[i]);
    p->final = w.s; /* the plan owns it now */
    kt_efivars_auth_free(&w.auth);
    kt_json_free(info);
    free(w.done);
    free(w.failed_gen);
    if (rc < 0)
        return kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    p->breaks_step = breaks(p);
    p->seal_step = kt_plan_seal_step(p);
    kt_plan_end(p);
    return 0;
}

void kt_plan_free(struct kt_plan *p)
{
    free(p->before.seal);
    for (size_t i = 0; p->after && i < p->n_steps; i++)
        free(p->after[i].seal);
    for (size_t i = 0; i < p->n_files; i++)
        kt_efivars_change_free(&p->files[i].change);
    free(p->files);
    free(p->order);
    free(p->after);
    kt_efivars_free(&p->final);
    memset(p, 0, sizeof(*p));
}
