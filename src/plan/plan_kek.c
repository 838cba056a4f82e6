/* plan_kek.c - which of Microsoft's CAs a variable holds, and the KEK 2023
 * story of one PK: reached by a step of the plan, already held, or why not
 * (no file signed by this PK among the updates; what kek_update_map.json,
 * an index only, says of this PK). */
#include "plan/plan_kek.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/ms_cas.h"
#include "boot/pk.h"
#include "esl/esl.h"
#include "util/fmt.h"
#include "x509/x509.h"

struct holds {
    const struct kt_ms_ca *ca;
    bool found;
};

static int holds_cb(void *ctx, const struct kt_esl_entry *e)
{
    struct holds *h = ctx;
    if (h->found)
        return 0;
    if (e->type == KT_ESL_X509_SHA256 && e->data.len == 32) {
        h->found = kt_ms_ca_find_tbs(e->data.p) == h->ca;
        return 0;
    }
    if (e->type != KT_ESL_X509)
        return 0;
    struct kt_x509 *x = NULL;
    struct kt_error xe = KT_ERROR_INIT;
    int rc = kt_x509_parse(e->data.p, e->data.len, &x, &xe);
    if (rc == 0)
        h->found = kt_ms_ca_find(x) == h->ca;
    kt_x509_free(x);
    return rc == -ENOMEM ? rc : 0;
}

bool kt_plan_var_holds(const struct kt_efivars *s, enum kt_efivar_id id,
                       enum kt_ms_ca_role role, int year)
{
    size_t len;
    const uint8_t *p = kt_efivar_data(&s->var[id], &len);
    struct holds h = {kt_ms_ca_get(role, year), false};
    struct kt_error e = KT_ERROR_INIT;
    if (p && len && h.ca)
        (void)kt_esl_foreach(p, len, holds_cb, &h, &e);
    return h.found;
}

/* Why KEK 2023 is not reached: what the map says of this PK. */
static void no_kek(struct kt_plan *p, const struct kt_pk_facts *ro, const struct kt_error *me)
{
    char *n = p->kek_note;
    size_t cap = sizeof(p->kek_note);
    if (me->code)
        kt_fmt(n, cap, "no KEK update given is signed by this PK (%s, SHA-1 %s); %s cannot be "
               "read: %s", p->pk, p->pk_sha1, p->map, me->what);
    else if (ro->kek_map == 1)
        kt_fmt(n, cap, "no KEK update given is signed by this PK (%s, SHA-1 %s); "
               "kek_update_map.json lists %s for it: get that file", p->pk, p->pk_sha1,
               ro->kek_update);
    else if (ro->kek_map == 0)
        kt_fmt(n, cap, "no KEK update exists for this PK (%s, SHA-1 %s): kek_update_map.json has "
               "no entry for it and no file given is signed by it; the OEM never published one, "
               "so this machine cannot get KEK 2023 from Microsoft: ask the vendor, or enroll "
               "your own keys", p->pk, p->pk_sha1);
    else
        kt_fmt(n, cap, "no KEK update given is signed by this PK (%s, SHA-1 %s); Microsoft "
               "publishes one per OEM PK (PostSignedObjects/KEK/<OEM>/), indexed by that SHA-1 "
               "in kek_update_map.json", p->pk, p->pk_sha1);
    if (ro->pkfail) {
        size_t l = strlen(n);
        kt_fmt(n + l, cap - l, "; this PK is a test key (%s): anyone can sign KEK and db "
               "updates for this machine", ro->pkfail_why);
    }
}

int kt_plan_kek_story(struct kt_plan *p, const struct kt_efivars *was,
                      const struct kt_efivars *now)
{
    struct kt_pk_facts *ro = malloc(sizeof(*ro));
    if (!ro)
        return -ENOMEM;
    struct kt_error me = KT_ERROR_INIT;
    const struct kt_efivar *pk = &was->var[KT_EFIVAR_PK];
    int rc = kt_pk_facts(pk->state == KT_EFIVAR_PRESENT ? pk->raw : NULL, pk->raw_len,
                         p->map[0] ? p->map : NULL, ro, &me);
    if (rc == -ENOMEM) {
        free(ro);
        return rc;
    }
    kt_fmt(p->pk, sizeof(p->pk), "%s", ro->pk);
    kt_fmt(p->pk_sha1, sizeof(p->pk_sha1), "%s", ro->pk_sha1);
    char *n = p->kek_note;
    size_t cap = sizeof(p->kek_note);
    const struct kt_plan_file *kek_step = NULL;
    for (size_t i = 0; i < p->n_steps && !kek_step; i++)
        if (p->files[p->order[i]].change.target == KT_EFIVAR_KEK)
            kek_step = &p->files[p->order[i]];
    if (kt_plan_var_holds(was, KT_EFIVAR_KEK, KT_MS_CA_KEK, 2023))
        kt_fmt(n, cap, "KEK already holds Microsoft Corporation KEK 2K CA 2023");
    else if (kek_step && kt_plan_var_holds(now, KT_EFIVAR_KEK, KT_MS_CA_KEK, 2023))
        kt_fmt(n, cap, "KEK gains Microsoft Corporation KEK 2K CA 2023 from %s (signed by this "
               "PK, %s)", kek_step->path, p->pk[0] ? p->pk : "?");
    else if (kek_step)
        kt_fmt(n, cap, "%s (signed by this PK) changes KEK but does not carry Microsoft "
               "Corporation KEK 2K CA 2023", kek_step->path);
    else if (!ro->have_pk)
        kt_fmt(n, cap, "no PK: the machine is in setup mode; enroll a PK and KEK (your own, or "
               "the OEM's) before KEK 2023 can be added");
    else
        no_kek(p, ro, &me);
    free(ro);
    return 0;
}
