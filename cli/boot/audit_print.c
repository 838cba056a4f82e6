/* audit_print.c - `ktrust audit` as text and as JSON sections. */
#include <stdio.h>
#include <string.h>

#include "apply_print.h"
#include "audit_print.h"
#include "cli.h"
#include "ktrust/imalist.h"
#include "seal_lines.h"
#include "nvram_print.h"
#include "text_escape.h"
#include "util/fmt.h"

#define MODULES_LISTED 5

static const char *vname(int verdict)
{
    return kt_verdict_name(kt_verdict_of(verdict));
}

int audit_exit_code(const struct kt_audit *a)
{
    return cli_exit_code(a->verdict); /* the library's fold; -ENOENT: nothing found */
}

static const char *tristate(int v, const char *on, const char *off)
{
    return v < 0 ? "unknown" : v ? on : off;
}

/* ---- text ------------------------------------------------------------- */

static void text_var(const struct kt_audit_var *v, bool mok_trusted, bool verbose)
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
        printf("             cannot be read in full: %s\n", tx(v->error_what));
    if (v->n_owners && verbose) {
        printf("             owners:");
        for (size_t i = 0; i < v->n_owners; i++) {
            const char *n = kt_audit_owner_name(v->owners[i].guid);
            printf("%s %s%s%s%s (%zu)", i ? "," : "", v->owners[i].guid, n ? " [" : "", n ? n : "",
                   n ? "]" : "", v->owners[i].n);
        }
        printf("\n");
    }
    for (size_t i = 0; i < v->n_certs; i++)
        printf("             - %s\n", tx(v->certs[i]));
}

static void text_link(const struct kt_audit *a, int i, const char *label, bool verbose)
{
    const struct kt_audit_link *L = &a->links[i];
    char hint[768];
    if (!L->present) {
        printf("  %-7s missing (looked for %s)\n", label, tx(L->path));
        return;
    }
    printf("  %-7s %s: %s — %s\n", label, tx(L->path), vname(L->link.verdict), tx(L->link.reason));
    if (L->sbat[0] && (verbose || L->link.verdict)) /* a link that passes: -v */
        printf("          sbat: %s\n", tx(L->sbat));
    audit_link_hint(a, i, hint, sizeof(hint));
    if (hint[0])
        printf("          what would vouch: %s\n", tx(hint));
}

static void text_boot(const struct kt_audit *a)
{
    if (!a->have_boot_order)
        return;
    printf("boot entries (BootOrder%s):\n", a->n_boot ? "" : " empty");
    for (size_t i = 0; i < a->n_boot; i++) {
        const struct kt_audit_boot *b = &a->boot[i];
        printf("  Boot%04X%s %s%s%s", b->number, (int)b->number == a->boot_current ? "*" : " ",
               b->present ? "\"" : "", b->present ? tx(b->description) : "", b->present ? "\" " : "");
        if (b->file[0])
            printf("%s", tx(b->file));
        if (!b->active && b->present)
            printf(" (inactive)");
        if (b->checked)
            printf(": %s%s — %s", vname(b->verdict), b->audited ? " (the chain below)" : "",
                   tx(b->reason));
        else if (b->reason[0])
            printf(": %s", tx(b->reason));
        printf("\n");
    }
}

static void text_modules(const struct kt_audit *a, bool verbose)
{
    if (!a->found[KT_AUDIT_MODULES])
        printf("  modules missing (looked for %s)\n", tx(a->path[KT_AUDIT_MODULES]));
    else
        printf("  modules %zu verified: %zu trusted, %zu would not load\n", a->n_modules,
               a->n_modules_trusted, a->n_modules - a->n_modules_trusted);
    for (size_t i = 0; i < a->n_groups; i++) {
        const struct kt_audit_group *g = &a->groups[i];
        char hint[768];
        printf("    %s (%zu): %s\n", vname(g->verdict), g->n, tx(g->reason));
        audit_group_hint(a, g, hint, sizeof(hint));
        if (hint[0])
            printf("      what would vouch: %s\n", tx(hint));
        size_t shown = verbose || g->n <= MODULES_LISTED + 1 ? g->n : MODULES_LISTED;
        for (size_t j = 0; j < shown; j++)
            printf("      %s\n", tx(g->modules[j]));
        if (shown < g->n)
            printf("      ... and %zu more (-v lists them)\n", g->n - shown);
    }
}

