/* esp.h - the one lookup of a file on an EFI System Partition. */
#ifndef KT_BOOT_ESP_H
#define KT_BOOT_ESP_H

#include <stddef.h>

#include "util/err.h"

/* ESP + PATH (components separated by '/' or '\', as a device path's file
 * node writes them) as firmware opens it on that FAT volume: each
 * component matched without regard to case (the exact name first), "." and
 * ".." in PATH refused, and never a file outside the ESP: a symbolic link
 * (a copied or saved ESP may hold one; FAT holds none) is followed only
 * when its target is relative and stays on the ESP; an absolute target or
 * one whose ".." climbs above the ESP's top is refused (-EXDEV).  At most
 * 40 links.  out: ESP then the real path ("/EFI/debian/shimx64.efi", no
 * link in it); on failure where it was looked for.  st: the final object's
 * stat (may be NULL).  Returns 0, -ENOENT, -ENOTDIR, -EXDEV, -ELOOP,
 * -ENAMETOOLONG, or open/stat's error. */
struct stat;
int kt_esp_resolve(const char *esp, const char *path, char *out, size_t cap, struct stat *st);

/* kt_esp_resolve that must end on a regular file: 0, or a negative errno
 * (-EISDIR / -ENODEV when it is a directory / something else). */
int kt_esp_file(const char *esp, const char *path, char *out, size_t cap);

#endif
