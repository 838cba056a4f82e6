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
    const char *uki; /* --uki: the UKI that boots, for signed policies */
    char **luks;
    size_t n_luks;
};

/* argv: NEW_SHIM [NEW_LOADER ...].  Returns the exit code: 0 they boot, 5
 * they do not, 4/66 an input ("cannot answer"), 69 no EFI variables where
 * the system keeps them, 64 usage (the sealed keys' verdicts are reported,
 * not folded in: unseal-check's exit code says them). */
struct cli_apply;
/* Where the machine is: --efivars, --root, --esp (each NULL when not given),
 * the --apply files, the sealed keys to check. */
struct cli_install_in {
    const char *efivars, *root, *esp;
    struct cli_apply *apply;
    const struct cli_install_seal *seal;
};
int cli_check_install(int argc, char **argv, const struct cli_install_in *in, bool json,
                      bool quiet);

#endif
