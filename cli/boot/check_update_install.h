/* check_update_install.h - `check-update --install`. */
#ifndef KT_CLI_CHECK_UPDATE_INSTALL_H
#define KT_CLI_CHECK_UPDATE_INSTALL_H

#include <stdbool.h>

#include <stddef.h>

/* The TPM-sealed keys checked against the PCRs the new binaries give:
 * --eventlog (NULL: the system's when readable), --luks sources (none:
 * /etc/crypttab's volumes). */
struct cli_install_seal {
    const char *log;
    char **luks;
    size_t n_luks;
};

/* argv: NEW_SHIM [NEW_LOADER ...].  efivars / root may be NULL.  Returns
 * the exit code: 0 they boot, 5 they do not, 4/66 an input, 64 usage (the
 * sealed keys' verdicts are reported, not folded in: unseal-check's exit
 * code says them). */
struct cli_apply;
int cli_check_install(int argc, char **argv, const char *efivars, const char *root,
                      const struct cli_apply *apply, const struct cli_install_seal *seal,
                      bool json, bool quiet);

#endif
