/* update.c - struct kt_update_check: dbx inputs, an SbatLevel, db lists and
 * Microsoft's dbx_info held together; one image or file checked against
 * them (ktrust/update.h).  The dbx and db inputs are a firmware state of
 * their own (a kt_chain fed with them, never the machine's): the chain's
 * firmware verdict names the dbx entries that deny an image and the db
 * entry that accepts it; this only turns those into check-update's
 * reasons and adds the SbatLevel's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "authvar/authvar.h"
#include "chain/chain.h"
#include "chain/chain_fw.h"
#include "pe/pe.h"
#include "revoke/dbx_info.h"
#include "revoke/revoke.h"
#include "util/file.h"

struct kt_update_check {
    struct kt_chain *chain;   /* firmware's db and dbx: the inputs alone, made at the
                               * first check (db before dbx, as firmware holds them) */
    struct kt_fw_dbs inputs;  /* the same inputs, for counting and dbx_info */
    struct kt_file files[KT_FW_MAX_SRC]; /* the dbx files inputs borrows from */
    size_t n_files;
    size_t n_entries;         /* dbx image/TBS hashes and certificates */
    bool have_dbx;
    struct kt_sbat_level level;
    bool have_level;
    bool have_db;
    struct kt_json *info;
};

const char *kt_revoke_by_name(enum kt_revoke_by by)
{
    switch (by) {
    case KT_REVOKE_IMAGE_HASH: return "image_hash";
    case KT_REVOKE_CERT: return "certificate";
    case KT_REVOKE_CERT_TBS: return "certificate_tbs";
    case KT_REVOKE_SBAT: return "sbat";
    }
    return "?";
}

int kt_update_check_new(struct kt_update_check **out)
{
    *out = calloc(1, sizeof(**out));
    return *out ? 0 : -ENOMEM;
}

/* The firmware state of the inputs: db, then dbx. */
static int state(struct kt_update_check *u, struct kt_error *err)
{
    if (u->chain)
        return 0;
    KT_TRY(kt_chain_new(&u->chain));
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < u->inputs.n_db; i++)
        rc = kt_chain_add_db(u->chain, u->inputs.db[i].buf, u->inputs.db[i].len,
                             u->inputs.db[i].label, err);
    for (size_t i = 0; rc == 0 && i < u->inputs.n_dbx; i++)
        rc = kt_chain_add_dbx_borrowed(u->chain, u->inputs.dbx[i].buf, u->inputs.dbx[i].len,
                                       u->inputs.dbx[i].label, err);
    return rc;
}

void kt_update_check_free(struct kt_update_check *u)
{
    if (!u)
        return;
    kt_chain_free(u->chain);
    kt_fw_dbs_free(&u->inputs);
    for (size_t i = 0; i < u->n_files; i++)
        kt_file_close(&u->files[i]);
    kt_sbat_level_free(&u->level);
    kt_json_free(u->info);
    free(u);
}

static int count_entry(void *ctx, const struct kt_esl_entry *e)
{
    enum kt_hash alg;
    bool tbs;
    if (!kt_esl_is_svn(e) && (e->type == KT_ESL_X509 || kt_fw_entry_hash(e, &alg, &tbs)))
        (*(size_t *)ctx)++;
    return 0;
}

/* A dbx input copied, or borrowed (from u->files). */
static int add_dbx(struct kt_update_check *u, const uint8_t *buf, size_t len, const char *source,
                   bool borrow, struct kt_error *err)
{
    u->have_dbx = true;
    size_t n = 0;
    struct kt_authvar v;
    struct kt_error ve = KT_ERROR_INIT;
    /* a signed update firmware's SetVariable() refuses never becomes dbx */
    if (kt_authvar_parse(buf, len, &v, &ve) == 0) {
        int frc = kt_authvar_check_format(&v, "dbx", err);
        if (frc < 0)
            return frc;
    }
    int rc = kt_esl_foreach(buf, len, count_entry, &n, err); /* a dbx input is signature lists */
    if (len == 0) /* a failed download is not "revokes nothing" */
        return kt_fail(err, -EBADMSG, 0, "empty file: no dbx entry to check");
    if (rc == 0)
        rc = (borrow ? kt_fw_dbs_borrow : kt_fw_dbs_add)(&u->inputs, true, buf, len, source);
    if (rc == -ENOMEM)
        return kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    if (rc == 0)
        u->n_entries += n;
    return rc < 0 ? kt_fail(err, rc, KT_NO_OFFSET, "too many dbx inputs") : 0;
}

int kt_update_check_add_dbx(struct kt_update_check *u, const uint8_t *buf, size_t len,
                            const char *source, struct kt_error *err)
{
    return add_dbx(u, buf, len, source, false, err);
}

