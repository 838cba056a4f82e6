/* chain_run.c - kt_chain_run: the one boot engine.  The variables in force
 * (and extra db/dbx/MOK files) go into a kt_chain, then each link runs in
 * boot order: shim (db), the loader and the kernel (shim's vendor
 * certificate and MOK), SBAT as shim applies it, then the modules (the
 * kernel's builtin keys).  `chain`, `audit` and whatever asks "what if the
 * variables were different" call it with their own state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain/chain.h"
#include "chain/chain_sbat.h"
#include "esl/esl.h"
#include "util/file.h"
#include "util/fmt.h"

typedef int (*add_fn)(struct kt_chain *, const uint8_t *, size_t, const char *,
                      struct kt_error *);
typedef int (*link_fn)(struct kt_chain *, const uint8_t *, size_t, const char *,
                       struct kt_chain_link *);

static int fail_on(struct kt_chain_report *r, const char *file, int rc, const struct kt_error *e,
                   struct kt_error *err)
{
    r->error_file = file;
    if (err)
        *err = *e;
    return rc;
}

static int no_entry(void *ctx, const struct kt_esl_entry *e)
{
    (void)ctx;
    (void)e;
    return 0;
}

/* The chain's variables from the state: db, dbx, MokListRT (MOK) and
 * MokListXRT (shim's MOK deny list: a blacklist), in that order.  strict:
 * the first one that cannot be read or added is the error; otherwise a
 * variable whose signature lists do not parse is left out and recorded. */
static int feed_vars(struct kt_chain *ch, const struct kt_chain_opts *o,
                     struct kt_chain_report *r, struct kt_error *err)
{
    static const struct {
        enum kt_efivar_id id;
        add_fn add;
    } feeds[] = {{KT_EFIVAR_DB, kt_chain_add_db},
                 {KT_EFIVAR_DBX, kt_chain_add_dbx},
                 {KT_EFIVAR_MOKLIST, kt_chain_add_mok},
                 {KT_EFIVAR_MOKLISTX, kt_chain_add_mokx}};
    for (size_t i = 0; i < sizeof(feeds) / sizeof(feeds[0]); i++) {
        const struct kt_efivar *v = &o->vars->var[feeds[i].id];
        struct kt_error e = KT_ERROR_INIT;
        int rc = 0;
        if (v->state == KT_EFIVAR_ABSENT)
            continue;
        if (v->state == KT_EFIVAR_UNREADABLE) {
            e = v->error;
            rc = e.code ? e.code : -EIO;
        } else if (!o->strict_vars && kt_esl_foreach(v->raw, v->raw_len, no_entry, NULL, &e) < 0) {
            continue; /* the caller reports the lists it cannot read */
        } else if (v->raw_len > 4) { /* an attribute word alone: an empty variable */
            rc = feeds[i].add(ch, v->raw, v->raw_len, v->path, &e);
        }
        if (rc == -ENOMEM || (rc < 0 && o->strict_vars))
            return fail_on(r, v->path, rc, &e, err);
        if (rc < 0) {
            r->var_error[feeds[i].id] = e;
            continue;
        }
        r->vars_loaded++;
    }
    return 0;
}

static int feed_files(struct kt_chain *ch, const char *const *paths, size_t n, add_fn add,
                      struct kt_chain_report *r, struct kt_error *err)
{
    for (size_t i = 0; i < n; i++) {
        struct kt_file f;
        struct kt_error e = KT_ERROR_INIT;
        int rc = kt_file_open(paths[i], &f, &e);
        if (rc == 0) {
            rc = add(ch, f.data, f.len, paths[i], &e);
            kt_file_close(&f);
        }
        if (rc < 0)
            return fail_on(r, paths[i], rc, &e, err);
    }
    return 0;
}

/* The SbatLevel before boot and the one shim leaves. */
struct levels {
    struct kt_sbat_level current, applied;
};

