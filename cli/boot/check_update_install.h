/* check_update_install.h - `check-update --install`. */
#ifndef KT_CLI_CHECK_UPDATE_INSTALL_H
#define KT_CLI_CHECK_UPDATE_INSTALL_H

#include <stdbool.h>

/* argv: NEW_SHIM [NEW_LOADER ...].  Returns the exit code: 0 they boot, 5
 * they do not, 4/66 an input ("cannot answer"), 69 no EFI variables where
 * the system keeps them, 64 usage. */
struct cli_apply;
/* Where the machine is: --efivars, --root, --esp (each NULL when not given),
 * the --apply files. */
struct cli_install_in {
    const char *efivars, *root, *esp;
    struct cli_apply *apply;
};
int cli_check_install(int argc, char **argv, const struct cli_install_in *in, bool json,
                      bool quiet);

#endif