static void text_outlook(const struct kt_audit *a, const struct kt_audit_opts *o)
{
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
            const char *path = tx(a->links[O->link].path);
            if (O->rc < 0)
                printf("  %-10s %s: cannot be checked: %s\n", kt_audit_link_name(O->link), path, tx(O->error));
            else if (O->today)
                printf("  %-10s %s: does not boot today (the chain: %s)%s%s\n",
                       kt_audit_link_name(O->link), path, kt_verdict_name(kt_verdict_of(O->today)),
                       O->detail[0] ? "; the updates would revoke it too: " : "",
                       O->detail[0] ? tx(O->detail) : "");
            else if (O->detail[0])
                printf("  %-10s %s: would be revoked: %s\n", kt_audit_link_name(O->link), path, tx(O->detail));
            else
                printf("  %-10s %s: still boots\n", kt_audit_link_name(O->link), path);
        }
    }
}

/* The measured-boot outlook: PCR 7 at the next boot. */
static void text_measured(const struct kt_audit *a)
{
    const struct kt_audit_pcr7 *m = &a->pcr7;
    if (!m->have_log)
        return;
    printf("measured boot: event log %s\n", tx(m->log_path));
    if (m->altered[0])
        printf("  ALTERED: %s: its data does not match its digest; nothing is concluded from "
               "this log (ktrust eventlog shows every such event)\n", tx(m->altered));
    if (m->changed[0])
        printf("  changed since the last boot: %s (already measured differently at the next "
               "boot)\n", tx(m->changed));
    if (!m->known)
        return;
    if (m->changes)
        printf("  PCR 7 (%s) at the next boot: %s, not %s: secrets sealed to PCR 7 will not "
               "unseal; re-enroll after the update (systemd-cryptenroll --wipe-slot=tpm2 "
               "--tpm2-device=auto --tpm2-pcrs=7) or seal to a signed policy\n",
               m->bank, m->next, m->now);
    else
        printf("  PCR 7 (%s) at the next boot: %s, as at the last boot\n", m->bank, m->now);
}

/* The IMA measurement list, in two lines (ktrust ima-list says the rest). */
static void text_ima(const struct kt_audit *a)
{
    const struct kt_audit_ima *m = &a->ima;
    if (!m->found)
        return;
    if (m->rc < 0) {
        printf("IMA measurement list %s: not read: %s\n", tx(m->path), tx(m->error));
        return;
    }
    printf("IMA measurement list %s: %zu entries", tx(m->path), m->entries);
    if (m->violations)
        printf(" (%zu violation%s)", m->violations, m->violations == 1 ? "" : "s");
    printf("; %zu file%s measured with a signature, %zu without\n", m->signed_files,
           m->signed_files == 1 ? "" : "s", m->unsigned_files);
    if (m->altered)
        printf("  ALTERED: %zu entr%s whose data does not hash to its digest\n", m->altered,
               m->altered == 1 ? "y" : "ies");
    printf("  PCR 10 %s%s%s; boot_aggregate %s\n",
           m->pcr10 < 0 ? "not checked (no TPM PCR values)" : m->pcr10 ? "DIFFERS from the TPM's ("
                                                                      : "matches the TPM's (",
           m->pcr10 < 0 ? "" : m->banks, m->pcr10 < 0 ? "" : ")",
           m->boot_aggregate == KT_IMA_BA_MATCH      ? "matches PCRs 0-9"
           : m->boot_aggregate == KT_IMA_BA_MISMATCH ? "DIFFERS from PCRs 0-9"
           : m->boot_aggregate == KT_IMA_BA_NO_TPM   ? "zeros (no TPM)"
           : m->boot_aggregate == KT_IMA_BA_NO_VALUES ? "not checked"
                                                     : "absent");
}