/* The SbatLevel before boot and SbatPolicy, from the options or the state. */
static int sbat_inputs(const struct kt_chain_opts *o, struct kt_chain_report *r,
                       struct levels *run, enum kt_sbat_policy *policy, struct kt_error *err)
{
    *policy = o->sbat_policy;
    kt_chain_sbat_state(o->vars, policy, &r->secure, r->sbat_policy, sizeof(r->sbat_policy));
    if (!o->vars)
        goto given;
    if (!o->sbat_level) {
        const struct kt_efivar *which = NULL;
        struct kt_error e = KT_ERROR_INIT;
        int rc = kt_efivars_sbat_level(o->vars, &run->current, &which, &e);
        if (rc < 0 && o->strict_vars)
            return fail_on(r, which->path, rc, &e, err);
        if (rc < 0)
            kt_fmt(r->sbat_note, sizeof(r->sbat_note), "%s: %s", which->path, e.what);
        r->have_sbat_current = rc > 0;
    }
given:
    if (o->sbat_level) {
        int rc = kt_sbat_level_parse(o->sbat_level->text, o->sbat_level->text_len,
                                     &run->current, err);
        if (rc < 0)
            return rc;
        memcpy(run->current.source, o->sbat_level->source, sizeof(run->current.source));
        r->have_sbat_current = true;
    }
    return 0;
}

/* A link whose file cannot be read: that is its verdict. */
static void unreadable(struct kt_chain_link *l, enum kt_chain_role role, const char *path, int rc,
                       const struct kt_error *e)
{
    memset(l, 0, sizeof(*l));
    l->role = role;
    l->file = path;
    l->verdict = rc;
    snprintf(l->reason, sizeof(l->reason), "%s", e->what);
}

/* Run one link on a file opened by the caller (rc its open's result: an
 * unreadable file is the link's verdict). */
static void run_open(struct kt_chain *ch, link_fn fn, const char *path, const struct kt_file *f,
                     int rc, const struct kt_error *e, struct kt_chain_link *l,
                     enum kt_chain_role role)
{
    if (rc < 0) {
        unreadable(l, role, path, rc, e);
        return;
    }
    fn(ch, f->data, f->len, path, l);
}

/* Run one link on a file; an unreadable file is the link's verdict. */
static void run_link(struct kt_chain *ch, link_fn fn, const char *path, struct kt_chain_link *l,
                     enum kt_chain_role role)
{
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(path, &f, &e);
    run_open(ch, fn, path, &f, rc, &e, l, role);
    if (rc == 0)
        kt_file_close(&f);
}

/* The boot links' files, each opened once per run: the link, then SBAT. */
struct boot_files {
    struct kt_file f[KT_CHAIN__BOOT];
    int rc[KT_CHAIN__BOOT];
    struct kt_error e[KT_CHAIN__BOOT];
};

static void never_loaded(struct kt_chain_link *l, const char *why)
{
    l->verdict = -EKEYREJECTED;
    snprintf(l->reason, sizeof(l->reason), "never loaded: %s", why);
}

/* SBAT as shim applies it: the level it leaves in SbatLevel, its
 * self-check, the loader's .sbat (required) and the kernel's (not
 * required).  Returns what stops the boot below, or NULL. */
