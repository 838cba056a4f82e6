/* audit_rollover.c - the 2023 certificate rollover section of an audit:
 * which of Microsoft's 2011 and 2023 CAs KEK, db and dbx hold, the platform
 * key (PKfail), the boot binaries today and after UEFI CA 2011 leaves db,
 * the findings (each with what to do) and the verdict: ready, at risk, not
 * ready. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "audit/rollover.h"
#include "boot/ms_cas.h"
#include "boot/pk.h"
#include "esl/esl.h"

const char *kt_rollover_state_name(enum kt_rollover_state s)
{
    switch (s) {
    case KT_ROLLOVER_READY: return "ready";
    case KT_ROLLOVER_AT_RISK: return "at_risk";
    case KT_ROLLOVER_NOT_READY: return "not_ready";
    default: return "unknown";
    }
}

const char *kt_rollover_finding_name(enum kt_rollover_finding_id id)
{
    static const char *const names[] = {"no_uefi_ca_2023", "no_kek_2023", "shim_2011_only",
                                        "shim_dbx_2011", "option_roms", "no_windows_ca_2023",
                                        "pkfail", "no_microsoft_kek"};
    return (unsigned)id <= KT_RF_NO_MS_KEK ? names[id] : "?";
}

const char *kt_rollover_state_label(int state)
{
    static const char *const names[] = {"today", "uefi_ca_2011_removed", "uefi_ca_2011_in_dbx"};
    return state >= 0 && state < KT_ROLLOVER__STATES ? names[state] : "?";
}

struct held_ctx {
    struct kt_rollover *ro;
    enum kt_efivar_id id;
};

static struct kt_rollover_ca *slot(struct kt_rollover *ro, const struct kt_ms_ca *ca)
{
    for (size_t i = 0; i < ro->n_cas; i++)
        if (ro->cas[i].ca == ca)
            return &ro->cas[i];
    return NULL;
}

static int note_held(void *ctx, const struct kt_esl_entry *e)
{
    struct held_ctx *h = ctx;
    const struct kt_ms_ca *ca = NULL;
    if (e->type == KT_ESL_X509) {
        struct kt_x509 *c = NULL;
        struct kt_error err = KT_ERROR_INIT;
        int rc = kt_x509_parse(e->data.p, e->data.len, &c, &err);
        if (rc == 0)
            ca = kt_ms_ca_find(c);
        kt_x509_free(c);
        if (rc == -ENOMEM)
            return rc;
    } else if (e->type == KT_ESL_X509_SHA256 && h->id == KT_EFIVAR_DBX) {
        ca = kt_ms_ca_find_tbs(e->data.p);
    }
    struct kt_rollover_ca *s = ca ? slot(h->ro, ca) : NULL;
    if (s) {
        s->in_kek |= h->id == KT_EFIVAR_KEK;
        s->in_db |= h->id == KT_EFIVAR_DB;
        s->in_dbx |= h->id == KT_EFIVAR_DBX;
    }
    return 0;
}

static int scan_held(struct kt_rollover *ro, const struct kt_efivars *vars)
{
    size_t n;
    const struct kt_ms_ca *t = kt_ms_cas(&n);
    for (size_t i = 0; i < n && i < KT_ROLLOVER_MAX_CAS; i++)
        ro->cas[ro->n_cas++].ca = &t[i];
    static const enum kt_efivar_id ids[] = {KT_EFIVAR_KEK, KT_EFIVAR_DB, KT_EFIVAR_DBX};
    for (size_t i = 0; i < 3; i++) {
        const struct kt_efivar *v = &vars->var[ids[i]];
        struct held_ctx h = {ro, ids[i]};
        struct kt_error e = KT_ERROR_INIT;
        if (v->state == KT_EFIVAR_PRESENT &&
            kt_esl_foreach(v->raw, v->raw_len, note_held, &h, &e) == -ENOMEM)
            return -ENOMEM;
    }
    return 0;
}

/* Held (and not revoked) in KEK or db. */
static bool in_kek(struct kt_rollover *ro, enum kt_ms_ca_role role, int year)
{
    const struct kt_rollover_ca *s = slot(ro, kt_ms_ca_get(role, year));
    return s && s->in_kek;
}

