/* audit_rollover.c - the rollover section of `ktrust audit`: text and its
 * JSON object ({"type": "rollover", ...} with {"type": "finding"} objects). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "audit_print.h"
#include "cli.h"

static const char *state_words[] = {"ready", "AT RISK", "NOT READY"};

static const char *state_word(enum kt_rollover_state s)
{
    return s >= KT_ROLLOVER_READY && s <= KT_ROLLOVER_NOT_READY ? state_words[s] : "unknown";
}

static const char *label(int state)
{
    static const char *const l[] = {"today", "without UEFI CA 2011", "UEFI CA 2011 in dbx"};
    return l[state];
}

static void text_image(const struct kt_audit *a, const struct kt_rollover_image *im, bool verbose)
{
    if (!im->present)
        return;
    printf("  %s %s:", kt_audit_link_name(im->link), tx(a->links[im->link].path));
    if (im->rc < 0) {
        printf(" cannot be checked: %s\n", tx(im->error));
        return;
    }
    for (int s = 0; s < KT_ROLLOVER__STATES; s++)
        printf("%s %s %s", s ? ";" : "", label(s), im->verdict[s] == 0 ? "boots" : "does NOT boot");
    printf("\n");
    if (!verbose) /* the per-signature what-ifs: -v */
        return;
    for (size_t i = 0; i < im->n_sigs; i++) {
        const struct kt_rollover_sig *g = &im->sigs[i];
        printf("    signature %d (%s):", g->index,
               g->ca ? g->ca->name : g->ca_desc[0] ? tx(g->ca_desc) : "chain not examined");
        for (int s = 0; s < KT_ROLLOVER__STATES; s++) {
            if (s && g->verdict[s] == g->verdict[s - 1] &&
                !strcmp(g->accepted_by[s], g->accepted_by[s - 1]))
                continue;
            if (g->verdict[s] == 0)
                printf("%s %s accepted by %s", s ? ";" : "", label(s), tx(g->accepted_by[s]));
            else
                printf("%s %s %s", s ? ";" : "", label(s),
                       g->verdict[s] == -EKEYREJECTED ? "revoked (dbx)" : "no db entry accepts it");
        }
        printf("\n");
    }
    printf("    today: %s\n", tx(im->reason[0]));
    for (int s = 1; s < KT_ROLLOVER__STATES; s++)
        if (im->verdict[s] != 0 && im->verdict[0] == 0)
            printf("    %s: %s\n", label(s), tx(im->reason[s]));
}

const char *audit_rollover_state_word(int state)
{
    return state_word(state);
}

void audit_print_rollover(const struct kt_audit *a, bool verbose)
{
    const struct kt_rollover *ro = &a->rollover;
    if (!ro->checked)
        return;
    printf("rollover (the 2023 certificates): %s — %s\n", state_word(ro->state), tx(ro->why));
    printf("  %-38s %-4s %-4s %-4s %s\n", "Microsoft CA", "KEK", "db", "dbx", "notAfter");
    for (size_t i = 0; i < ro->n_cas; i++) {
        const struct kt_rollover_ca *c = &ro->cas[i];
        printf("  %-38s %-4s %-4s %-4s %s\n", c->ca->name, c->in_kek ? "yes" : "-",
               c->in_db ? "yes" : "-", c->in_dbx ? "yes" : "-", c->ca->not_after);
    }
    if (ro->have_pk)
        printf("  PK %s (SHA-1 %s)%s\n", tx(ro->pk), ro->pk_sha1,
               ro->pkfail ? ": a known test key (PKfail)" : "");
    else
        printf("  PK not set\n");
    if (ro->kek_map >= 0)
        printf("  kek_update_map.json: %s%s\n", ro->kek_map ? "this PK's KEK update is " : "no entry for this PK",
               ro->kek_map ? tx(ro->kek_update) : "");
    for (int i = 0; i < 2; i++)
        text_image(a, &ro->images[i], verbose);
    for (size_t i = 0; i < ro->n_findings; i++) {
        const struct kt_rollover_finding *f = &ro->findings[i];
        char hint[768];
        printf("  %s: %s\n", f->severity == KT_ROLLOVER_READY ? "note" : state_word(f->severity),
               tx(f->what));
        printf("    do: %s\n", tx(f->todo));
        audit_rollover_hint(a, f, hint, sizeof(hint));
        if (hint[0])
            printf("    with ktrust: %s\n", tx(hint));
    }
}