static const char *apply_sbat(const struct kt_chain_opts *o, struct kt_chain_report *r,
                              struct levels *run, enum kt_sbat_policy policy,
                              const struct boot_files *bf)
{
    const struct kt_file f = bf->f[KT_CHAIN_AT_SHIM];
    struct kt_error *e = &r->sbat_error;
    int rc = bf->rc[KT_CHAIN_AT_SHIM];
    if (rc < 0)
        *e = bf->e[KT_CHAIN_AT_SHIM];
    if (rc == 0)
        rc = kt_chain_sbat_level(f.data, f.len, r->have_sbat_current ? &run->current : NULL,
                                 policy, r->secure, &run->applied, r->sbat_note,
                                 sizeof(r->sbat_note), e);
    if (rc < 0) {
        r->sbat_rc = rc;
        snprintf(r->sbat_note, sizeof(r->sbat_note), "SbatLevel unknown: %s", e->what);
        return NULL;
    }
    r->have_sbat_applied = true;
    if (rc == 1 && r->secure) {
        /* shim.c efi_main: set_sbat_uefi_variable failed in secure mode -> die */
        const char *why = "shim stopped: its new SbatLevel would revoke shim itself";
        struct kt_chain_link *S = &r->link[KT_CHAIN_AT_SHIM];
        if (S->verdict == 0) {
            S->verdict = -EKEYREJECTED;
            kt_fmt(S->reason, sizeof(S->reason), "%s (its SbatLevel cannot be set, so it stops)",
                r->sbat_note);
        }
        kt_fmt(r->sbat[KT_CHAIN_AT_SHIM], sizeof(r->sbat[0]), "%s", r->sbat_note);
        for (int i = KT_CHAIN_AT_LOADER; i <= KT_CHAIN_AT_KERNEL; i++)
            if (r->present[i])
                never_loaded(&r->link[i], why);
        return why;
    }
    rc = kt_chain_sbat_link(f.data, f.len, &run->applied, true, &r->link[KT_CHAIN_AT_SHIM],
                            r->sbat[KT_CHAIN_AT_SHIM], sizeof(r->sbat[0]));
    if (rc < 0) {
        const char *why = "shim failed its SBAT self-check and powered the machine off";
        for (int i = KT_CHAIN_AT_LOADER; i <= KT_CHAIN_AT_KERNEL; i++)
            if (r->present[i])
                never_loaded(&r->link[i], why);
        return why;
    }
    const char *paths[] = {NULL, o->loader, o->kernel};
    int loader_rc = 0;
    for (int i = KT_CHAIN_AT_LOADER; i <= KT_CHAIN_AT_KERNEL; i++) {
        const struct kt_file *g = &bf->f[i];
        if (!paths[i] || bf->rc[i] < 0)
            continue; /* the link already says why */
        /* shim loads the loader itself: .sbat required; the kernel is
         * verified through shim's protocol: not required */
        rc = kt_chain_sbat_link(g->data, g->len, &run->applied, i == KT_CHAIN_AT_LOADER,
                                &r->link[i], r->sbat[i], sizeof(r->sbat[i]));
        if (i == KT_CHAIN_AT_LOADER)
            loader_rc = rc;
    }
    if (loader_rc < 0) {
        if (r->present[KT_CHAIN_AT_KERNEL])
            never_loaded(&r->link[KT_CHAIN_AT_KERNEL], "shim refused the loader (SBAT)");
        return "shim refused the loader (SBAT)";
    }
    return NULL;
}

static void worst_of(struct kt_chain_report *r, int verdict)
{
    int v = (int)kt_verdict_of(verdict);
    if (v > r->worst)
        r->worst = v;
}

static int run_modules(struct kt_chain *ch, const struct kt_chain_opts *o,
                       struct kt_chain_report *r, const char *stopped)
{
    for (size_t i = 0; i < o->n_modules; i++) {
        if (o->progress)
            o->progress(o->ctx, i, o->n_modules);
        struct kt_chain_link l;
        run_link(ch, kt_chain_module, o->modules[i], &l, KT_LINK_MODULE);
        if (stopped)
            never_loaded(&l, stopped);
        r->n_modules++;
        r->n_modules_trusted += l.verdict == 0;
        worst_of(r, l.verdict);
        int rc = o->on_module ? o->on_module(o->ctx, i, &l) : 0;
        if (rc < 0)
            return rc;
    }
    if (o->progress && o->modules)
        o->progress(o->ctx, o->n_modules, o->n_modules);
    return 0;
}

