/* esp_path.c - a device path's file ("\EFI\BOOT\BOOTX64.EFI") found under
 * an ESP directory, each component matched without regard to case (FAT). */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "eventlog/esp_path.h"

int kt_evlog_esp_file(const char *esp, const char *file, char *out, size_t cap)
{
    char comp[256];
    size_t n = (size_t)snprintf(out, cap, "%s", esp);
    if (n >= cap)
        return -ENAMETOOLONG;
    const char *p = file;
    while (*p) {
        while (*p == '\\' || *p == '/')
            p++;
        size_t k = 0;
        while (p[k] && p[k] != '\\' && p[k] != '/')
            k++;
        if (!k)
            break;
        if (k >= sizeof(comp) || (k == 2 && !strncmp(p, "..", 2)))
            return -ENOENT;
        memcpy(comp, p, k);
        comp[k] = 0;
        p += k;
        DIR *d = opendir(out);
        if (!d)
            return -ENOENT;
        struct dirent *de;
        const char *hit = NULL;
        while ((de = readdir(d)))
            if (!strcasecmp(de->d_name, comp)) {
                hit = de->d_name;
                break;
            }
        int w = hit ? snprintf(out + n, cap - n, "/%s", hit) : 0;
        closedir(d);
        if (!hit)
            return -ENOENT;
        if ((size_t)w >= cap - n)
            return -ENAMETOOLONG;
        n += (size_t)w;
    }
    return 0;
}
