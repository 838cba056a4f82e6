/* check_update_install.h - `check-update --install`. */
#ifndef KT_CLI_CHECK_UPDATE_INSTALL_H
#define KT_CLI_CHECK_UPDATE_INSTALL_H

#include <stdbool.h>

/* argv: NEW_SHIM [NEW_LOADER ...].  efivars / root may be NULL.  Returns
 * the exit code: 0 they boot, 5 they do not, 4/66 an input, 64 usage. */
struct cli_apply;
int cli_check_install(int argc, char **argv, const char *efivars, const char *root,
                      struct cli_apply *apply, bool json,
                      bool quiet);

#endif
