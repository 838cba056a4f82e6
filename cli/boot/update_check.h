/* update_check.h - `keyring add` of a signed EFI variable update
 * (EFI_VARIABLE_AUTHENTICATION_2): verify it first when --pk/--kek are given,
 * and say plainly when it was not verified. */
#ifndef KT_CLI_UPDATE_CHECK_H
#define KT_CLI_UPDATE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#define CLI_UPDATE_MAX_AUTH 16

struct cli_update_auth {
    const char *pk[CLI_UPDATE_MAX_AUTH], *kek[CLI_UPDATE_MAX_AUTH];
    size_t npk, nkek;
};

/* Add an authority file; -1 (after a message) when there are too many. */
int cli_update_auth_add(struct cli_update_auth *a, bool pk, const char *path);

/* If path is a signed update: verify it as a dbx update (keyring
 * "blacklist") or a db update (any other keyring) with a's certificates.
 * Returns 0 to go on (not an update; verified; or no authority given, which
 * is said on stderr unless quiet), else the exit code of the refusal (the
 * reason printed). */
int cli_update_check(const char *path, const char *keyring, const struct cli_update_auth *a,
                     bool quiet);

#endif
