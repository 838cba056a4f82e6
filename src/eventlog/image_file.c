/* image_file.c - where a recomputer finds a boot image the log names: a
 * replacement the caller gives (new binaries to install), else the file on
 * the ESP (src/boot/esp.c), for PCR 4's digests and PCR 7's authorities;
 * and the firmware's verdict on it (which db entry Tcg2Dxe logs). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "boot/esp.h"
#include "chain/chain.h"
#include "eventlog/recompute.h"

/* The log's path and a swap's, case-blind, '\' and '/' alike. */
static bool same_path(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a == '/' ? '\\' : *a, y = *b == '/' ? '\\' : *b;
        if (x != y && !(x >= 'A' && x <= 'Z' && x + 32 == y) && !(y >= 'A' && y <= 'Z' && y + 32 == x))
            return false;
    }
    return !*a && !*b;
}

int kt_evlog_image_file(const struct kt_evlog_predict_opts *o, const char *file, char *path,
                        size_t cap)
{
    for (size_t i = 0; i < o->n_swap; i++)
        if (same_path(o->swap[i].log_path, file))
            return snprintf(path, cap, "%s", o->swap[i].file) < (int)cap ? 0 : -ENAMETOOLONG;
    return o->esp ? kt_esp_resolve(o->esp, file, path, cap, NULL) : -ENOENT;
}

int kt_evlog_firmware_link(const struct kt_efivars *vars, const char *path, struct kt_chain_link *l)
{
    if (kt_chain_firmware(vars, path, l) == 0)
        return 0;
    struct kt_chain_link app;
    memset(&app, 0, sizeof(app));
    if (kt_chain_firmware_app(vars, path, &app) != 0)
        return l->verdict;
    *l = app;
    return 0;
}

bool kt_evlog_has_images(const struct kt_evlog_predict_opts *o)
{
    return o->esp || o->n_swap;
}
