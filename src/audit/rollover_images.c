/* rollover_images.c - the shim and the loader found on the ESP, today and
 * "what if": Microsoft Corporation UEFI CA 2011 removed from db, or added
 * to dbx.  Each state is a copy of the variables with db or dbx replaced,
 * given to the boot engine (kt_chain_run: each link's verdict) and to
 * firmware's per-signature check (kt_chain_firmware_sigs: which db entry
 * accepts each signature). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/rollover.h"
#include "esl/esl.h"

struct buf {
    uint8_t *p;
    size_t len;
};

static int append(struct buf *b, const uint8_t *p, size_t n)
{
    if (!n)
        return 0;
    uint8_t *q = realloc(b->p, b->len + n + 1);
    if (!q)
        return -ENOMEM;
    memcpy(q + b->len, p, n);
    b->p = q;
    b->len += n;
    return 0;
}

/* Append a list a builder made (rc its result), and free it. */
static int append_list(struct buf *b, int rc, uint8_t *list, size_t n)
{
    if (rc == 0)
        rc = append(b, list, n);
    free(list);
    return rc;
}

struct strip {
    struct buf out;
    uint8_t *der_2011;  /* a copy of UEFI CA 2011 as db holds it */
    size_t der_len;
    bool dropped;
};

/* Copy one entry into the new db unless it is UEFI CA 2011. */
static int keep_entry(void *ctx, const struct kt_esl_entry *e)
{
    struct strip *s = ctx;
    uint8_t *list = NULL;
    size_t n = 0;
    if (e->type == KT_ESL_X509) {
        struct kt_x509 *c = NULL;
        struct kt_error err = KT_ERROR_INIT;
        int rc = kt_x509_parse(e->data.p, e->data.len, &c, &err);
        const struct kt_ms_ca *ca = rc == 0 ? kt_ms_ca_find(c) : NULL;
        kt_x509_free(c);
        if (rc == -ENOMEM)
            return rc;
        if (ca && ca->role == KT_MS_CA_3P && ca->year == 2011) {
            s->dropped = true;
            if (!s->der_2011 && (s->der_2011 = malloc(e->data.len)) != NULL) {
                memcpy(s->der_2011, e->data.p, e->data.len);
                s->der_len = e->data.len;
            }
            return s->der_2011 ? 0 : -ENOMEM;
        }
        int rc2 = kt_esl_build_x509(&e->data, 1, e->owner, &list, &n);
        return append_list(&s->out, rc2, list, n);
    }
    if (e->type == KT_ESL_OTHER)
        return 0;
    const uint8_t *d = e->data.p;
    int rc = kt_esl_build_hashes(e->type, &d, 1, e->owner, &list, &n);
    return append_list(&s->out, rc, list, n);
}

void kt_rollover_states_free(struct kt_rollover_states *st)
{
    for (int i = 1; i < KT_ROLLOVER__STATES; i++)
        free(st->v[i]); /* shallow copies: the bytes are the caller's or ours below */
    free(st->db);
    free(st->dbx);
    memset(st, 0, sizeof(*st));
}

static const uint8_t ms_owner[16] = {0xbd, 0x9a, 0xfa, 0x77, 0x59, 0x03, 0x32, 0x4d,
                                     0xbd, 0x60, 0x28, 0xf4, 0xe7, 0x8f, 0x78, 0x4b};

static int hexbytes(const char *hex, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -EINVAL;
        out[i] = (uint8_t)v;
    }
    return 0;
}

int kt_rollover_states_build(struct kt_rollover_states *st, const struct kt_efivars *vars)
{
    memset(st, 0, sizeof(*st));
    st->v[KT_ROLLOVER_TODAY] = (struct kt_efivars *)vars;
    for (int i = 1; i < KT_ROLLOVER__STATES; i++) {
        if (!(st->v[i] = malloc(sizeof(*vars))))
            return -ENOMEM;
        memcpy(st->v[i], vars, sizeof(*vars));
    }
    const struct kt_efivar *db = &vars->var[KT_EFIVAR_DB], *dbx = &vars->var[KT_EFIVAR_DBX];
    struct strip s = {{NULL, 0}, NULL, 0, false};
    struct kt_error e = KT_ERROR_INIT;
    int rc = 0;
    if (db->state == KT_EFIVAR_PRESENT && db->raw_len >= 4) {
        rc = append(&s.out, db->raw, 4);
        int frc = rc == 0 ? kt_esl_foreach(db->raw, db->raw_len, keep_entry, &s, &e) : 0;
        if (frc == -ENOMEM)
            rc = frc;
        else if (frc < 0)
            s.dropped = false; /* a db that does not parse: the engine leaves it out anyway */
    }
    if (rc == 0 && s.dropped) {
        struct kt_efivar *w = &st->v[KT_ROLLOVER_NO_2011]->var[KT_EFIVAR_DB];
        w->raw = st->db = s.out.p;
        w->raw_len = s.out.len;
        s.out.p = NULL;
    }
    free(s.out.p);
    /* dbx + UEFI CA 2011 */
    static const uint8_t attrs[4] = {0x27, 0, 0, 0};
    struct buf nx = {NULL, 0};
    if (rc == 0)
        rc = dbx->state == KT_EFIVAR_PRESENT && dbx->raw_len >= 4
                 ? append(&nx, dbx->raw, dbx->raw_len)
                 : append(&nx, attrs, 4);
    uint8_t *list = NULL;
    size_t n = 0;
    if (rc == 0 && s.der_2011) {
        kt_span der = {s.der_2011, s.der_len};
        rc = kt_esl_build_x509(&der, 1, ms_owner, &list, &n);
        rc = append_list(&nx, rc, list, n);
    } else if (rc == 0) {
        uint8_t tbs[32];
        const uint8_t *d = tbs;
        hexbytes(kt_ms_ca_get(KT_MS_CA_3P, 2011)->tbs_sha256, tbs, 32);
        rc = kt_esl_build_hashes(KT_ESL_X509_SHA256, &d, 1, ms_owner, &list, &n);
        rc = append_list(&nx, rc, list, n);
    }
    free(s.der_2011);
    st->dbx = nx.p;
    if (rc == 0) {
        struct kt_efivar *w = &st->v[KT_ROLLOVER_2011_IN_DBX]->var[KT_EFIVAR_DBX];
        w->state = KT_EFIVAR_PRESENT;
        w->raw = nx.p;
        w->raw_len = nx.len;
    }
    return rc;
}

