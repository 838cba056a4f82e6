/* image_file.c - where a recomputer finds a boot image the log names: a
 * replacement the caller gives (new binaries to install), else the file on
 * the ESP (src/boot/esp.c), for PCR 4's digests and PCR 7's authorities. */
#include <errno.h>
#include <stdio.h>
#include <strings.h>

#include "boot/esp.h"
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

bool kt_evlog_has_images(const struct kt_evlog_predict_opts *o)
{
    return o->esp || o->n_swap;
}
