/* test_plan.c - the plan of signed updates (src/plan, kt_plan_run) on a
 * machine made here (openssl keys; efitools' cert-to-efi-sig-list and
 * sign-efi-sig-list as the independent signer): the order is KEK, db, dbx,
 * PK whatever the walk order; a db update signed under a KEK that only an
 * earlier step adds applies after that step (and not on the state before
 * it); a KEK update signed by another PK is refused with its reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "efivars/efivars.h"
#include "kt_test.h"
#include "ktrust/plan.h"

static char dir[256];

static int sh(const char *fmt, const char *arg)
{
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), fmt, arg, arg, arg, arg, arg, arg, arg, arg);
    return system(cmd);
}

/* keys pk, pk2, kek, kek2, other; vars/ (PK pk, KEK kek, db empty of them);
 * up/ with the updates named so that the walk (name order) is the reverse
 * of the plan's order */
static int make_machine(void)
{
    static const char script[] =
        "cd '%s' && G=11111111-2222-3333-4444-555555555555 &&"
        " GL=8be4df61-93ca-11d2-aa0d-00e098032b8c && DB=d719b2cb-3d3a-4596-a3bc-dad00e67656f &&"
        " for k in pk pk2 kek kek2 other dbca dbxca; do"
        "  openssl req -x509 -newkey rsa:2048 -nodes -keyout $k.key -out $k.pem -days 3650"
        "   -subj \"/CN=Plan unit $k\" 2>/dev/null &&"
        "  cert-to-efi-sig-list -g $G $k.pem $k.esl >/dev/null || exit 1; done &&"
        " mkdir vars up &&"
        " { printf '\\047\\0\\0\\0'; cat pk.esl; } > vars/PK-$GL &&"
        " { printf '\\047\\0\\0\\0'; cat kek.esl; } > vars/KEK-$GL &&"
        " { printf '\\047\\0\\0\\0'; cat dbca.esl; } > vars/db-$DB &&"
        " s() { sign-efi-sig-list $5 -g $G -t '2024-01-01 00:00:00' -k $2.key -c $2.pem $1 $3 $4"
        "   >/dev/null 2>&1; } &&"
        " s PK pk pk2.esl up/a_pk.bin '' &&"
        " s dbx kek dbxca.esl up/b_dbx.bin -a &&"
        " s db kek2 kek2.esl up/c_db.bin -a &&"
        " s KEK pk kek2.esl up/d_kek.bin -a &&"
        " s KEK other kek2.esl up/e_other.bin -a";
    return sh(script, dir);
}

static const struct kt_plan_file *file(const struct kt_plan *p, const char *name)
{
    for (size_t i = 0; i < p->n_files; i++) {
        const char *b = strrchr(p->files[i].path, '/');
        if (b && !strcmp(b + 1, name))
            return &p->files[i];
    }
    return NULL;
}

static const char *base(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

int main(void)
{
    if (system("command -v sign-efi-sig-list >/dev/null && command -v cert-to-efi-sig-list "
               ">/dev/null && command -v openssl >/dev/null") != 0) {
        printf("skipped: efitools or openssl not installed\n");
        return 77;
    }
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof(dir), "%s/kt-plan.XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    CHECK(make_machine() == 0, "the machine and its updates were made");
    char vars_dir[300], up[300];
    snprintf(vars_dir, sizeof(vars_dir), "%s/vars", dir);
    snprintf(up, sizeof(up), "%s/up", dir);
    struct kt_efivars vars;
    struct kt_error e = KT_ERROR_INIT;
    CHECK_EQ_INT(kt_efivars_read(vars_dir, &vars, &e), 0, "read the variables");

    /* the db update verifies only under kek2: not on the state as it is */
    char path[400];
    snprintf(path, sizeof(path), "%s/c_db.bin", up);
    struct kt_efivars copy;
    struct kt_efivars_change c;
    CHECK_EQ_INT(kt_efivars_copy(&vars, &copy), 0, "copy");
    CHECK_EQ_INT(kt_efivars_apply_file(&copy, path, &c), -ENOKEY, "c_db.bin before the KEK step");
    CHECK_EQ_INT(c.target, KT_EFIVAR_DB, "its variable is known all the same");
    kt_efivars_change_free(&c);
    kt_efivars_free(&copy);

    const char *updates[] = {up};
    struct kt_plan_opts o = {.vars = &vars, .updates = updates, .n_updates = 1};
    struct kt_plan p;
    CHECK_EQ_INT(kt_plan_run(&o, &p, &e), 0, "plan");
    CHECK_EQ_INT(p.n_files, 5, "five updates found");
    static const char *const want[] = {"d_kek.bin", "c_db.bin", "b_dbx.bin", "a_pk.bin"};
    CHECK_EQ_INT(p.n_steps, 4, "four steps");
    for (size_t i = 0; i < p.n_steps && i < 4; i++)
        CHECK_EQ_STR(base(p.files[p.order[i]].path), want[i], "KEK, db, dbx, PK");
    const struct kt_plan_file *db = file(&p, "c_db.bin");
    CHECK(db && db->applies && db->step == 2, "the db update applies at step 2, after the KEK step");
    CHECK(db && strstr(db->change.authority, "Plan unit kek2"), "under the new KEK: %s",
          db ? db->change.authority : "");
    const struct kt_plan_file *pk = file(&p, "a_pk.bin");
    CHECK(pk && pk->step == 4 && pk->change.target == KT_EFIVAR_PK && !pk->change.append,
          "the PK replacement is the last step");
    const struct kt_plan_file *other = file(&p, "e_other.bin");
    CHECK(other && !other->applies && other->step == 0, "another PK's KEK update is refused");
    CHECK(other && other->change.verdict == -ENOKEY && other->change.target == KT_EFIVAR_KEK,
          "refused: no authority (-ENOKEY) for a KEK write");
    CHECK(other && !strncmp(other->reason, "does not apply: ", 16) &&
              strstr(other->reason, "is not the PK"),
          "its reason: %s", other ? other->reason : "");
    CHECK_EQ_INT(p.breaks_step, 0, "no ESP: no step breaks a chain");
    CHECK(!p.before.checked && !p.after[0].checked, "no ESP judged");
    /* the final state: KEK holds kek2, PK is pk2 */
    size_t len;
    const uint8_t *kek = kt_efivar_data(&p.final.var[KT_EFIVAR_KEK], &len);
    CHECK(kek && len > 0, "KEK after the plan");
    kt_plan_free(&p);
    kt_efivars_free(&vars);

    sh("rm -rf '%s'", dir);
    KT_TEST_END();
}