/* Each signature of one image (the snapshot's bytes of link, else its
 * file) in one state. */
static int image_sigs(struct kt_rollover_image *im, const struct kt_audit_snap *snap, int link,
                      const char *path, const struct kt_efivars *v, int state)
{
    struct kt_chain_sig sigs[KT_ROLLOVER_MAX_SIGS];
    size_t n = 0;
    struct kt_error e = KT_ERROR_INIT;
    const struct kt_file *f = &snap->file[link];
    int rc = snap->file_rc[link] == 0
                 ? kt_chain_firmware_sigs_buf(v, f->data, f->len, sigs, KT_ROLLOVER_MAX_SIGS, &n, &e)
                 : kt_chain_firmware_sigs(v, path, sigs, KT_ROLLOVER_MAX_SIGS, &n, &e);
    if (rc == -ENOMEM)
        return rc;
    if (n == 0 && rc < 0 && rc != -ENODATA && state == KT_ROLLOVER_TODAY) {
        im->rc = rc;
        kt_fmt(im->error, sizeof(im->error), "%s", e.what);
    }
    if (n > KT_ROLLOVER_MAX_SIGS)
        n = KT_ROLLOVER_MAX_SIGS;
    im->n_sigs = n;
    for (size_t i = 0; i < n; i++) {
        struct kt_rollover_sig *s = &im->sigs[i];
        if (state == KT_ROLLOVER_TODAY) {
            s->index = sigs[i].index;
            kt_fmt(s->signer, sizeof(s->signer), "%s", sigs[i].signer);
            kt_fmt(s->ca_desc, sizeof(s->ca_desc), "%s", sigs[i].ca);
            for (size_t k = 0; k < sigs[i].chain_len && !s->ca; k++)
                s->ca = kt_ms_ca_find_sha256(sigs[i].chain_sha256[k]);
        }
        s->verdict[state] = sigs[i].verdict;
        kt_fmt(s->accepted_by[state], sizeof(s->accepted_by[state]), "%s", sigs[i].accepted_by);
    }
    return 0;
}

/* The boot engine's verdict on the shim and the loader in state `state`:
 * today's is the audit's own chain run (a->links), the others one run each. */
static int run_state(struct kt_rollover *ro, const struct kt_audit *a, const char *const path[2],
                     const struct kt_efivars *v, int state)
{
    static const int links[2] = {KT_AUDIT_SHIM, KT_AUDIT_LOADER};
    struct kt_chain_report r;
    int rc = 0;
    if (state != KT_ROLLOVER_TODAY) {
        struct kt_chain_opts o = {.vars = v, .sbat = true, .shim = path[0], .loader = path[1]};
        struct kt_error e = KT_ERROR_INIT;
        rc = kt_chain_run(&o, &r, &e);
    }
    for (int i = 0; rc == 0 && i < 2; i++) {
        if (!path[i])
            continue;
        const struct kt_chain_link *l = state == KT_ROLLOVER_TODAY ? &a->links[links[i]].link
                                                                   : &r.link[i];
        struct kt_rollover_image *im = &ro->images[i];
        im->verdict[state] = l->verdict;
        kt_fmt(im->reason[state], sizeof(im->reason[state]), "%s", l->reason);
    }
    if (state != KT_ROLLOVER_TODAY)
        kt_chain_report_free(&r);
    return rc;
}

int kt_rollover_images(struct kt_rollover *ro, const struct kt_audit *a,
                       const struct kt_audit_snap *snap)
{
    static const int links[2] = {KT_AUDIT_SHIM, KT_AUDIT_LOADER};
    const char *path[2];
    for (int i = 0; i < 2; i++) {
        ro->images[i].link = links[i];
        ro->images[i].present = a->links[links[i]].present;
        path[i] = ro->images[i].present ? a->links[links[i]].path : NULL;
    }
    if (!path[0] && !path[1])
        return 0;
    struct kt_rollover_states st;
    int rc = kt_rollover_states_build(&st, &snap->vars);
    for (int s = 0; rc == 0 && s < KT_ROLLOVER__STATES; s++) {
        rc = run_state(ro, a, path, st.v[s], s);
        for (int i = 0; rc == 0 && i < 2; i++)
            if (path[i])
                rc = image_sigs(&ro->images[i], snap, links[i], path[i], st.v[s], s);
        if (rc != -ENOMEM)
            rc = 0; /* a variable the engine refuses: the chain section says so */
    }
    kt_rollover_states_free(&st);
    return rc;
}
