/* evlog_load.c - the last boot's event log, given or the system's
 * (evlog_load.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "evlog_load.h"
#include "ktrust/boot.h"

int cli_evlog_load(const char *path, const char *root, const char *efivars, struct cli_evlog *l)
{
    char def[4200];
    bool given = path != NULL;
    memset(l, 0, sizeof(*l));
    if (!path && efivars && !root)
        return 0;
    if (!path) {
        kt_sys_path_under(root, KT_SYS_EVENTLOG, def, sizeof(def));
        if (access(def, R_OK) != 0)
            return 0;
        path = def;
    }
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(path, &l->file, &e);
    if (rc == 0)
        rc = kt_evlog_parse(l->file.data, l->file.len, &l->log, &e);
    if (rc < 0) {
        if (rc != -ENOENT || given)
            cli_error(path, &e);
        kt_evlog_free(&l->log); /* also after a failed parse */
        kt_file_close(&l->file);
        memset(l, 0, sizeof(*l));
        return given || rc != -ENOENT ? cli_exit_code(rc) : 0;
    }
    l->have = true;
    return 0;
}

void cli_evlog_free(struct cli_evlog *l)
{
    if (l->have) {
        kt_evlog_free(&l->log);
        kt_file_close(&l->file);
    }
    l->have = false;
}
