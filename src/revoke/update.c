/* update.c - struct kt_update_check: dbx inputs, an SbatLevel, db lists and
 * Microsoft's dbx_info held together, one image or file checked against
 * them (ktrust/update.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "revoke/dbx_info.h"
#include "revoke/revoke.h"
#include "util/file.h"

struct kt_update_check {
    struct kt_dbx dbx;
    bool have_dbx;
    struct kt_sbat_level level;
    bool have_level;
    struct kt_certset db;
    bool have_db;
    struct kt_json *info;
};

int kt_update_check_new(struct kt_update_check **out)
{
    *out = calloc(1, sizeof(**out));
    return *out ? 0 : -ENOMEM;
}

void kt_update_check_free(struct kt_update_check *u)
{
    if (!u)
        return;
    kt_dbx_free(&u->dbx);
    kt_sbat_level_free(&u->level);
    kt_certset_free(&u->db);
    kt_json_free(u->info);
    free(u);
}

int kt_update_check_add_dbx(struct kt_update_check *u, const uint8_t *buf, size_t len,
                            const char *source, struct kt_error *err)
{
    u->have_dbx = true;
    return kt_dbx_add(&u->dbx, buf, len, source, err);
}

size_t kt_update_check_dbx_entries(const struct kt_update_check *u)
{
    return u->dbx.n_hashes + u->dbx.n_certs;
}

const struct kt_dbx *kt_update_check_dbx(const struct kt_update_check *u)
{
    return u->have_dbx ? &u->dbx : NULL;
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
    return kt_certset_add(&u->db, buf, len, err);
}

int kt_update_check_set_dbx_info(struct kt_update_check *u, const uint8_t *buf, size_t len,
                                 struct kt_error *err)
{
    kt_json_free(u->info);
    u->info = NULL;
    return kt_dbx_info_parse(buf, len, &u->info, err);
}

static int take_reasons(const struct kt_update_check *u, const struct kt_revoke_result *res,
                        struct kt_update_verdict *v)
{
    if (!res->n)
        return 0;
    v->reasons = calloc(res->n, sizeof(*v->reasons));
    if (!v->reasons)
        return -ENOMEM;
    v->n = res->n;
    for (size_t i = 0; i < res->n; i++) {
        v->reasons[i].by = res->reasons[i].by;
        snprintf(v->reasons[i].detail, sizeof(v->reasons[i].detail), "%s", res->reasons[i].detail);
        v->reasons[i].description = kt_dbx_info_describe(u->info, &res->reasons[i]);
    }
    return 0;
}

int kt_update_check_image(const struct kt_update_check *u, const uint8_t *buf, size_t len,
                          struct kt_update_verdict *v)
{
    memset(v, 0, sizeof(*v));
    v->error = (struct kt_error)KT_ERROR_INIT;
    v->db = -1;
    struct kt_revoke_result res = {0};
    v->rc = kt_revoke_check(buf, len, u->have_dbx ? &u->dbx : NULL,
                            u->have_level ? &u->level : NULL, &res, &v->error);
    if (v->rc == 0) {
        v->sbat_missing = res.sbat_missing;
        v->pe32plus = res.pe32plus;
        v->machine = res.machine;
        v->rc = take_reasons(u, &res, v);
    }
    if (v->rc == 0 && u->have_db) {
        const struct kt_x509 *by = NULL;
        v->db = kt_revoke_db_vouches(buf, len, &u->db, &by);
        if (by && by->description)
            snprintf(v->db_by, sizeof(v->db_by), "%s", by->description);
    }
    kt_revoke_result_free(&res);
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