int kt_chain_run(const struct kt_chain_opts *o, struct kt_chain_report *r, struct kt_error *err)
{
    memset(r, 0, sizeof(*r));
    enum kt_sbat_policy policy = KT_SBAT_POLICY_DEFAULT;
    struct levels run = {0};
    struct kt_chain *ch;
    int rc = kt_chain_new(&ch);
    if (rc < 0)
        return kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    /* shim 16.x creates MokListTrustedRT unless MokListTrusted says no:
     * with no variables to say, AUTO assumes it */
    r->mok_assumed = o->mok_trust == KT_MOK_TRUST_AUTO && !o->vars;
    r->mok_trusted = o->mok_trust == KT_MOK_TRUST_YES || r->mok_assumed;
    if (o->vars) {
        rc = feed_vars(ch, o, r, err);
        /* the kernel checks only that MokListTrustedRT exists (uefi_check_trust_mok_keys) */
        r->mok_trusted |= o->vars->var[KT_EFIVAR_MOKLIST_TRUSTED].state != KT_EFIVAR_ABSENT;
        /* shim mirrors MokDBState as MokIgnoreDB; the kernel checks that it exists */
        r->ignore_db = o->vars->var[KT_EFIVAR_MOK_IGNORE_DB].state != KT_EFIVAR_ABSENT;
    }
    if (rc == 0 && o->sbat)
        rc = sbat_inputs(o, r, &run, &policy, err);
    kt_chain_set_mok_trusted(ch, r->mok_trusted);
    kt_chain_set_ignore_db(ch, r->ignore_db);
    kt_chain_set_saved_modules(ch, o->saved_modules);
    kt_chain_set_firmware_only(ch, o->firmware_only && !o->shim);
    kt_chain_set_kernel_cache(ch, o->kernel_cache);
    if (rc == 0)
        rc = feed_files(ch, o->db, o->n_db, kt_chain_add_db, r, err);
    if (rc == 0)
        rc = feed_files(ch, o->dbx, o->n_dbx, kt_chain_add_dbx, r, err);
    if (rc == 0)
        rc = feed_files(ch, o->mok, o->n_mok, kt_chain_add_mok, r, err);
    if (rc < 0) {
        kt_chain_free(ch);
        kt_sbat_level_free(&run.current);
        return rc;
    }
    static const link_fn fns[] = {kt_chain_shim, kt_chain_loader, kt_chain_kernel};
    static const enum kt_chain_role roles[] = {KT_LINK_SHIM, KT_LINK_LOADER, KT_LINK_KERNEL};
    const char *paths[] = {o->shim, o->loader, o->kernel};
    struct boot_files bf;
    memset(&bf, 0, sizeof(bf));
    for (int i = 0; i < KT_CHAIN__BOOT; i++) {
        r->present[i] = paths[i] != NULL;
        bf.rc[i] = -ENOENT;
        if (!paths[i])
            continue;
        bf.e[i] = (struct kt_error)KT_ERROR_INIT;
        bf.rc[i] = kt_file_open(paths[i], &bf.f[i], &bf.e[i]);
        run_open(ch, fns[i], paths[i], &bf.f[i], bf.rc[i], &bf.e[i], &r->link[i], roles[i]);
    }
    const char *stopped = NULL;
    r->sbat_on = o->sbat && !(o->firmware_only && !o->shim); /* no shim, no SBAT */
    if (o->sbat && o->shim)
        stopped = apply_sbat(o, r, &run, policy, &bf);
    for (int i = 0; i < KT_CHAIN__BOOT; i++)
        if (bf.rc[i] == 0)
            kt_file_close(&bf.f[i]);
    snprintf(r->sbat_current, sizeof(r->sbat_current), "%s", run.current.stamp);
    snprintf(r->sbat_applied, sizeof(r->sbat_applied), "%s", run.applied.stamp);
    kt_sbat_level_free(&run.current);
    kt_sbat_level_free(&run.applied);
    for (int i = 0; i < KT_CHAIN__BOOT; i++)
        if (r->present[i])
            worst_of(r, r->link[i].verdict);
    rc = run_modules(ch, o, r, stopped);
    kt_chain_free(ch);
    if (rc < 0)
        return kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    return 0;
}

void kt_chain_report_free(struct kt_chain_report *r)
{
    memset(r, 0, sizeof(*r)); /* nothing owned today; kept for what a report may own */
}

int kt_chain_firmware_buf(const struct kt_efivars *vars, const uint8_t *buf, size_t len,
                          const char *name, struct kt_chain_link *l)
{
    struct kt_chain *ch;
    int rc = kt_chain_new(&ch);
    if (rc < 0)
        return rc;
    kt_chain_add_firmware(ch, vars);
    kt_chain_shim(ch, buf, len, name, l); /* a shim's keys go nowhere here */
    kt_chain_free(ch);
    return l->verdict;
}

int kt_chain_firmware(const struct kt_efivars *vars, const char *path, struct kt_chain_link *l)
{
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(path, &f, &e);
    if (rc < 0) {
        unreadable(l, KT_LINK_SHIM, path, rc, &e);
        return rc;
    }
    rc = kt_chain_firmware_buf(vars, f.data, f.len, path, l);
    kt_file_close(&f);
    return rc;
}