int kt_update_check_add_dbx_file(struct kt_update_check *u, const char *path,
                                 struct kt_error *err)
{
    if (u->n_files == KT_FW_MAX_SRC)
        return kt_fail(err, -E2BIG, KT_NO_OFFSET, "too many dbx inputs");
    struct kt_file *f = &u->files[u->n_files];
    int rc = kt_file_open(path, f, err);
    if (rc < 0)
        return rc;
    if ((rc = add_dbx(u, f->data, f->len, path, true, err)) < 0)
        kt_file_close(f);
    else
        u->n_files++;
    return rc;
}

size_t kt_update_check_dbx_entries(const struct kt_update_check *u)
{
    return u->n_entries;
}

struct each_hash {
    void (*cb)(void *, enum kt_hash, const uint8_t *, size_t);
    void *ctx;
};

static int each_hash(void *ctx, const struct kt_esl_entry *e)
{
    struct each_hash *h = ctx;
    enum kt_hash alg;
    bool tbs;
    if (!kt_esl_is_svn(e) && kt_fw_entry_hash(e, &alg, &tbs) && !tbs &&
        e->data.len == kt_hash_size(alg))
        h->cb(h->ctx, alg, e->data.p, e->data.len);
    return 0;
}

void kt_update_check_foreach_image_hash(const struct kt_update_check *u,
                                        void (*cb)(void *ctx, enum kt_hash alg,
                                                   const uint8_t *v, size_t len),
                                        void *ctx)
{
    struct each_hash h = {cb, ctx};
    for (size_t i = 0; i < u->inputs.n_dbx; i++)
        kt_esl_foreach(u->inputs.dbx[i].buf, u->inputs.dbx[i].len, each_hash, &h, NULL);
}

const struct kt_json *kt_update_check_info(const struct kt_update_check *u)
{
    return u->info;
}

int kt_update_check_set_level(struct kt_update_check *u, const struct kt_sbat_level *level,
                              struct kt_error *err)
{
    kt_sbat_level_free(&u->level);
    u->have_level = false;
    if (!level)
        return 0;
    int rc = kt_sbat_level_parse(level->text, level->text_len, &u->level, err);
    if (rc < 0)
        return rc;
    memcpy(u->level.source, level->source, sizeof(u->level.source));
    u->have_level = true;
    return 0;
}

int kt_update_check_add_db(struct kt_update_check *u, const uint8_t *buf, size_t len,
                           struct kt_error *err)
{
    u->have_db = true;
    int rc = kt_fw_dbs_add(&u->inputs, false, buf, len, "db");
    return rc < 0 ? kt_fail(err, rc, KT_NO_OFFSET, "%s",
                            rc == -ENOMEM ? "out of memory" : "too many db inputs") : 0;
}

int kt_update_check_set_dbx_info(struct kt_update_check *u, const uint8_t *buf, size_t len,
                                 struct kt_error *err)
{
    kt_json_free(u->info);
    u->info = NULL;
    return kt_dbx_info_parse(buf, len, &u->info, err);
}

static int push(struct kt_update_verdict *v, enum kt_revoke_by by, const char *detail,
                char *description)
{
    struct kt_update_reason *n = realloc(v->reasons, (v->n + 1) * sizeof(*n));
    if (!n) {
        free(description);
        return -ENOMEM;
    }
    v->reasons = n;
    n[v->n].by = by;
    snprintf(n[v->n].detail, sizeof(n[v->n].detail), "%s", detail);
    n[v->n++].description = description;
    return 0;
}

/* The chain's dbx reasons, image hashes first (as firmware checks them). */
static int take_dbx(const struct kt_update_check *u, const struct kt_chain_link *l,
                    struct kt_update_verdict *v)
{
    size_t n = l->n_dbx < KT_CHAIN_MAX_DBX ? l->n_dbx : KT_CHAIN_MAX_DBX;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            const struct kt_chain_entry *x = &l->dbx[i];
            if ((x->by == KT_REVOKE_IMAGE_HASH) != (pass == 0))
                continue;
            KT_TRY(push(v, x->by, x->detail, kt_dbx_info_describe(u->info, x)));
        }
    return 0;
}

/* A signature whose PKCS#7 does not parse: the image cannot be checked
 * against dbx's certificates (unless its hash revoked it already). */
