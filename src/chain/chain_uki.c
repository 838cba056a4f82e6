/* chain_uki.c - would the boot that left a snapshot of the variables start
 * this UKI (`uki verify --efivars`)?  systemd-boot 252 starts it with
 * LoadImage (boot.c's image_start, through shim_load_image):
 *   - without shim, the firmware's security protocol verifies it: db
 *     vouches, dbx revokes (kt_chain_judge_firmware, EDK2's rules); nobody
 *     checks SBAT;
 *   - when shim started systemd-boot (the snapshot holds a run-time mirror
 *     only shim writes: SbatLevelRT or MokListRT), systemd-boot routes the
 *     check through shim_lock's Verify (shim_verify): db and MokListRT
 *     vouch, dbx and MokListXRT revoke, and the UKI's .sbat is held
 *     against the SbatLevel in force (verify_buffer_sbat).  shim's own
 *     vendor certificate is not in a snapshot: an image only it vouches for
 *     is judged without it (said in the reason). */
#include <errno.h>
#include <string.h>

#include "chain/chain.h"
#include "ktrust/efivars.h"
#include "ktrust/esl.h"
#include "ktrust/sbat.h"
#include "sbat/sbat.h"
#include "util/file.h"
#include "util/fmt.h"

static int no_entry(void *ctx, const struct kt_esl_entry *e)
{
    (void)ctx, (void)e;
    return 0;
}

/* A list the verdict depends on that cannot be read or does not parse:
 * no verdict on it (never the all-clear a missing dbx would give). */
static int usable(const struct kt_efivars *vars, enum kt_efivar_id id, struct kt_error *err)
{
    const struct kt_efivar *v = &vars->var[id];
    struct kt_error e = KT_ERROR_INIT;
    int rc = 0;
    if (v->state == KT_EFIVAR_UNREADABLE)
        e = v->error, rc = e.code ? e.code : -EIO;
    else if (v->state == KT_EFIVAR_PRESENT && id != KT_EFIVAR_SBAT_LEVEL_RT &&
             id != KT_EFIVAR_SBAT_LEVEL && v->raw_len > 4)
        rc = kt_esl_foreach(v->raw, v->raw_len, no_entry, NULL, &e);
    if (rc < 0)
        return kt_fail(err, rc, e.offset, "%s: %s", kt_efivar_name(id), e.what);
    return 0;
}

int kt_chain_uki_vars_check(const struct kt_efivars *vars, struct kt_error *err)
{
    static const enum kt_efivar_id need[] = {KT_EFIVAR_DB, KT_EFIVAR_DBX, KT_EFIVAR_MOKLIST,
                                             KT_EFIVAR_MOKLISTX, KT_EFIVAR_SBAT_LEVEL_RT,
                                             KT_EFIVAR_SBAT_LEVEL};
    for (size_t i = 0; vars && i < sizeof(need) / sizeof(need[0]); i++)
        KT_TRY(usable(vars, need[i], err));
    if (kt_chain_uki_via_shim(vars)) {
        struct kt_sbat_level level;
        const struct kt_efivar *which = NULL;
        struct kt_error e = KT_ERROR_INIT;
        int rc = kt_efivars_sbat_level(vars, &level, &which, &e);
        if (rc < 0)
            return kt_fail(err, rc, e.offset, "%s: %s", which ? which->path : "SbatLevel",
                           e.what);
        if (rc > 0)
            kt_sbat_level_free(&level);
    }
    return 0;
}

static bool present(const struct kt_efivars *v, enum kt_efivar_id id)
{
    return v && v->var[id].state == KT_EFIVAR_PRESENT && v->var[id].raw_len > 4;
}

bool kt_chain_uki_via_shim(const struct kt_efivars *vars)
{
    return present(vars, KT_EFIVAR_SBAT_LEVEL_RT) || present(vars, KT_EFIVAR_MOKLIST);
}

