/* `keyring add` of a signed EFI variable update: verify first. */
#include <stdio.h>
#include <string.h>

#include "authvar/authvar.h"
#include "cli.h"
#include "update_check.h"
#include "util/file.h"

int cli_update_auth_add(struct cli_update_auth *a, bool pk, const char *path)
{
    size_t *n = pk ? &a->npk : &a->nkek;
    if (*n >= CLI_UPDATE_MAX_AUTH) {
        fprintf(stderr, "ktrust: too many --%s options (at most %d)\n", pk ? "pk" : "kek",
                CLI_UPDATE_MAX_AUTH);
        return -1;
    }
    (pk ? a->pk : a->kek)[(*n)++] = path;
    return 0;
}

static int load(struct kt_certset *s, const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct kt_file f = {0};
        struct kt_error e = KT_ERROR_INIT;
        int rc = kt_file_open(paths[i], &f, &e);
        if (rc == 0)
            rc = kt_certset_add(s, f.data, f.len, &e);
        kt_file_close(&f);
        if (rc < 0) {
            cli_error(paths[i], &e);
            return cli_exit_code(rc);
        }
    }
    return 0;
}

int cli_update_check(const char *path, const char *keyring, const struct cli_update_auth *a,
                     bool quiet)
{
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    if (kt_file_open(path, &f, &e) < 0)
        return 0; /* the add itself reports the unreadable file */
    if (!kt_authvar_looks_like(f.data, f.len)) {
        kt_file_close(&f);
        return 0;
    }
    const char *var = !strcmp(keyring, "blacklist") ? "dbx" : "db";
    if (!a->npk && !a->nkek) {
        if (!quiet)
            cli_errorf(path, "note: a signed %s update, NOT verified (give --kek or --pk to "
                             "check who signed it)", var);
        kt_file_close(&f);
        return 0;
    }
    struct kt_certset pk = {0}, kek = {0};
    struct kt_authvar v;
    struct kt_authvar_result res = {0};
    int code = load(&pk, a->pk, a->npk);
    if (!code)
        code = load(&kek, a->kek, a->nkek);
    if (!code) {
        int rc = kt_authvar_parse(f.data, f.len, &v, &e);
        if (rc == 0) {
            rc = kt_authvar_verify(&v, var, NULL, &pk, &kek, &res);
            e = res.error;
        }
        if (rc < 0) {
            cli_errorf(path, "signed %s update refused: %s", var, e.what);
            code = cli_exit_code(rc);
        } else if (!quiet) {
            cli_errorf(path, "note: signed %s update verified (%s write, signed by %s)", var,
                       res.append ? "append" : "replace",
                       res.authority[0] && res.authority[0]->description
                           ? res.authority[0]->description : "?");
        }
    }
    kt_authvar_result_free(&res);
    kt_certset_free(&pk);
    kt_certset_free(&kek);
    kt_file_close(&f);
    return code;
}
