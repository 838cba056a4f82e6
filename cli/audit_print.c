/* audit_print.c - `ktrust audit` as text and as JSON sections. */
#include <stdio.h>
#include <string.h>

#include "audit_print.h"
#include "cli.h"

#define MODULES_LISTED 5

static const char *vname(int verdict)
{
    return kt_verdict_name(kt_verdict_of(verdict));
}

int audit_exit_code(const struct kt_audit *a)
{
    bool any = false;
    for (int i = 0; i < KT_AUDIT__PARTS; i++)
        any |= a->found[i];
    if (!any)
        return EXIT_NOINPUT;
    int worst = 0;
    for (int i = KT_AUDIT_SHIM; i <= KT_AUDIT_KERNEL_LINK; i++) {
        int c = a->links[i].present ? cli_exit_code(a->links[i].link.verdict) : 0;
        if (c > worst)
            worst = c;
    }
    for (size_t i = 0; i < a->n_groups; i++) {
        int c = cli_exit_code(a->groups[i].verdict);
        if (c > worst)
            worst = c;
    }
    return worst;
}

static const char *tristate(int v, const char *on, const char *off)
{
    return v < 0 ? "unknown" : v ? on : off;
}

/* ---- text ------------------------------------------------------------- */

static void text_var(const struct kt_audit_var *v, bool mok_trusted)
{
    if (!v->present) {
        printf("  %-10s not set\n", v->name);
        return;
    }
    printf("  %-10s %zu certificate%s, %zu image hash%s, %zu certificate hash%s", v->name,
           v->n_x509, v->n_x509 == 1 ? "" : "s", v->n_sha256, v->n_sha256 == 1 ? "" : "es",
           v->n_x509_hash, v->n_x509_hash == 1 ? "" : "es");
    if (v->n_other)
        printf(", %zu other", v->n_other);
    if (!strcmp(v->name, "MokListRT") && v->n_x509)
        printf(mok_trusted ? " (MokListTrustedRT: they vouch for modules too)"
                           : " (boot images only: no MokListTrustedRT)");
    printf("\n");
    if (v->error)
        printf("             cannot be read in full: %s\n", v->error_what);
    if (v->n_owners) {
        printf("             owners:");
        for (size_t i = 0; i < v->n_owners; i++) {
            const char *n = kt_audit_owner_name(v->owners[i].guid);
            printf("%s %s%s%s%s (%zu)", i ? "," : "", v->owners[i].guid, n ? " [" : "", n ? n : "",
                   n ? "]" : "", v->owners[i].n);
        }
        printf("\n");
    }
    for (size_t i = 0; i < v->n_certs; i++)
        printf("             - %s\n", v->certs[i]);
}

static void text_link(const struct kt_audit *a, int i, const char *label)
{
    const struct kt_audit_link *L = &a->links[i];
    char hint[768];
    if (!L->present) {
        printf("  %-7s missing (looked for %s)\n", label, L->path);
        return;
    }
    printf("  %-7s %s: %s — %s\n", label, L->path, vname(L->link.verdict), L->link.reason);
    if (L->sbat[0])
        printf("          sbat: %s\n", L->sbat);
    audit_link_hint(a, i, hint, sizeof(hint));
    if (hint[0])
        printf("          what would vouch: %s\n", hint);
}