static int bad_signature(const uint8_t *buf, size_t len, struct kt_error *err)
{
    struct kt_pe *pe = NULL;
    struct kt_pe_cert ents[KT_PE_MAX_CERTS];
    size_t n = 0;
    int rc = kt_pe_parse(buf, len, &pe, err);
    if (rc == 0)
        rc = kt_pe_cert_table(pe, ents, KT_PE_MAX_CERTS, &n, err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct kt_pkcs7 *msg = NULL;
        struct kt_error e = KT_ERROR_INIT;
        rc = kt_pkcs7_parse(ents[i].pkcs7.p, ents[i].pkcs7.len, &msg, &e);
        kt_pkcs7_free(msg);
        if (rc < 0)
            rc = kt_fail(err, rc, e.offset == KT_NO_OFFSET ? ents[i].offset
                                                           : ents[i].offset + 8 + e.offset,
                         "signature %zu: %s", i, e.what);
    }
    kt_pe_free(pe);
    return rc;
}

static int sbat_reason(const struct kt_update_check *u, const uint8_t *buf, size_t len,
                       struct kt_update_verdict *v)
{
    struct kt_pe *pe = NULL;
    struct kt_sbat s = {0};
    const struct kt_sbat_entry *ie, *le;
    struct kt_error se = KT_ERROR_INIT;
    int rc = kt_pe_parse(buf, len, &pe, &v->error);
    if (rc == 0)
        rc = kt_sbat_from_pe(pe, &s, &v->error);
    if (rc == 0 && !s.present)
        v->sbat_missing = true;
    if (rc == 0 && kt_sbat_check(&s, &u->level, &ie, &le, &se) == -EKEYREJECTED) {
        static const char pre[] = "revoked by SBAT: ";
        rc = push(v, KT_REVOKE_SBAT,
                  strncmp(se.what, pre, sizeof(pre) - 1) ? se.what : se.what + sizeof(pre) - 1,
                  NULL);
    }
    kt_sbat_free(&s);
    kt_pe_free(pe);
    return rc;
}

int kt_update_check_image(const struct kt_update_check *u, const uint8_t *buf, size_t len,
                          struct kt_update_verdict *v)
{
    memset(v, 0, sizeof(*v));
    v->error = (struct kt_error)KT_ERROR_INIT;
    v->db = -1;
    struct kt_pe *pe = NULL;
    v->rc = kt_pe_parse(buf, len, &pe, &v->error);
    if (v->rc < 0)
        return v->rc;
    v->pe32plus = pe->pe32plus;
    v->machine = pe->machine;
    kt_pe_free(pe);
    struct kt_chain_link *l = calloc(1, sizeof(*l));
    if (!l)
        return v->rc = kt_fail(&v->error, -ENOMEM, KT_NO_OFFSET, "out of memory");
    if (u->have_dbx || u->have_db)
        v->rc = state((struct kt_update_check *)u, &v->error); /* made once, then only read */
    if (v->rc == 0 && (u->have_dbx || u->have_db))
        v->rc = kt_chain_judge_firmware(u->chain, buf, len, NULL, l, &v->error);
    if (v->rc == 0 && u->have_dbx)
        v->rc = take_dbx(u, l, v);
    if (v->rc == 0 && u->have_dbx && !v->n && u->n_entries)
        v->rc = bad_signature(buf, len, &v->error);
    if (v->rc == 0 && u->have_level)
        v->rc = sbat_reason(u, buf, len, v);
    if (v->rc == 0 && u->have_db) {
        v->db = l->db.var[0] && l->db.by == KT_REVOKE_CERT;
        if (v->db)
            snprintf(v->db_by, sizeof(v->db_by), "%s", l->db.description);
    }
    free(l);
    if (v->rc < 0) {
        kt_update_verdict_free(v);
        if (v->rc == -ENOMEM)
            kt_fail(&v->error, -ENOMEM, KT_NO_OFFSET, "out of memory");
    }
    return v->rc;
}

static bool has_efi_name(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && !strcasecmp(path + n - 4, ".efi");
}

int kt_update_check_file(const struct kt_update_check *u, const char *path, unsigned flags,
                         struct kt_update_verdict *v)
{
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(path, &f, &e);
    if (rc < 0) {
        if ((flags & KT_UPDATE_BOOT_FILES) && !has_efi_name(path))
            return 1;
        memset(v, 0, sizeof(*v));
        v->db = -1;
        v->rc = rc;
        v->error = e;
        return rc;
    }
    bool mz = f.len >= 2 && f.data[0] == 'M' && f.data[1] == 'Z';
    if ((flags & KT_UPDATE_BOOT_FILES) && !mz && !has_efi_name(path)) {
        kt_file_close(&f);
        return 1; /* not a PE, and not named like one: not a boot binary */
    }
    rc = kt_update_check_image(u, f.data, f.len, v);
    kt_file_close(&f);
    return rc;
}

void kt_update_verdict_free(struct kt_update_verdict *v)
{
    for (size_t i = 0; i < v->n; i++)
        free(v->reasons[i].description);
    free(v->reasons);
    v->reasons = NULL;
    v->n = 0;
}