static bool in_db(struct kt_rollover *ro, enum kt_ms_ca_role role, int year)
{
    const struct kt_rollover_ca *s = slot(ro, kt_ms_ca_get(role, year));
    return s && s->in_db && !s->in_dbx;
}

static struct kt_rollover_finding *add(struct kt_rollover *ro, enum kt_rollover_finding_id id,
                                       enum kt_rollover_state sev)
{
    if (ro->n_findings == KT_ROLLOVER_MAX_FINDINGS)
        return NULL;
    struct kt_rollover_finding *f = &ro->findings[ro->n_findings++];
    f->id = id;
    f->severity = sev;
    return f;
}

/* "apply FILE (signed under KEK CA 2011, which this KEK holds)", or the
 * other ways in when this KEK holds no Microsoft KEK. */
static void db_update_todo(struct kt_rollover *ro, char *out, size_t cap, const char *file,
                           const char *ca)
{
    if (in_kek(ro, KT_MS_CA_KEK, 2011))
        kt_fmt(out, cap, "apply %s (signed under Microsoft Corporation KEK CA 2011, which this KEK "
               "holds)", file);
    else if (in_kek(ro, KT_MS_CA_KEK, 2023))
        kt_fmt(out, cap, "apply the %s signed under Microsoft Corporation KEK 2K CA 2023, which "
               "this KEK holds", file);
    else
        kt_fmt(out, cap, "this KEK holds no Microsoft KEK, so Microsoft's %s does not apply: "
               "enroll %s in db with a key this KEK holds, or from the firmware's setup", file, ca);
}

static void kek_todo(struct kt_rollover *ro, char *out, size_t cap)
{
    if (!ro->have_pk)
        kt_fmt(out, cap, "there is no PK (setup mode): enroll a PK, then Microsoft Corporation "
               "KEK 2K CA 2023 in KEK");
    else if (ro->kek_map == 1)
        kt_fmt(out, cap, "apply %s: kek_update_map.json names it for this PK (SHA-1 %s); it "
               "applies only if it verifies under this PK", ro->kek_update, ro->pk_sha1);
    else if (ro->kek_map == 0)
        kt_fmt(out, cap, "no KEK update exists for this PK (SHA-1 %s is not in "
               "kek_update_map.json): ask the vendor, or enroll your own keys", ro->pk_sha1);
    else
        kt_fmt(out, cap, "the KEK update must be signed by this PK (SHA-1 %s): Microsoft's "
               "kek_update_map.json names the file for it, if the vendor published one",
               ro->pk_sha1);
}

/* Does dbx revoke one of the shim's signatures by Microsoft Corporation
 * UEFI CA 2011 today?  *dual: it also carries a 2023 one. */
static bool shim_2011_revoked(const struct kt_rollover_image *S, bool *dual)
{
    const struct kt_ms_ca *ca11 = kt_ms_ca_get(KT_MS_CA_3P, 2011);
    const struct kt_ms_ca *ca23 = kt_ms_ca_get(KT_MS_CA_3P, 2023);
    bool revoked = false;
    *dual = false;
    for (size_t i = 0; i < S->n_sigs; i++) {
        revoked |= S->sigs[i].ca == ca11 && S->sigs[i].verdict[KT_ROLLOVER_TODAY] == -EKEYREJECTED;
        *dual |= S->sigs[i].ca == ca23;
    }
    return revoked;
}

/* A shim already dead: dbx holds UEFI CA 2011 and the shim carries a
 * signature by it (EDK2's DxeImageVerificationHandler refuses an image any
 * of whose signatures dbx revokes).  The chain says rejected; the rollover
 * starts from the same verdict, and the advice is what would boot: a shim
 * signed by the 2023 CA only, once db holds that CA. */