static void json_image(struct jw *w, const struct kt_audit *a, const struct kt_rollover_image *im)
{
    jw_obj(w, NULL);
    jw_str(w, "role", kt_audit_link_name(im->link));
    jw_str(w, "file", a->links[im->link].path);
    jw_str(w, "error", im->rc < 0 ? im->error : NULL);
    jw_obj(w, "boots");
    for (int s = 0; s < KT_ROLLOVER__STATES; s++)
        jw_bool(w, kt_rollover_state_label(s), im->rc == 0 && im->verdict[s] == 0);
    jw_obj_end(w);
    jw_obj(w, "reasons");
    for (int s = 0; s < KT_ROLLOVER__STATES; s++)
        jw_str(w, kt_rollover_state_label(s), im->reason[s]);
    jw_obj_end(w);
    jw_arr(w, "signatures");
    for (size_t i = 0; i < im->n_sigs; i++) {
        const struct kt_rollover_sig *g = &im->sigs[i];
        jw_obj(w, NULL);
        jw_int(w, "index", g->index);
        jw_str(w, "signer", g->signer[0] ? g->signer : NULL);
        jw_str(w, "ca", g->ca_desc[0] ? g->ca_desc : NULL);
        jw_str(w, "microsoft_ca", g->ca ? g->ca->name : NULL);
        jw_obj(w, "accepted_by");
        for (int s = 0; s < KT_ROLLOVER__STATES; s++)
            jw_str(w, kt_rollover_state_label(s), g->verdict[s] == 0 ? g->accepted_by[s] : NULL);
        jw_obj_end(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_obj_end(w);
}

void audit_json_rollover(const struct kt_audit *a)
{
    const struct kt_rollover *ro = &a->rollover;
    struct jw w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "type", "rollover");
    jw_str(&w, "section", "rollover");
    jw_str(&w, "state", kt_rollover_state_name(ro->state));
    jw_str(&w, "why", ro->why);
    jw_arr(&w, "cas");
    for (size_t i = 0; i < ro->n_cas; i++) {
        const struct kt_rollover_ca *c = &ro->cas[i];
        jw_obj(&w, NULL);
        jw_str(&w, "name", c->ca->name);
        jw_str(&w, "role", kt_ms_ca_role_name(c->ca->role));
        jw_int(&w, "year", c->ca->year);
        jw_str(&w, "sha256", c->ca->sha256);
        jw_str(&w, "not_after", c->ca->not_after);
        jw_bool(&w, "kek", c->in_kek);
        jw_bool(&w, "db", c->in_db);
        jw_bool(&w, "dbx", c->in_dbx);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    if (ro->have_pk) {
        jw_obj(&w, "pk");
        jw_str(&w, "description", ro->pk);
        jw_str(&w, "sha1", ro->pk_sha1);
        jw_bool(&w, "pkfail", ro->pkfail);
        jw_str(&w, "pkfail_reason", ro->pkfail ? ro->pkfail_why : NULL);
        jw_obj_end(&w);
    } else {
        jw_null(&w, "pk");
    }
    if (ro->kek_map < 0)
        jw_null(&w, "kek_update");
    else
        jw_str(&w, "kek_update", ro->kek_map ? ro->kek_update : "");
    jw_str(&w, "eventlog", ro->eventlog ? ro->eventlog_path : NULL);
    if (ro->uefi_2011_authorized < 0) {
        jw_null(&w, "uefi_ca_2011_authorized");
    } else {
        jw_obj(&w, "uefi_ca_2011_authorized");
        jw_bool(&w, "any", ro->uefi_2011_authorized == 1);
        jw_bool(&w, "driver_or_option_rom", ro->uefi_2011_driver);
        jw_str(&w, "image", ro->uefi_2011_authorized == 1 ? ro->uefi_2011_image : NULL);
        jw_obj_end(&w);
    }
    jw_arr(&w, "images");
    for (int i = 0; i < 2; i++)
        if (ro->images[i].present)
            json_image(&w, a, &ro->images[i]);
    jw_arr_end(&w);
    jw_arr(&w, "findings");
    for (size_t i = 0; i < ro->n_findings; i++) {
        const struct kt_rollover_finding *f = &ro->findings[i];
        char hint[768];
        audit_rollover_hint(a, f, hint, sizeof(hint));
        jw_obj(&w, NULL);
        jw_str(&w, "type", "finding");
        jw_str(&w, "id", kt_rollover_finding_name(f->id));
        jw_str(&w, "severity", f->severity == KT_ROLLOVER_READY ? "note" : kt_rollover_state_name(f->severity));
        jw_str(&w, "what", f->what);
        jw_str(&w, "todo", f->todo);
        jw_str(&w, "hint", hint[0] ? hint : NULL);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_obj_end(&w);
    jw_newline(&w);
}

void audit_json_readiness(struct jw *w, const struct kt_audit *a)
{
    const struct kt_rollover *ro = &a->rollover;
    enum kt_rollover_state st = ro->checked ? ro->state : KT_ROLLOVER_UNKNOWN;
    jw_obj(w, "rollover");
    jw_str(w, "state", kt_rollover_state_name(st));
    if (st == KT_ROLLOVER_UNKNOWN)
        jw_null(w, "ready");
    else
        jw_bool(w, "ready", st == KT_ROLLOVER_READY);
    jw_arr(w, "missing");
    for (size_t i = 0; ro->checked && i < ro->n_findings; i++)
        if (ro->findings[i].severity > KT_ROLLOVER_READY)
            jw_str(w, NULL, kt_rollover_finding_name(ro->findings[i].id));
    jw_arr_end(w);
    jw_obj_end(w);
}
