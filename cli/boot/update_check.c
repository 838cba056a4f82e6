/* `keyring add` of a signed EFI variable update: verify first. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "update_check.h"
#include "ktrust/advanced.h"

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

static int load(struct kt_var_keys *keys, bool kek, const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct kt_file f = {0};
        struct kt_error e = KT_ERROR_INIT;
        int rc = kt_file_open(paths[i], &f, &e);
        if (rc == 0)
            rc = kt_var_keys_add(keys, kek, f.data, f.len, &e);
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
    const char *var = !strcmp(keyring, "blacklist") ? "dbx" : "db";
    struct kt_var_keys *keys = NULL;
    struct kt_result *res = NULL;
    int code = kt_var_keys_new(&keys) < 0 ? EXIT_INTERNAL : 0;
    if (!code)
        code = load(keys, false, a->pk, a->npk);
    if (!code)
        code = load(keys, true, a->kek, a->nkek);
    struct kt_policy pol = {.type = KT_VERIFY_VAR, .var_name = var, .var_keys = keys};
    int rc = code ? 0 : kt_verify_buf(NULL, path, f.data, f.len, &pol, &res, &e);
    const struct kt_var_update *u = res ? kt_result_var(res) : NULL;
    if (code || !u || !u->parsed) {
        /* not a signed update (or the keys could not be read: said) */
    } else if (!a->npk && !a->nkek) {
        if (!quiet)
            cli_errorf(path, "note: a signed %s update, NOT verified (give --kek or --pk to "
                             "check who signed it)", var);
    } else if (rc < 0) {
        cli_errorf(path, "signed %s update refused: %s", var, e.what);
        code = cli_exit_code(rc);
    } else if (!quiet) {
        const char *by = kt_result_signer_count(res) ? kt_result_signer_trusted_by(res, 0) : NULL;
        cli_errorf(path, "note: signed %s update verified (%s write, signed by %s)", var,
                   u->append ? "append" : "replace", by ? by : "?");
    }
    kt_result_free(res);
    kt_var_keys_free(keys);
    kt_file_close(&f);
    return code;
}