static void dead_shim_finding(struct kt_rollover *ro)
{
    const struct kt_rollover_image *S = &ro->images[0];
    bool dual;
    struct kt_rollover_finding *f;
    if (!S->present || S->rc < 0 || S->verdict[KT_ROLLOVER_TODAY] == 0 ||
        !shim_2011_revoked(S, &dual) || !(f = add(ro, KT_RF_SHIM_DBX_2011, KT_ROLLOVER_NOT_READY)))
        return;
    kt_fmt(f->what, sizeof(f->what), "shim does not boot today: dbx holds Microsoft Corporation "
           "UEFI CA 2011 and shim carries a signature by it (firmware refuses an image any of "
           "whose signatures chains to a dbx certificate)%s", dual ? "; its Microsoft UEFI CA "
           "2023 signature cannot save it" : "");
    if (in_db(ro, KT_MS_CA_3P, 2023))
        kt_fmt(f->todo, sizeof(f->todo), "install a shim signed by Microsoft UEFI CA 2023 only "
               "(db holds that CA): no db update revives this shim while UEFI CA 2011 is in dbx");
    else
        kt_fmt(f->todo, sizeof(f->todo), "get Microsoft UEFI CA 2023 into db (DBUpdate3P2023.bin), "
               "then install a shim signed by Microsoft UEFI CA 2023 only: the db update alone "
               "does not revive this shim, whose 2011 signature dbx revokes");
}

static void images_findings(struct kt_rollover *ro)
{
    const struct kt_rollover_image *S = &ro->images[0];
    if (!S->present || S->rc < 0 || S->verdict[KT_ROLLOVER_TODAY] != 0)
        return;
    struct kt_rollover_finding *f;
    bool db23 = in_db(ro, KT_MS_CA_3P, 2023);
    if (S->verdict[KT_ROLLOVER_NO_2011] != 0 && (f = add(ro, KT_RF_SHIM_2011_ONLY, KT_ROLLOVER_AT_RISK))) {
        kt_fmt(f->what, sizeof(f->what), "shim boots only by its Microsoft Corporation UEFI CA "
               "2011 signature: once that CA leaves db (or enters dbx) it stops booting");
        if (db23)
            kt_fmt(f->todo, sizeof(f->todo), "install a shim signed by Microsoft UEFI CA 2023 "
                   "(shim 16.1 and later are signed by both) before UEFI CA 2011 is removed");
        else
            kt_fmt(f->todo, sizeof(f->todo), "first get Microsoft UEFI CA 2023 into db (see "
                   "above), then install a shim signed by it");
    } else if (S->verdict[KT_ROLLOVER_2011_IN_DBX] != 0 &&
               (f = add(ro, KT_RF_SHIM_DBX_2011, KT_ROLLOVER_READY))) {
        kt_fmt(f->what, sizeof(f->what), "shim boots by its 2023 signature, but it also carries "
               "a 2011 one: firmware refuses an image any of whose signatures chains to a dbx "
               "certificate, so it stops if Microsoft Corporation UEFI CA 2011 enters dbx");
        kt_fmt(f->todo, sizeof(f->todo), "before UEFI CA 2011 goes into dbx, install a shim "
               "signed by Microsoft UEFI CA 2023 only");
    }
}