void audit_print_text(const struct kt_audit *a, const struct kt_audit_opts *o, bool verbose)
{
    printf("ktrust audit of %s\n", o->root ? o->root : "this system (live)");
    printf("parts:\n");
    for (int i = 0; i < KT_AUDIT__PARTS; i++)
        printf("  %-8s %s%s\n", kt_audit_part_name((enum kt_audit_part)i), a->path[i],
               a->found[i] ? "" : ": missing");
    if (!a->found[KT_AUDIT_EFIVARS])
        printf("firmware: no EFI variables (not booted with UEFI, efivarfs not mounted, or "
               "give --efivars DIR)\n");
    else
        printf("firmware: Secure Boot %s, setup mode %s\n",
               tristate(a->secure_boot, "enabled", "disabled"),
               tristate(a->setup_mode, "on (PK not set: anything can be enrolled)", "off"));
    if (a->secure_boot == 0)
        printf("          Secure Boot is off: firmware boots anything; the verdicts below say what "
               "would happen with it on\n");
    if (a->found[KT_AUDIT_EFIVARS]) {
        printf("variables:\n");
        for (int i = 0; i < KT_AUDIT__VARS; i++)
            text_var(&a->vars[i], a->mok_trusted);
    }
    if (a->have_sbat_current || a->have_sbat_next || a->sbat_note[0])
        printf("SbatLevel: in force %s; next boot: %s\n",
               a->have_sbat_current ? (a->sbat_current[0] ? a->sbat_current : "(no stamp)")
                                    : "none",
               a->sbat_note[0] ? a->sbat_note : "unknown (no shim)");
    if (a->have_boot_order) {
        printf("boot entries (BootOrder%s):\n", a->n_boot ? "" : " empty");
        for (size_t i = 0; i < a->n_boot; i++) {
            const struct kt_audit_boot *b = &a->boot[i];
            printf("  Boot%04X%s %s%s%s", b->number, (int)b->number == a->boot_current ? "*" : " ",
                   b->present ? "\"" : "", b->present ? b->description : "", b->present ? "\" " : "");
            if (b->file[0])
                printf("%s", b->file);
            if (!b->active && b->present)
                printf(" (inactive)");
            if (b->checked)
                printf(": %s%s — %s", vname(b->verdict), b->audited ? " (the chain below)" : "",
                       b->reason);
            else if (b->reason[0])
                printf(": %s", b->reason);
            printf("\n");
        }
    }
    printf("chain: firmware (db, dbx)\n");
    text_link(a, KT_AUDIT_SHIM, "shim");
    text_link(a, KT_AUDIT_LOADER, "loader");
    text_link(a, KT_AUDIT_KERNEL_LINK, "kernel");
    if (!a->found[KT_AUDIT_MODULES])
        printf("  modules missing (looked for %s)\n", a->path[KT_AUDIT_MODULES]);
    else
        printf("  modules %zu verified: %zu trusted, %zu would not load\n", a->n_modules,
               a->n_modules_trusted, a->n_modules - a->n_modules_trusted);
    for (size_t i = 0; i < a->n_groups; i++) {
        const struct kt_audit_group *g = &a->groups[i];
        char hint[768];
        printf("    %s (%zu): %s\n", vname(g->verdict), g->n, g->reason);
        audit_group_hint(a, g, hint, sizeof(hint));
        if (hint[0])
            printf("      what would vouch: %s\n", hint);
        size_t shown = verbose || g->n <= MODULES_LISTED + 1 ? g->n : MODULES_LISTED;
        for (size_t j = 0; j < shown; j++)
            printf("      %s\n", g->modules[j]);
        if (shown < g->n)
            printf("      ... and %zu more (-v lists them)\n", g->n - shown);
    }
    if (a->n_outlook) {
        printf("outlook: ");
        if (o->n_dbx)
            printf("%zu dbx update%s (%zu entries)%s", o->n_dbx, o->n_dbx == 1 ? "" : "s",
                   a->n_dbx_entries, a->latest_stamp[0] ? ", " : "");
        if (a->latest_stamp[0])
            printf("SbatLevel latest %s", a->latest_stamp);
        printf("\n");
        for (size_t i = 0; i < a->n_outlook; i++) {
            const struct kt_audit_outlook *O = &a->outlook[i];
            const char *path = a->links[O->link].path;
            if (O->rc < 0)
                printf("  %-10s %s: cannot be checked: %s\n", kt_audit_link_name(O->link), path, O->error);
            else if (O->detail[0])
                printf("  %-10s %s: would be revoked: %s\n", kt_audit_link_name(O->link), path, O->detail);
            else
                printf("  %-10s %s: still boots\n", kt_audit_link_name(O->link), path);
        }
    }
    int code = audit_exit_code(a);
    size_t revoked = 0;
    for (size_t i = 0; i < a->n_outlook; i++)
        revoked += a->outlook[i].detail[0] != 0;
    size_t missing = 0;
    for (int i = 0; i < KT_AUDIT__PARTS; i++)
        missing += !a->found[i];
    if (code == EXIT_NOINPUT)
        printf("summary: nothing to audit: no EFI variables, ESP, kernel or modules found\n");
    else
        printf("summary: %s; %zu part%s missing; %zu module%s would not load; %zu boot file%s "
               "would be revoked by the update%s\n",
               code == 0 ? "every link present is trusted" : kt_verdict_name((enum kt_verdict)code),
               missing, missing == 1 ? "" : "s", a->n_modules - a->n_modules_trusted,
               a->n_modules - a->n_modules_trusted == 1 ? "" : "s", revoked,
               revoked == 1 ? "" : "s", o->n_dbx ? "s" : " (SbatLevel latest)");
}

/* ---- JSON: one object per section ----------------------------------- */