/* The sealed secrets: those that fail today first (the next boot asks for
 * the recovery key whatever changes), then the next boot's verdict. */
static void text_sealed(const struct kt_audit *a)
{
    const struct kt_seal_found *f = &a->sealed;
    if (!f->n)
        return;
    printf("sealed secrets: %zu TPM2 token%s of /etc/crypttab's volumes", f->n, f->n == 1 ? "" : "s");
    if (!a->sealed_check) {
        printf(": not checked (no event log to replay)\n");
        return;
    }
    printf(" (today: the event log's replay; next boot: %s)\n",
           a->n_applied ? "after the updates applied" : "the variables and ESP in force");
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < f->n; i++)
            if ((a->sealed_check[i].today == KT_SEAL_FAILS) == (pass == 0))
                cli_seal_text_one(f, a->sealed_check, i, "  ");
    cli_seal_reseal(f, a->sealed_check, "  ");
}

/* The verdict in one sentence: the first line of the report and its last. */
static void summary_line(const struct kt_audit *a, const struct kt_audit_opts *o, char *buf,
                         size_t cap)
{
    int code = audit_exit_code(a);
    size_t revoked = 0;
    for (size_t i = 0; i < a->n_outlook; i++)
        revoked += a->outlook[i].detail[0] != 0;
    size_t missing = 0;
    for (int i = 0; i < KT_AUDIT__PARTS; i++)
        missing += !a->found[i] && a->path[i][0]; /* offline: a part not given is not missing */
    if (a->unanswered[0] && (a->found[KT_AUDIT_EFIVARS] || a->found[KT_AUDIT_ESP]))
        snprintf(buf, cap, "cannot answer: %s", tx(a->unanswered));
    else if (code == EXIT_NOINPUT)
        snprintf(buf, cap, "nothing to audit: no EFI variables, ESP, kernel or modules found");
    else
        snprintf(buf, cap, "%s; %zu part%s missing; %zu module%s would not load; %zu boot file%s "
                 "would be revoked by the update%s",
                 code == 0 ? "every link present is trusted" : kt_verdict_name((enum kt_verdict)code),
                 missing, missing == 1 ? "" : "s", a->n_modules - a->n_modules_trusted,
                 a->n_modules - a->n_modules_trusted == 1 ? "" : "s", revoked,
                 revoked == 1 ? "" : "s", o->n_dbx ? "s" : " (SbatLevel latest)");
}

/* NVRAM: the limits, the variables' sizes (and the room left under the
 * per-variable limit), each --apply write's fit, shim's mirrors. */
static void text_nvram(const struct kt_audit *a)
{
    const struct kt_audit_nvram *n = &a->nvram;
    if (!n->checked)
        return;
    cli_nv_summary_text(&n->lim, n->free_after, &n->shim,
                        a->n_applied ? "after the updates applied" : NULL);
    printf(" ");
    for (int i = 0; i < 6; i++) {
        const struct kt_nv_fit *f = &n->fit[i];
        if (!f->after)
            continue;
        char size[32];
        printf(" %s %s", kt_efivar_name(f->var), kt_thousands(f->after, size));
        if (n->lim.max_var)
            printf(" (%s)", f->after > n->lim.max_var ? "OVER the limit" : "fits");
    }
    printf(" bytes\n");
    for (int i = 0; i < 6; i++)
        if (n->changed[i])
            cli_nv_fit_text(&n->fit[i], &n->lim,
                            n->fit[i].free_after + n->fit[i].after - n->fit[i].before);
}

