/* audit_json.c - `ktrust audit --json`: one object per section (parts,
 * firmware, sbat, boot, chain, modules, outlook, summary). */
#include <stdio.h>
#include <string.h>

#include "apply_print.h"
#include "audit_print.h"
#include "cli.h"
#include "json_summary.h"
#include "seal_lines.h"
#include "uki_print.h"
#include "nvram_print.h"

static void jstart(struct jw *w, const char *section)
{
    jw_init(w, stdout);
    jw_obj(w, NULL);
    jw_str(w, "type", "audit");
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
        jw_str(w, key, kt_verdict_name(kt_verdict_of(verdict)));
}

static void jtristate(struct jw *w, const char *key, int v)
{
    if (v < 0)
        jw_null(w, key);
    else
        jw_bool(w, key, v != 0);
}

static void json_parts(struct jw *w, const struct kt_audit *a, const struct kt_audit_opts *o)
{
    jstart(w, "parts");
    jw_str(w, "root", o->root);
    jw_str(w, "release", a->release[0] ? a->release : NULL);
    for (int i = 0; i < KT_AUDIT__PARTS; i++) {
        jw_obj(w, kt_audit_part_name((enum kt_audit_part)i));
        jw_str(w, "path", a->path[i]);
        jw_bool(w, "found", a->found[i]);
        jw_obj_end(w);
    }
    jend(w);
}

