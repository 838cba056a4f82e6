/* chain_sigs.c - firmware's verdict on each signature of an image alone
 * (which db entry accepts the 2011 signature of a dual-signed shim, which
 * the 2023 one), and firmware's variables fed into a chain. */
#include <stdio.h>
#include <string.h>

#include "chain/chain.h"
#include "pe/pe_verify.h"
#include "policy/verify.h"
#include "util/file.h"
#include "util/fmt.h"

int kt_chain_add_firmware(struct kt_chain *c, const struct kt_efivars *vars)
{
    static const enum kt_efivar_id ids[] = {KT_EFIVAR_DB, KT_EFIVAR_DBX};
    for (size_t i = 0; vars && i < 2; i++) {
        const struct kt_efivar *v = &vars->var[ids[i]];
        struct kt_error e = KT_ERROR_INIT;
        if (v->state != KT_EFIVAR_PRESENT || v->raw_len <= 4)
            continue;
        int rc = (i ? kt_chain_add_dbx : kt_chain_add_db)(c, v->raw, v->raw_len, v->path, &e);
        if (rc == -ENOMEM)
            return rc;
    }
    return 0;
}

static void describe(char *out, size_t cap, const struct kt_x509 *c)
{
    if (c && c->description)
        kt_fmt(out, cap, "%s", c->description);
}

static void fill(struct kt_chain_sig *o, const struct kt_pe_signature *s)
{
    memset(o, 0, sizeof(*o));
    o->index = s->index;
    o->verdict = s->verdict;
    describe(o->signer, sizeof(o->signer), s->signer);
    if (s->chain_len)
        describe(o->ca, sizeof(o->ca), s->chain[s->chain_len - 1]);
    for (size_t k = 0; k < s->chain_len && k < KT_CHAIN_SIG_CHAIN; k++)
        memcpy(o->chain_sha256[o->chain_len++], s->chain[k]->sha256, 32);
    if (s->verdict == 0 && s->trusted_by && s->trusted_by->cert)
        describe(o->accepted_by, sizeof(o->accepted_by), s->trusted_by->cert);
    else if (s->verdict == -ENOKEY)
        kt_fmt(o->why, sizeof(o->why), "no db entry accepts it");
    else if (s->verdict != 0)
        kt_fmt(o->why, sizeof(o->why), "%s", s->error.what[0] ? s->error.what : "rejected");
}

int kt_chain_firmware_sigs(const struct kt_efivars *vars, const char *path,
                           struct kt_chain_sig *sigs, size_t cap, size_t *n,
                           struct kt_error *err)
{
    *n = 0;
    struct kt_file f;
    int rc = kt_file_open(path, &f, err);
    if (rc < 0)
        return rc;
    rc = kt_chain_firmware_sigs_buf(vars, f.data, f.len, sigs, cap, n, err);
    kt_file_close(&f);
    return rc;
}

int kt_chain_firmware_sigs_buf(const struct kt_efivars *vars, const uint8_t *buf, size_t len,
                               struct kt_chain_sig *sigs, size_t cap, size_t *n,
                               struct kt_error *err)
{
    *n = 0;
    struct kt_chain *ch;
    int rc = kt_chain_new(&ch);
    if (rc == 0)
        rc = kt_chain_add_firmware(ch, vars);
    if (rc < 0) {
        kt_chain_free(ch);
        return kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    }
    struct kt_pe_verify_opts opts = {.purpose = KT_VERIFY_PURPOSE_UEFI};
    struct kt_pe_result *r = NULL;
    struct kt_error e = KT_ERROR_INIT;
    rc = kt_pe_verify(buf, len, kt_chain_keyrings(ch), &opts, &r, &e);
    if (!r && rc < 0 && err)
        *err = e; /* the image cannot be parsed */
    for (size_t i = 0; r && i < r->n_sigs; i++) {
        struct kt_chain_entry db;
        if (i >= cap)
            continue;
        fill(&sigs[i], &r->sigs[i]);
        /* the db entry firmware takes for it: the first in db's order */
        if (sigs[i].verdict == 0 && kt_chain_sig_db_entry(ch, r, i, &db) == 0 && db.var[0])
            kt_fmt(sigs[i].accepted_by, sizeof(sigs[i].accepted_by), "%s", db.description);
    }
    *n = r ? r->n_sigs : 0;
    kt_pe_result_free(r);
    kt_chain_free(ch);
    return rc;
}