static void jstart(struct jw *w, const char *section)
{
    jw_init(w, stdout);
    jw_obj(w, NULL);
    jw_str(w, "section", section);
}

static void jend(struct jw *w)
{
    jw_obj_end(w);
    jw_newline(w);
}

static void jverdict(struct jw *w, const char *key, int verdict)
{
    if (cli_exit_code(verdict) >= EXIT_USAGE || kt_verdict_of(verdict) == KT_INTERNAL)
        jw_null(w, key);
    else
        jw_str(w, key, vname(verdict));
}

static void jtristate(struct jw *w, const char *key, int v)
{
    if (v < 0)
        jw_null(w, key);
    else
        jw_bool(w, key, v != 0);
}

void audit_print_json(const struct kt_audit *a, const struct kt_audit_opts *o)
{
    struct jw w;
    jstart(&w, "parts");
    jw_str(&w, "root", o->root);
    jw_str(&w, "release", a->release[0] ? a->release : NULL);
    for (int i = 0; i < KT_AUDIT__PARTS; i++) {
        jw_obj(&w, kt_audit_part_name((enum kt_audit_part)i));
        jw_str(&w, "path", a->path[i]);
        jw_bool(&w, "found", a->found[i]);
        jw_obj_end(&w);
    }
    jend(&w);

    jstart(&w, "firmware");
    jw_bool(&w, "efivars", a->found[KT_AUDIT_EFIVARS]);
    jtristate(&w, "secure_boot", a->secure_boot);
    jtristate(&w, "setup_mode", a->setup_mode);
    jw_bool(&w, "mok_trusted", a->mok_trusted);
    jw_arr(&w, "variables");
    for (int i = 0; i < KT_AUDIT__VARS; i++) {
        const struct kt_audit_var *v = &a->vars[i];
        jw_obj(&w, NULL);
        jw_str(&w, "name", v->name);
        jw_bool(&w, "present", v->present);
        jw_int(&w, "x509", (long long)v->n_x509);
        jw_int(&w, "sha256", (long long)v->n_sha256);
        jw_int(&w, "x509_hash", (long long)v->n_x509_hash);
        jw_int(&w, "other", (long long)v->n_other);
        jw_arr(&w, "certificates");
        for (size_t j = 0; j < v->n_certs; j++)
            jw_str(&w, NULL, v->certs[j]);
        jw_arr_end(&w);
        jw_arr(&w, "owners");
        for (size_t j = 0; j < v->n_owners; j++) {
            jw_obj(&w, NULL);
            jw_str(&w, "guid", v->owners[j].guid);
            jw_str(&w, "name", kt_audit_owner_name(v->owners[j].guid));
            jw_int(&w, "entries", (long long)v->owners[j].n);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_str(&w, "error", v->error ? v->error_what : NULL);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jend(&w);

    jstart(&w, "sbat");
    jw_str(&w, "current", a->have_sbat_current && a->sbat_current[0] ? a->sbat_current : NULL);
    jw_str(&w, "next_boot", a->have_sbat_next && a->sbat_next[0] ? a->sbat_next : NULL);
    jw_str(&w, "policy", a->sbat_policy[0] ? a->sbat_policy : NULL);
    jw_str(&w, "note", a->sbat_note[0] ? a->sbat_note : NULL);
    jend(&w);

    jstart(&w, "boot");
    if (a->boot_current >= 0)
        jw_int(&w, "boot_current", a->boot_current);
    else
        jw_null(&w, "boot_current");
    jw_bool(&w, "boot_order", a->have_boot_order);
    jw_arr(&w, "entries");
    for (size_t i = 0; i < a->n_boot; i++) {
        const struct kt_audit_boot *b = &a->boot[i];
        char num[8];
        snprintf(num, sizeof(num), "%04X", b->number & 0xffff);
        jw_obj(&w, NULL);
        jw_str(&w, "number", num);
        jw_bool(&w, "present", b->present);
        jw_str(&w, "description", b->present && !b->malformed ? b->description : NULL);
        jw_bool(&w, "active", b->active);
        jw_str(&w, "file", b->file[0] ? b->file : NULL);
        jw_str(&w, "path", b->on_esp ? b->path : NULL);
        jw_bool(&w, "current", (int)b->number == a->boot_current);
        jw_bool(&w, "audited", b->audited);
        if (b->checked)
            jverdict(&w, "verdict", b->verdict);
        else
            jw_null(&w, "verdict");
        jw_str(&w, "reason", b->reason[0] ? b->reason : NULL);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jend(&w);

    jstart(&w, "chain");
    jw_arr(&w, "links");
    for (int i = KT_AUDIT_SHIM; i <= KT_AUDIT_KERNEL_LINK; i++) {
        const struct kt_audit_link *L = &a->links[i];
        jw_obj(&w, NULL);
        jw_str(&w, "role", kt_audit_link_name(i));
        jw_str(&w, "file", L->path);
        jw_bool(&w, "present", L->present);
        if (L->present) {
            jverdict(&w, "verdict", L->link.verdict);
            jw_str(&w, "error", kt_errno_name(L->link.verdict));
            jw_str(&w, "reason", L->link.reason);
            jw_str(&w, "signer", L->link.signer[0] ? L->link.signer : NULL);
            jw_str(&w, "trusted_by", L->link.trusted_by[0] ? L->link.trusted_by : NULL);
            jw_int(&w, "keys_added", (long long)L->link.keys_added);
        } else {
            jw_null(&w, "verdict");
            jw_null(&w, "error");
            jw_str(&w, "reason", "missing");
            jw_null(&w, "signer");
            jw_null(&w, "trusted_by");
            jw_int(&w, "keys_added", 0);
        }
        jw_str(&w, "sbat", L->sbat[0] ? L->sbat : NULL);
        char hint[768];
        audit_link_hint(a, i, hint, sizeof(hint));
        jw_str(&w, "hint", hint[0] ? hint : NULL);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jend(&w);

    jstart(&w, "modules");
    jw_bool(&w, "present", a->found[KT_AUDIT_MODULES]);
    jw_int(&w, "total", (long long)a->n_modules);
    jw_int(&w, "trusted", (long long)a->n_modules_trusted);
    jw_arr(&w, "not_loading");
    for (size_t i = 0; i < a->n_groups; i++) {
        const struct kt_audit_group *g = &a->groups[i];
        jw_obj(&w, NULL);
        jverdict(&w, "verdict", g->verdict);
        jw_str(&w, "error", kt_errno_name(g->verdict));
        jw_str(&w, "reason", g->reason);
        jw_str(&w, "signer", g->signer[0] ? g->signer : NULL);
        char hint[768];
        audit_group_hint(a, g, hint, sizeof(hint));
        jw_str(&w, "hint", hint[0] ? hint : NULL);
        jw_int(&w, "count", (long long)g->n);
        jw_arr(&w, "modules");
        for (size_t j = 0; j < g->n; j++)
            jw_str(&w, NULL, g->modules[j]);
        jw_arr_end(&w);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jend(&w);

    jstart(&w, "outlook");
    jw_arr(&w, "dbx_files");
    for (size_t i = 0; i < o->n_dbx; i++)
        jw_str(&w, NULL, o->dbx[i]);
    jw_arr_end(&w);
    jw_int(&w, "dbx_entries", (long long)a->n_dbx_entries);
    jw_str(&w, "sbat_latest", a->latest_stamp[0] ? a->latest_stamp : NULL);
    jw_arr(&w, "files");
    size_t revoked = 0;
    for (size_t i = 0; i < a->n_outlook; i++) {
        const struct kt_audit_outlook *O = &a->outlook[i];
        jw_obj(&w, NULL);
        jw_str(&w, "role", kt_audit_link_name(O->link));
        jw_str(&w, "file", a->links[O->link].path);
        jw_bool(&w, "would_be_revoked", O->detail[0] != 0);
        jw_bool(&w, "by_dbx", O->by_dbx);
        jw_bool(&w, "by_sbat", O->by_sbat);
        jw_str(&w, "detail", O->detail[0] ? O->detail : NULL);
        jw_str(&w, "error", O->rc < 0 ? O->error : NULL);
        jw_obj_end(&w);
        revoked += O->detail[0] != 0;
    }
    jw_arr_end(&w);
    jend(&w);

    int code = audit_exit_code(a);
    jstart(&w, "summary");
    if (code == EXIT_NOINPUT)
        jw_null(&w, "verdict");
    else
        jw_str(&w, "verdict", kt_verdict_name((enum kt_verdict)code));
    jw_int(&w, "exit_code", code);
    size_t missing = 0;
    for (int i = 0; i < KT_AUDIT__PARTS; i++)
        missing += !a->found[i];
    jw_int(&w, "parts_missing", (long long)missing);
    jw_int(&w, "modules_not_loading", (long long)(a->n_modules - a->n_modules_trusted));
    jw_int(&w, "would_be_revoked", (long long)revoked);
    jend(&w);
}