static void json_firmware(struct jw *w, const struct kt_audit *a)
{
    jstart(w, "firmware");
    jw_bool(w, "efivars", a->found[KT_AUDIT_EFIVARS]);
    jtristate(w, "secure_boot", a->secure_boot);
    jtristate(w, "setup_mode", a->setup_mode);
    jw_bool(w, "mok_trusted", a->mok_trusted);
    jw_arr(w, "variables");
    for (int i = 0; i < KT_AUDIT__VARS; i++) {
        const struct kt_audit_var *v = &a->vars[i];
        jw_obj(w, NULL);
        jw_str(w, "name", v->name);
        jw_bool(w, "present", v->present);
        jw_int(w, "x509", (long long)v->n_x509);
        jw_int(w, "sha256", (long long)v->n_sha256);
        jw_int(w, "x509_hash", (long long)v->n_x509_hash);
        jw_int(w, "other", (long long)v->n_other);
        jw_arr(w, "certificates");
        for (size_t j = 0; j < v->n_certs; j++)
            jw_str(w, NULL, v->certs[j]);
        jw_arr_end(w);
        jw_arr(w, "owners");
        for (size_t j = 0; j < v->n_owners; j++) {
            jw_obj(w, NULL);
            jw_str(w, "guid", v->owners[j].guid);
            jw_str(w, "name", kt_audit_owner_name(v->owners[j].guid));
            jw_int(w, "entries", (long long)v->owners[j].n);
            jw_obj_end(w);
        }
        jw_arr_end(w);
        jw_str(w, "error", v->error ? v->error_what : NULL);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jend(w);
}

static void json_sbat(struct jw *w, const struct kt_audit *a)
{
    jstart(w, "sbat");
    jw_str(w, "current", a->have_sbat_current && a->sbat_current[0] ? a->sbat_current : NULL);
    jw_str(w, "next_boot", a->have_sbat_next && a->sbat_next[0] ? a->sbat_next : NULL);
    jw_str(w, "policy", a->sbat_policy[0] ? a->sbat_policy : NULL);
    jw_str(w, "note", a->sbat_note[0] ? a->sbat_note : NULL);
    jend(w);
}

static void json_boot(struct jw *w, const struct kt_audit *a)
{
    jstart(w, "boot");
    if (a->boot_current >= 0)
        jw_int(w, "boot_current", a->boot_current);
    else
        jw_null(w, "boot_current");
    jw_bool(w, "boot_order", a->have_boot_order);
    jw_arr(w, "entries");
    for (size_t i = 0; i < a->n_boot; i++) {
        const struct kt_audit_boot *b = &a->boot[i];
        char num[8];
        snprintf(num, sizeof(num), "%04X", b->number & 0xffff);
        jw_obj(w, NULL);
        jw_str(w, "number", num);
        jw_bool(w, "present", b->present);
        jw_str(w, "description", b->present && !b->malformed ? b->description : NULL);
        jw_bool(w, "active", b->active);
        jw_str(w, "file", b->file[0] ? b->file : NULL);
        jw_str(w, "path", b->on_esp ? b->path : NULL);
        jw_bool(w, "current", (int)b->number == a->boot_current);
        jw_bool(w, "audited", b->audited);
        if (b->checked)
            jverdict(w, "verdict", b->verdict);
        else
            jw_null(w, "verdict");
        jw_str(w, "reason", b->reason[0] ? b->reason : NULL);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jend(w);
}

/* .pcrsig in every bank it holds or a sealed key uses: null when the next
 * UKI's .pcrsig was not looked at. */
static void json_pcrsig_banks(struct jw *w, const struct kt_audit *a)
{
    const struct kt_uki_pcrsig_banks *pb = &a->sdboot.pcrsig_banks;
    if (!a->sdboot.have_pcrsig) {
        jw_null(w, "pcrsig_banks");
        return;
    }
    jw_arr(w, "pcrsig_banks");
    for (size_t k = 0; k < pb->n; k++) {
        jw_obj(w, NULL);
        uki_json_pcrsig_fields(w, &pb->r[k], pb->bank[k]);
        jw_bool(w, "present", pb->present[k]);
        jw_int(w, "sealed_keys", (long long)a->sdboot.pcrsig_sealed[k]);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static void json_chain(struct jw *w, const struct kt_audit *a)
{
    jstart(w, "chain");
    jw_arr(w, "links");
    for (int i = KT_AUDIT_SHIM; i <= KT_AUDIT_KERNEL_LINK; i++) {
        const struct kt_audit_link *L = &a->links[i];
        jw_obj(w, NULL);
        jw_str(w, "role", kt_audit_link_name(i));
        jw_str(w, "file", L->path);
        jw_bool(w, "present", L->present);
        if (L->present) {
            jverdict(w, "verdict", L->link.verdict);
            jw_str(w, "error", kt_errno_name(L->link.verdict));
            jw_str(w, "reason", L->link.reason);
            jw_str(w, "signer", L->link.signer[0] ? L->link.signer : NULL);
            jw_str(w, "trusted_by", L->link.trusted_by[0] ? L->link.trusted_by : NULL);
            jw_int(w, "keys_added", (long long)L->link.keys_added);
        } else {
            jw_null(w, "verdict");
            jw_null(w, "error");
            jw_str(w, "reason", "missing");
            jw_null(w, "signer");
            jw_null(w, "trusted_by");
            jw_int(w, "keys_added", 0);
        }
        jw_str(w, "sbat", L->sbat[0] ? L->sbat : NULL);
        char hint[768];
        audit_link_hint(a, i, hint, sizeof(hint));
        jw_str(w, "hint", hint[0] ? hint : NULL);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    if (a->sdboot.found) {
        jw_obj(w, "sdboot");
        jw_bool(w, "no_shim", a->sdboot.no_shim);
        jw_str(w, "next", a->sdboot.entry[0] ? a->sdboot.entry : NULL);
        jw_str(w, "kind", a->sdboot.kind);
        jw_str(w, "rule", a->sdboot.rule);
        jw_int(w, "entries", (long long)a->sdboot.n_entries);
        jw_int(w, "problems", (long long)a->sdboot.n_problems);
        if (a->sdboot.have_pcrsig)
            uki_json_pcrsig(w, &a->sdboot.pcrsig, "sha256");
        else
            jw_null(w, "pcrsig");
        json_pcrsig_banks(w, a);
        jw_obj(w, "addons");
        jw_int(w, "count", (long long)a->sdboot.n_addons);
        jw_int(w, "refused", (long long)a->sdboot.n_addons_refused);
        jw_arr(w, "forbidden_sections");
        char bad[sizeof(a->sdboot.addons_forbidden)];
        snprintf(bad, sizeof(bad), "%s", a->sdboot.addons_forbidden);
        for (char *t = strtok(bad, " "); t; t = strtok(NULL, " "))
            jw_str(w, NULL, t);
        jw_arr_end(w);
        jw_bool(w, "loaded", a->sdboot.addons_loaded);
        jw_obj_end(w);
        jw_obj_end(w);
    }
    jend(w);
}

static void json_modules(struct jw *w, const struct kt_audit *a)
{
    jstart(w, "modules");
    jw_bool(w, "present", a->found[KT_AUDIT_MODULES]);
    jw_int(w, "total", (long long)a->n_modules);
    jw_int(w, "trusted", (long long)a->n_modules_trusted);
    jw_arr(w, "not_loading");
    for (size_t i = 0; i < a->n_groups; i++) {
        const struct kt_audit_group *g = &a->groups[i];
        jw_obj(w, NULL);
        jverdict(w, "verdict", g->verdict);
        jw_str(w, "error", kt_errno_name(g->verdict));
        jw_str(w, "reason", g->reason);
        jw_str(w, "signer", g->signer[0] ? g->signer : NULL);
        char hint[768];
        audit_group_hint(a, g, hint, sizeof(hint));
        jw_str(w, "hint", hint[0] ? hint : NULL);
        jw_int(w, "count", (long long)g->n);
        jw_arr(w, "modules");
        for (size_t j = 0; j < g->n; j++)
            jw_str(w, NULL, g->modules[j]);
        jw_arr_end(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jend(w);
}

static size_t json_outlook(struct jw *w, const struct kt_audit *a, const struct kt_audit_opts *o)
{
    jstart(w, "outlook");
    jw_arr(w, "dbx_files");
    for (size_t i = 0; i < o->n_dbx; i++)
        jw_str(w, NULL, o->dbx[i]);
    jw_arr_end(w);
    jw_int(w, "dbx_entries", (long long)a->n_dbx_entries);
    jw_str(w, "sbat_latest", a->latest_stamp[0] ? a->latest_stamp : NULL);
    jw_arr(w, "files");
    size_t revoked = 0;
    for (size_t i = 0; i < a->n_outlook; i++) {
        const struct kt_audit_outlook *O = &a->outlook[i];
        jw_obj(w, NULL);
        jw_str(w, "role", kt_audit_link_name(O->link));
        jw_str(w, "file", a->links[O->link].path);
        jw_bool(w, "boots_today", O->today == 0);
        jw_bool(w, "would_be_revoked", O->detail[0] != 0);
        jw_bool(w, "by_dbx", O->by_dbx);
        jw_bool(w, "by_sbat", O->by_sbat);
        jw_str(w, "detail", O->detail[0] ? O->detail : NULL);
        jw_str(w, "error", O->rc < 0 ? O->error : NULL);
        jw_obj_end(w);
        revoked += O->detail[0] != 0;
    }
    jw_arr_end(w);
    jend(w);
    return revoked;
}

static void json_measured(struct jw *w, const struct kt_audit *a)
{
    const struct kt_audit_pcr7 *m = &a->pcr7;
    jstart(w, "measured_boot");
    jw_str(w, "eventlog", m->have_log ? m->log_path : NULL);
    jw_str(w, "altered", m->altered[0] ? m->altered : NULL);
    jw_str(w, "changed_since_last_boot", m->changed);
    if (m->known) {
        jw_obj(w, "pcr7");
        jw_str(w, "bank", m->bank);
        jw_str(w, "last_boot", m->now);
        jw_str(w, "next_boot", m->next);
        jw_bool(w, "changes", m->changes);
        jw_obj_end(w);
    } else {
        jw_null(w, "pcr7");
    }
    jend(w);
}

/* The IMA measurement list section (only when the system has one). */
static void json_ima(struct jw *w, const struct kt_audit *a)
{
    static const char *const ba[] = {"match", "mismatch", "no_tpm", "unchecked", "absent"};
    const struct kt_audit_ima *m = &a->ima;
    jstart(w, "ima");
    jw_str(w, "file", m->path);
    jw_str(w, "error", m->rc < 0 ? m->error : NULL);
    jw_int(w, "entries", (long long)m->entries);
    jw_int(w, "violations", (long long)m->violations);
    jw_int(w, "signed", (long long)m->signed_files);
    jw_int(w, "unsigned", (long long)m->unsigned_files);
    jw_int(w, "digests_mismatching", (long long)m->altered);
    if (m->pcr10 < 0)
        jw_null(w, "pcr10_match");
    else
        jw_bool(w, "pcr10_match", m->pcr10 == 0);
    jw_str(w, "boot_aggregate", (unsigned)m->boot_aggregate < 5 ? ba[m->boot_aggregate] : NULL);
    jend(w);
}

/* The sealed secrets section (only when the system has TPM2 tokens). */
static void json_sealed(struct jw *w, const struct kt_audit *a)
{
    jstart(w, "sealed_secrets");
    jw_str(w, "pcrs_today", a->sealed_check ? "the event log's replay" : NULL);
    cli_seal_json(w, "tokens", &a->sealed, a->sealed_check);
    jend(w);
}

static void json_nvram(struct jw *w, const struct kt_audit *a)
{
    const struct kt_audit_nvram *n = &a->nvram;
    jstart(w, "nvram");
    cli_nv_summary_json(w, "limits", &n->lim, n->free_after, &n->shim);
    jw_arr(w, "variables");
    for (int i = 0; i < 6; i++) {
        if (!n->fit[i].after && !n->changed[i])
            continue;
        jw_obj(w, NULL);
        jw_bool(w, "changed", n->changed[i]);
        cli_nv_fit_json(w, "fit", &n->fit[i]);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_int(w, "refused", (long long)n->n_refused);
    jend(w);
}

static void json_windows(struct jw *w, const struct kt_audit *a)
{
    const struct kt_audit_windows *win = &a->windows;
    static const char *const states[KT_WINDOWS__STATES] = {"today", "pca_2011_in_dbx"};
    jstart(w, "windows_boot_manager");
    jw_str(w, "file", win->path);
    for (int i = 0; i < KT_WINDOWS__STATES; i++) {
        jw_obj(w, states[i]);
        jverdict(w, "verdict", win->verdict[i]);
        jw_str(w, "reason", win->reason[i]);
        jw_obj_end(w);
    }
    jw_bool(w, "needs_2023_boot_manager_first", win->needs_2023_first);
    jw_bool(w, "db_windows_uefi_ca_2023", win->db_windows_2023);
    jend(w);
}

int audit_exit_code_ready(const struct kt_audit *a, bool require_ready)
{
    int code = audit_exit_code(a);
    if (require_ready && a->rollover.state != KT_ROLLOVER_READY && code < EXIT_NOT_READY)
        code = EXIT_NOT_READY;
    return code;
}

/* The summary object (json_summary.h), plus "rollover": the readiness a
 * fleet filters on (audit_json_readiness).  Schema 1 dropped the older
 * section ("summary"), exit_code (= exit), parts_missing and
 * modules_not_loading (= counts) beside it. */
static void json_summary(struct jw *w, const struct kt_audit *a, size_t revoked, bool require_ready)
{
    int code = audit_exit_code_ready(a, require_ready);
    size_t missing = 0;
    for (int i = 0; i < KT_AUDIT__PARTS; i++)
        missing += !a->found[i] && a->path[i][0]; /* offline: a part not given is not missing */
    size_t not_loading = a->n_modules - a->n_modules_trusted;
    struct cli_count c[] = {{"parts_missing", missing},
                            {"modules_not_loading", not_loading},
                            {"would_be_revoked", revoked}};
    struct cli_summary s = {
        .verdict = code == EXIT_NOINPUT ? NULL : kt_verdict_name((enum kt_verdict)code),
        .exit = code, .counts = c, .n_counts = 3};
    if (code == EXIT_NOT_READY)
        s.verdict = kt_verdict_name(kt_verdict_of(a->verdict));
    if (code == EXIT_NOINPUT)
        s.error = a->unanswered[0] && (a->found[KT_AUDIT_EFIVARS] || a->found[KT_AUDIT_ESP])
                      ? a->unanswered /* as the text's last line says it */
                      : "nothing to audit: no EFI variables, ESP, kernel or modules found";
    cli_json_summary_begin(w, stdout, &s);
    audit_json_readiness(w, a);
    jend(w);
}

void audit_print_json(const struct kt_audit *a, const struct kt_audit_opts *o, bool require_ready)
{
    struct jw w;
    json_parts(&w, a, o);
    for (size_t i = 0; i < a->n_applied; i++) {
        jw_init(&w, stdout);
        cli_apply_json(&w, o->apply[i], &a->applied[i]);
        jw_newline(&w);
    }
    json_firmware(&w, a);
    json_sbat(&w, a);
    json_boot(&w, a);
    json_chain(&w, a);
    json_modules(&w, a);
    size_t revoked = json_outlook(&w, a, o);
    if (a->rollover.checked)
        audit_json_rollover(a);
    if (a->pcr7.have_log)
        json_measured(&w, a);
    if (a->sealed.n)
        json_sealed(&w, a);
    if (a->nvram.checked)
        json_nvram(&w, a);
    if (a->windows.found)
        json_windows(&w, a);
    if (a->ima.found)
        json_ima(&w, a);
    json_summary(&w, a, revoked, require_ready);
}