static void judge(struct kt_rollover *ro)
{
    struct kt_rollover_finding *f;
    bool kek11 = in_kek(ro, KT_MS_CA_KEK, 2011), kek23 = in_kek(ro, KT_MS_CA_KEK, 2023);
    dead_shim_finding(ro);
    if (ro->pkfail && (f = add(ro, KT_RF_PKFAIL, KT_ROLLOVER_AT_RISK))) {
        kt_fmt(f->what, sizeof(f->what), "the PK (%s) is a test or leaked platform key (PKfail): "
               "%s; its private key is public, so anyone can sign KEK and db updates this "
               "firmware accepts", ro->pk, ro->pkfail_why);
        kt_fmt(f->todo, sizeof(f->todo), "replace the PK: install the vendor's firmware update "
               "that does, or enroll your own keys (a KEK update signed by this PK proves nothing)");
    }
    if (!in_db(ro, KT_MS_CA_3P, 2023) && (f = add(ro, KT_RF_NO_3P_2023, KT_ROLLOVER_NOT_READY))) {
        kt_fmt(f->what, sizeof(f->what), "db lacks Microsoft UEFI CA 2023, which signs shim from "
               "2026 on: a shim signed only by it does not boot here");
        db_update_todo(ro, f->todo, sizeof(f->todo), "DBUpdate3P2023.bin", "Microsoft UEFI CA 2023");
    }
    if (!kek23 && (f = add(ro, KT_RF_NO_KEK_2023, KT_ROLLOVER_AT_RISK))) {
        const struct kt_ms_ca *k11 = kt_ms_ca_get(KT_MS_CA_KEK, 2011);
        kt_fmt(f->what, sizeof(f->what), "KEK lacks Microsoft Corporation KEK 2K CA 2023: db and "
               "dbx updates signed under it will not apply (KEK CA 2011 %s %s)",
               kt_ms_ca_expiry_verb(k11, (long long)time(NULL)), k11->not_after);
        kek_todo(ro, f->todo, sizeof(f->todo));
    }
    if (!kek11 && !kek23 && (f = add(ro, KT_RF_NO_MS_KEK, KT_ROLLOVER_READY))) {
        kt_fmt(f->what, sizeof(f->what), "KEK holds no Microsoft KEK: none of Microsoft's db and "
               "dbx updates applies here");
        kt_fmt(f->todo, sizeof(f->todo), "the owner of this KEK signs the db changes (or enroll "
               "Microsoft's KEK 2K CA 2023 with the PK)");
    }
    images_findings(ro);
    if (in_db(ro, KT_MS_CA_3P, 2011) && !in_db(ro, KT_MS_CA_OROM, 2023) &&
        (f = add(ro, KT_RF_OROM, KT_ROLLOVER_READY))) {
        char seen[700] = "";
        if (ro->uefi_2011_authorized == 1 && ro->uefi_2011_driver)
            kt_fmt(seen, sizeof(seen), "; the event log shows it authorized a driver or option "
                   "ROM at the last boot (%s): this machine depends on it", ro->uefi_2011_image);
        else if (ro->uefi_2011_authorized == 1)
            kt_fmt(seen, sizeof(seen), "; the event log shows no driver or option ROM it "
                   "authorized at the last boot (its first image was %s)", ro->uefi_2011_image);
        else if (ro->uefi_2011_authorized == 0)
            kt_fmt(seen, sizeof(seen), "; the event log shows it authorized nothing at the last "
                   "boot");
        else if (ro->eventlog)
            kt_fmt(seen, sizeof(seen), "; the event log at %s could not be read", ro->eventlog_path);
        kt_fmt(f->what, sizeof(f->what), "db holds Microsoft Corporation UEFI CA 2011, which also "
               "signs option ROMs (graphics, network, storage firmware), and not Microsoft Option "
               "ROM UEFI CA 2023: removing or revoking UEFI CA 2011 stops the option ROMs it "
               "signed (the machine may lose its display)%s", seen);
        db_update_todo(ro, f->todo, sizeof(f->todo), "DBUpdateOROM2023.bin",
                       "Microsoft Option ROM UEFI CA 2023");
    }
    if (in_db(ro, KT_MS_CA_WINDOWS, 2011) && !in_db(ro, KT_MS_CA_WINDOWS, 2023) &&
        (f = add(ro, KT_RF_WINDOWS_2023, KT_ROLLOVER_READY))) {
        kt_fmt(f->what, sizeof(f->what), "db lacks Windows UEFI CA 2023: Windows boot managers "
               "signed by it do not boot here (dual boot)");
        db_update_todo(ro, f->todo, sizeof(f->todo), "DBUpdate2024.bin", "Windows UEFI CA 2023");
        size_t n = strlen(f->todo);
        kt_fmt(f->todo + n, sizeof(f->todo) - n, ", before DBXUpdate2024.bin revokes Windows "
               "Production PCA 2011");
    }
}

