/* audit_snap.c - a system read once for an audit: the variables (and the
 * signed updates applied to them), the bytes of the boot files located on
 * the ESP and the kernel image, the TCG event log parsed.  The sections
 * (variables, boot entries, outlook, rollover, measured boot) are functions
 * over it; only the boot engine (kt_chain_run) reads the links again, by
 * path, once per state. */
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "ktrust/boot.h"
#include "util/file.h"

/* The variables in force: opts.vars, else efivars as located. */
static int read_vars(struct kt_audit *a, const struct kt_audit_opts *o, struct kt_audit_snap *s)
{
    if (o->vars) {
        a->found[KT_AUDIT_EFIVARS] = true;
        kt_fmt(a->path[KT_AUDIT_EFIVARS], sizeof(a->path[0]), "%s",
               o->vars->dir[0] ? o->vars->dir : "(given)");
        return kt_efivars_copy(o->vars, &s->vars);
    }
    if (!a->found[KT_AUDIT_EFIVARS])
        return 0;
    struct kt_error ve = KT_ERROR_INIT;
    int rc = kt_efivars_read(a->path[KT_AUDIT_EFIVARS], &s->vars, &ve);
    if (rc < 0 && rc != -ENOMEM) { /* located, then gone: as not found */
        a->found[KT_AUDIT_EFIVARS] = false;
        rc = 0;
    }
    return rc;
}

/* opts.apply in order (a->applied); the variables as read kept in s->was
 * for the event log's "changed since the last boot". */
static int apply(struct kt_audit *a, const struct kt_audit_opts *o, struct kt_audit_snap *s)
{
    if (o->n_apply && a->found[KT_AUDIT_EFIVARS]) {
        if (kt_efivars_copy(&s->vars, &s->was) < 0)
            return -ENOMEM;
        s->have_was = true;
    }
    kt_audit_nvram_limits(a, o);
    uint64_t room = a->nvram.lim.store_free;
    for (size_t i = 0; i < o->n_apply && i < KT_AUDIT_MAX_APPLY; i++) {
        struct kt_efivars_change *c = &a->applied[a->n_applied++];
        if (a->found[KT_AUDIT_EFIVARS]) {
            int rc = kt_audit_apply_one(a, &s->vars, o->apply[i], c, &room);
            if (rc == -ENOMEM)
                return rc;
        } else {
            memset(c, 0, sizeof(*c));
            c->target = KT_EFIVAR__COUNT;
            c->verdict = kt_fail(&c->error, -ENOENT, KT_NO_OFFSET,
                                 "no EFI variables to apply it to");
        }
    }
    return 0;
}

/* The TCG event log under the root (or the live one), parsed once. */
static int read_log(const struct kt_audit_opts *o, struct kt_audit_snap *s)
{
    if (o->eventlog)
        kt_fmt(s->log_path, sizeof(s->log_path), "%s", o->eventlog);
    else if (!o->root && (o->efivars || o->esp)) /* offline: not the host's */
        return s->log_rc = -ENOENT, 0;
    else
        kt_sys_path_under(o->root, KT_SYS_EVENTLOG, s->log_path, sizeof(s->log_path));
    struct kt_error e = KT_ERROR_INIT;
    s->log_rc = kt_file_open(s->log_path, &s->log_file, &e);
    if (s->log_rc == 0)
        s->log_rc = kt_evlog_parse(s->log_file.data, s->log_file.len, &s->log, &e);
    if (s->log_rc < 0)
        kt_fmt(s->log_error, sizeof(s->log_error), "%s", e.what);
    return s->log_rc == -ENOMEM ? -ENOMEM : 0;
}

int kt_audit_snap_read(struct kt_audit *a, const struct kt_audit_opts *o,
                       struct kt_audit_snap *s)
{
    memset(s, 0, sizeof(*s));
    int rc = read_vars(a, o, s);
    if (rc == 0)
        rc = apply(a, o, s);
    for (int i = 0; rc == 0 && i < KT_AUDIT__LINKS; i++) {
        s->file_rc[i] = -ENOENT;
        if (a->links[i].present)
            s->file_rc[i] = kt_file_open(a->links[i].path, &s->file[i], &s->file_error[i]);
        if (s->file_rc[i] == -ENOMEM)
            rc = -ENOMEM;
    }
    if (rc == 0) /* before systemd-boot's: the banks its signed policies use */
        rc = kt_audit_sealed_find(a, o);
    if (rc == 0)
        rc = kt_audit_sdboot(a, s);
    if (rc == 0)
        rc = read_log(o, s);
    return rc;
}

void kt_audit_snap_free(struct kt_audit_snap *s)
{
    for (int i = 0; i < KT_AUDIT__LINKS; i++)
        if (s->file_rc[i] == 0)
            kt_file_close(&s->file[i]);
    kt_evlog_free(&s->log); /* also after a failed parse */
    kt_file_close(&s->log_file);
    kt_efivars_free(&s->was);
    kt_efivars_free(&s->vars);
    memset(s, 0, sizeof(*s));
}