/* Dual boot: the Windows boot manager today and once DBXUpdate2024 puts
 * Microsoft Windows Production PCA 2011 in dbx, and the order to follow. */
/* One bank's .pcrsig line; sealed: the sealed keys with a signed policy
 * in that bank. */
static void pcrsig_line(const char *bank, const struct kt_uki_pcrsig *r, size_t sealed)
{
    char keys[64] = "";
    if (sealed)
        snprintf(keys, sizeof(keys), " (%zu sealed key%s use%s this bank)", sealed,
                 sealed == 1 ? "" : "s", sealed == 1 ? "s" : "");
    if (r->status == KT_PCRSIG_VALID) {
        char ph[96] = "", fp[65];
        for (size_t p = 0, n = 0; p < KT_UKI_PHASES; p++)
            if (r->signed_phase[p])
                n += (size_t)snprintf(ph + n, sizeof(ph) - n, "%s%s", n ? ", " : "",
                                      kt_uki_phase_name(p));
        printf("          PCR 11 policy (.pcrsig %s): signed for %s by .pcrpkey %s%s\n", bank, ph,
               kt_hex(r->pkfp, sizeof(r->pkfp), fp), keys);
    } else {
        printf("          PCR 11 policy (.pcrsig %s): %s%s%s%s: a disk sealed to a signed PCR 11 "
               "policy%s does not unseal with this UKI%s\n", bank,
               kt_pcrsig_status_name(r->status), r->why[0] ? " (" : "", r->why[0] ? tx(r->why) : "",
               r->why[0] ? ")" : "", strcmp(bank, "sha256") ? " in this bank" : "", keys);
    }
}

/* The UKI systemd-boot boots next: its signed PCR 11 policy in each bank
 * (sha256 always, as systemd-cryptenroll's default) and add-ons. */
static void text_sdboot_uki(const struct kt_audit *a)
{
    const struct kt_uki_pcrsig_banks *pb = &a->sdboot.pcrsig_banks;
    size_t sealed256 = 0;
    for (size_t k = 0; k < pb->n; k++)
        if (!strcmp(pb->bank[k], "sha256"))
            sealed256 = a->sdboot.pcrsig_sealed[k];
    for (size_t k = 0; a->sdboot.have_pcrsig && k < pb->n; k++) /* sha1 */
        if (!strcmp(pb->bank[k], "sha1"))
            pcrsig_line(pb->bank[k], &pb->r[k], a->sdboot.pcrsig_sealed[k]);
    if (a->sdboot.have_pcrsig)
        pcrsig_line("sha256", &a->sdboot.pcrsig, sealed256);
    for (size_t k = 0; a->sdboot.have_pcrsig && k < pb->n; k++) /* sha384, sha512 */
        if (strcmp(pb->bank[k], "sha1") && strcmp(pb->bank[k], "sha256"))
            pcrsig_line(pb->bank[k], &pb->r[k], a->sdboot.pcrsig_sealed[k]);
    if (a->sdboot.n_addons)
        printf("          add-ons: %zu, %zu refused%s%s%s; %s\n", a->sdboot.n_addons,
               a->sdboot.n_addons_refused, a->sdboot.addons_forbidden[0] ? " (forbidden sections: " : "",
               tx(a->sdboot.addons_forbidden), a->sdboot.addons_forbidden[0] ? ")" : "",
               a->sdboot.addons_loaded ? "its stub loads them"
                                       : "its stub (systemd 252) ignores them: they take effect from 254 on");
}