static void verdict(struct kt_rollover *ro)
{
    static const char *const shortly[] = {
        "db lacks Microsoft UEFI CA 2023", "KEK lacks Microsoft Corporation KEK 2K CA 2023",
        "shim boots only by its 2011 signature",
        "shim does not boot today: dbx revokes its UEFI CA 2011 signature", "", "",
        "the PK is a known test key (PKfail)",
        ""};
    ro->state = KT_ROLLOVER_READY;
    for (size_t i = 0; i < ro->n_findings; i++)
        if (ro->findings[i].severity > ro->state)
            ro->state = ro->findings[i].severity;
    if (ro->state == KT_ROLLOVER_READY) {
        kt_fmt(ro->why, sizeof(ro->why), "db holds Microsoft UEFI CA 2023 and KEK holds "
               "Microsoft Corporation KEK 2K CA 2023%s", ro->images[0].present &&
               ro->images[0].verdict[KT_ROLLOVER_NO_2011] == 0 ? "; shim boots without UEFI CA 2011" : "");
        return;
    }
    for (size_t i = 0; i < ro->n_findings; i++) {
        const struct kt_rollover_finding *f = &ro->findings[i];
        if (f->severity < KT_ROLLOVER_AT_RISK || !shortly[f->id][0])
            continue;
        size_t n = strlen(ro->why);
        kt_fmt(ro->why + n, sizeof(ro->why) - n, "%s%s", n ? "; " : "", shortly[f->id]);
    }
}

/* The PK's facts (src/boot/pk.c) into the section. */
static int rollover_pk(struct kt_rollover *ro, const struct kt_efivars *vars, const char *kek_map,
                       struct kt_error *err)
{
    const struct kt_efivar *v = &vars->var[KT_EFIVAR_PK];
    struct kt_pk_facts f;
    int rc = kt_pk_facts(v->state == KT_EFIVAR_PRESENT ? v->raw : NULL, v->raw_len, kek_map, &f, err);
    ro->have_pk = f.have_pk;
    memcpy(ro->pk, f.pk, sizeof(ro->pk));
    memcpy(ro->pk_sha1, f.pk_sha1, sizeof(ro->pk_sha1));
    ro->pkfail = f.pkfail;
    memcpy(ro->pkfail_why, f.pkfail_why, sizeof(ro->pkfail_why));
    ro->kek_map = f.kek_map;
    memcpy(ro->kek_update, f.kek_update, sizeof(ro->kek_update));
    return rc;
}

int kt_audit_rollover(struct kt_audit *a, const struct kt_audit_opts *o,
                      const struct kt_audit_snap *s, struct kt_error *err)
{
    const struct kt_efivars *vars = &s->vars;
    struct kt_rollover *ro = &a->rollover;
    memset(ro, 0, sizeof(*ro));
    ro->state = KT_ROLLOVER_UNKNOWN;
    ro->kek_map = -1;
    if (!a->found[KT_AUDIT_EFIVARS]) {
        kt_fmt(ro->why, sizeof(ro->why), "no EFI variables");
        return 0;
    }
    ro->checked = true;
    /* the firmware's TCG event log, where each option ROM's authority is
     * recorded (EV_EFI_VARIABLE_AUTHORITY in PCR 7: the db entry, owner GUID
     * + certificate): read by rollover_eventlog.c for the option_roms
     * finding. */
    kt_fmt(ro->eventlog_path, sizeof(ro->eventlog_path), "%s", s->log_path);
    /* there and readable (it may still not parse) */
    ro->eventlog = s->log_rc != -ENOENT && s->log_rc != -ENOTDIR && s->log_rc != -EACCES &&
                   s->log_rc != -EPERM;
    int rc = kt_rollover_eventlog(ro, s);
    if (rc == 0)
        rc = scan_held(ro, vars);
    if (rc == 0) {
        rc = rollover_pk(ro, vars, o->kek_map, err);
        if (rc < 0 && rc != -ENOMEM)
            a->error_file = o->kek_map;
    }
    if (rc == 0)
        rc = kt_rollover_images(ro, a, s);
    if (rc == 0) {
        judge(ro);
        verdict(ro);
    }
    return rc;
}