/* db with MokListRT, dbx with MokListXRT: shim_verify's lists. */
static int shim_lists(struct kt_chain *c, const struct kt_efivars *vars)
{
    KT_TRY(kt_chain_add_firmware(c, vars));
    struct kt_error e = KT_ERROR_INIT;
    if (present(vars, KT_EFIVAR_MOKLIST) &&
        kt_chain_add_db(c, vars->var[KT_EFIVAR_MOKLIST].raw, vars->var[KT_EFIVAR_MOKLIST].raw_len,
                        "MokListRT", &e) == -ENOMEM)
        return -ENOMEM;
    if (present(vars, KT_EFIVAR_MOKLISTX) &&
        kt_chain_add_dbx(c, vars->var[KT_EFIVAR_MOKLISTX].raw,
                         vars->var[KT_EFIVAR_MOKLISTX].raw_len, "MokListXRT", &e) == -ENOMEM)
        return -ENOMEM;
    return 0;
}

/* The UKI's .sbat against the snapshot's SbatLevel: 0, -EKEYREJECTED
 * (revoked, or no .sbat: shim_verify requires one), appended to l; or 1
 * and err when the level cannot be read (no verdict). */
static int sbat_check(const struct kt_efivars *vars, const uint8_t *buf, size_t len,
                      struct kt_chain_link *l, struct kt_error *err)
{
    struct kt_sbat_level level;
    const struct kt_efivar *which = NULL;
    struct kt_error e = KT_ERROR_INIT;
    size_t n = strlen(l->reason);
    int rc = kt_efivars_sbat_level(vars, &level, &which, &e);
    if (rc < 0) {
        kt_fail(err, rc, e.offset, "%s: %s", which ? which->path : "SbatLevel", e.what);
        return 1;
    }
    if (rc == 0) {
        kt_fmt(l->reason + n, sizeof(l->reason) - n, "; no SbatLevel: SBAT not checked");
        return 0;
    }
    struct kt_sbat *img = NULL;
    rc = kt_sbat_open_image(buf, len, &img, &e);
    if (rc == 0 && !kt_sbat_present(img))
        rc = kt_fail(&e, -EKEYREJECTED, KT_NO_OFFSET, "no .sbat section (shim requires one)");
    else if (rc == 0)
        rc = kt_sbat_check_level(img, &level, NULL, NULL, &e);
    if (rc < 0)
        kt_fmt(l->reason + n, sizeof(l->reason) - n, "; SBAT (level %s): %s",
               kt_sbat_level_stamp(&level), e.what);
    else
        kt_fmt(l->reason + n, sizeof(l->reason) - n, "; SBAT passes level %s",
               kt_sbat_level_stamp(&level));
    kt_sbat_close(img);
    kt_sbat_level_free(&level);
    return rc < 0 ? kt_sbat_fold(0, rc) : 0;
}

static int uki_buf(const struct kt_efivars *vars, const uint8_t *buf, size_t len,
                   const char *name, struct kt_chain_link *l, struct kt_error *err)
{
    KT_TRY(kt_chain_uki_vars_check(vars, err));
    if (!kt_chain_uki_via_shim(vars))
        return kt_chain_firmware_app_buf(vars, buf, len, name, l) == -ENOMEM ? -ENOMEM : 0;
    struct kt_chain *c;
    KT_TRY(kt_chain_new(&c));
    int rc = shim_lists(c, vars);
    if (rc == 0)
        rc = kt_chain_judge_firmware(c, buf, len, name, l, err);
    kt_chain_free(c);
    if (rc < 0)
        return rc;
    size_t n = strlen(l->reason);
    kt_fmt(l->reason + n, sizeof(l->reason) - n,
           " (through shim: db and MokListRT vouch, dbx and MokListXRT revoke; shim's vendor "
           "certificate is not in the variables)");
    int s = sbat_check(vars, buf, len, l, err);
    if (s > 0)
        return err->code;
    l->verdict = kt_verdict_worse(l->verdict, s);
    return 0;
}

int kt_chain_uki(const struct kt_efivars *vars, const char *path, struct kt_chain_link *l,
                 struct kt_error *err)
{
    struct kt_file f;
    KT_TRY(kt_file_open(path, &f, err));
    int rc = uki_buf(vars, f.data, f.len, path, l, err);
    kt_file_close(&f);
    return rc;
}