static void text_windows(const struct kt_audit *a)
{
    const struct kt_audit_windows *w = &a->windows;
    if (!w->found)
        return;
    printf("Windows boot manager %s: %s: %s\n", tx(w->path),
           kt_verdict_name(kt_verdict_of(w->verdict[KT_WINDOWS_TODAY])),
           tx(w->reason[KT_WINDOWS_TODAY]));
    printf("  with Microsoft Windows Production PCA 2011 in dbx (DBXUpdate2024): %s%s%s\n",
           kt_verdict_name(kt_verdict_of(w->verdict[KT_WINDOWS_PCA_2011_IN_DBX])),
           w->verdict[KT_WINDOWS_PCA_2011_IN_DBX] ? ": " : "",
           w->verdict[KT_WINDOWS_PCA_2011_IN_DBX] ? tx(w->reason[KT_WINDOWS_PCA_2011_IN_DBX]) : "");
    if (w->needs_2023_first)
        printf("  %s once so that it installs its 2023-signed boot manager; then DBXUpdate2024\n",
               w->db_windows_2023 ? "db holds Windows UEFI CA 2023: boot Windows"
                                  : "apply DBUpdate2024 first, and boot Windows");
}

void audit_print_text(const struct kt_audit *a, const struct kt_audit_opts *o, bool verbose)
{
    printf("ktrust audit of %s\n", o->root      ? tx(o->root)
                                  : a->offline ? "the parts given (offline: nothing of this host)"
                                               : "this system (live)");
    char line[1024];
    summary_line(a, o, line, sizeof(line));
    printf("verdict: %s", line); /* first, and again as the last line */
    if (a->rollover.checked)
        printf("; rollover %s", audit_rollover_state_word(a->rollover.state));
    printf("%s\n", verbose ? "" : " (-v: every detail)");
    printf("parts:\n");
    for (int i = 0; i < KT_AUDIT__PARTS; i++)
        printf("  %-8s %s%s\n", kt_audit_part_name((enum kt_audit_part)i), tx(a->path[i]),
               a->found[i] ? "" : a->path[i][0] ? ": missing" : "not given");
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
    for (size_t i = 0; i < a->n_applied; i++)
        cli_apply_text(o->apply[i], &a->applied[i]);
    if (a->found[KT_AUDIT_EFIVARS]) {
        printf("variables%s:\n", a->n_applied ? " (after the updates applied)" : "");
        for (int i = 0; i < KT_AUDIT__VARS; i++)
            text_var(&a->vars[i], a->mok_trusted, verbose);
    }
    if (a->have_sbat_current || a->have_sbat_next || a->sbat_note[0])
        printf("SbatLevel: in force %s; next boot: %s\n",
               a->have_sbat_current ? (a->sbat_current[0] ? tx(a->sbat_current) : "(no stamp)")
                                    : "none",
               a->sbat_note[0] ? tx(a->sbat_note) : "unknown (no shim)");
    text_boot(a);
    printf("chain: firmware (db, dbx)\n");
    if (a->sdboot.no_shim)
        printf("  shim    none: firmware starts systemd-boot, and db and dbx judge what it loads\n");
    else
        text_link(a, KT_AUDIT_SHIM, "shim", verbose);
    text_link(a, KT_AUDIT_LOADER, "loader", verbose);
    if (a->sdboot.found)
        printf("          systemd-boot boots next: %s (%s, rule: %s); %zu entr%s, %zu problem%s "
               "(ktrust uki entries %s)\n",
               a->sdboot.entry[0] ? tx(a->sdboot.entry) : "nothing",
               a->sdboot.kind ? a->sdboot.kind : "-", a->sdboot.rule ? a->sdboot.rule : "none",
               a->sdboot.n_entries, a->sdboot.n_entries == 1 ? "y" : "ies", a->sdboot.n_problems,
               a->sdboot.n_problems == 1 ? "" : "s", tx(a->path[KT_AUDIT_ESP]));
    text_sdboot_uki(a);
    text_link(a, KT_AUDIT_KERNEL_LINK, "kernel", verbose);
    text_windows(a);
    text_modules(a, verbose);
    text_outlook(a, o);
    text_measured(a);
    text_nvram(a);
    text_sealed(a);
    text_ima(a);
    audit_print_rollover(a, verbose);
    printf("summary: %s\n", line);
}
