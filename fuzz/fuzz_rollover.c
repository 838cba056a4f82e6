/* fuzz_rollover.c - audit's rollover "what if" states from arbitrary db,
 * dbx and PK bytes: the copies are built without reading past the input,
 * a db that parses gives a db without UEFI CA 2011 that parses too, with
 * no more entries, and the dbx with UEFI CA 2011 added parses whenever the
 * original did; the section itself (CAs held, PK, findings) never crashes.
 * The first byte splits the input between db and dbx. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit/rollover.h"
#include "esl/esl.h"

static int count(void *ctx, const struct kt_esl_entry *e)
{
    (void)e;
    (*(size_t *)ctx)++;
    return 0;
}

static int entries(const struct kt_efivar *v, size_t *n)
{
    struct kt_error e = KT_ERROR_INIT;
    *n = 0;
    return v->state == KT_EFIVAR_PRESENT ? kt_esl_foreach(v->raw, v->raw_len, count, n, &e) : 0;
}

static void set(struct kt_efivar *v, const uint8_t *p, size_t len)
{
    v->state = KT_EFIVAR_PRESENT;
    v->raw = malloc(len + 4);
    memcpy(v->raw, "\x27\0\0\0", 4);
    memcpy(v->raw + 4, p, len);
    v->raw_len = len + 4;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t cut = size > 1 ? data[0] * (size - 1) / 255 : 0;
    static struct kt_efivars vars;
    memset(&vars, 0, sizeof(vars));
    set(&vars.var[KT_EFIVAR_DB], data + 1, cut);
    set(&vars.var[KT_EFIVAR_DBX], data + 1 + cut, size - 1 - cut);
    set(&vars.var[KT_EFIVAR_PK], data + 1, size - 1);
    struct kt_rollover_states st;
    if (kt_rollover_states_build(&st, &vars) == 0) {
        size_t n0, n1, x0, x1;
        int db_rc = entries(&vars.var[KT_EFIVAR_DB], &n0);
        int nd_rc = entries(&st.v[KT_ROLLOVER_NO_2011]->var[KT_EFIVAR_DB], &n1);
        if (db_rc == 0 && (nd_rc != 0 || n1 > n0))
            abort();
        int dbx_rc = entries(&vars.var[KT_EFIVAR_DBX], &x0);
        int ax_rc = entries(&st.v[KT_ROLLOVER_2011_IN_DBX]->var[KT_EFIVAR_DBX], &x1);
        if (dbx_rc == 0 && (ax_rc != 0 || x1 != x0 + 1))
            abort();
    }
    kt_rollover_states_free(&st);
    static struct kt_audit a;
    memset(&a, 0, sizeof(a));
    a.found[KT_AUDIT_EFIVARS] = true;
    struct kt_audit_opts o = {.root = "/nonexistent"};
    struct kt_error e = KT_ERROR_INIT;
    static struct kt_audit_snap snap; /* the variables alone: no files, no log */
    memset(&snap, 0, sizeof(snap));
    snap.vars = vars;
    snap.log_rc = -ENOENT;
    for (int i = 0; i < KT_AUDIT__LINKS; i++)
        snap.file_rc[i] = -ENOENT;
    kt_audit_rollover(&a, &o, &snap, &e);
    kt_efivars_free(&vars);
    return 0;
}
