/* evlog_load.h - the last boot's event log for the commands that predict
 * from it on the side (plan-updates, check-update --install): the one
 * given, else the system's when it can be read. */
#ifndef KT_CLI_EVLOG_LOAD_H
#define KT_CLI_EVLOG_LOAD_H

#include <stdbool.h>

#include "ktrust/eventlog.h"
#include "util/file.h"

struct cli_evlog {
    struct kt_file file;
    struct kt_evlog log;
    bool have;
};

/* path (an error when it cannot be read or parsed), else the system's
 * when it can be read (silently none): under root, or the live one when
 * the variables are the live ones (never with efivars alone: another
 * machine's variables, and offline reads nothing of the host).  Returns 0
 * or the exit code after the error line; cli_evlog_free either way. */
int cli_evlog_load(const char *path, const char *root, const char *efivars, struct cli_evlog *l);
void cli_evlog_free(struct cli_evlog *l);

#endif
