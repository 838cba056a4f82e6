/* devpath.h - UEFI device paths and load options, decoded once through
 * the kt_le cursor: for the event log's image events and for the
 * firmware's Boot#### variables. */
#ifndef KT_BOOT_DEVPATH_H
#define KT_BOOT_DEVPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/le.h"

/* The device path in dp (UEFI 2.10 10.3: nodes of type, subtype, length,
 * up to the end node) as EDK2-style text ("PciRoot(0x0)/Pci(0x2,0x0)/
 * \EFI\BOOT\BOOTX64.EFI", instances separated by ',') into text, and the
 * file its first instance's media file-path nodes name (UEFI 10.3.5.4:
 * several nodes are opened one inside the other, so they are joined with
 * '\'), as written, into file.  Either output may be NULL; text and file
 * hold ASCII ('?' for other characters), truncated to fit.  0, or -EBADMSG
 * when a node is shorter than its header or runs past dp. */
int kt_devpath_decode(kt_le *dp, char *text, size_t text_cap, char *file, size_t file_cap);

/* An EFI_LOAD_OPTION (UEFI 2.10 3.1.3), the content of a Boot#### variable. */
struct kt_load_option {
    uint32_t attributes;
    bool active;           /* LOAD_OPTION_ACTIVE */
    bool boot_category;    /* LOAD_OPTION_CATEGORY is BOOT (0), not APP (0x100) */
    char description[128]; /* printable ASCII ('?' for the rest) */
    char file[512];        /* the file path list's file, '\'-separated as stored ("" none) */
};
/* Parse p (len bytes) into o.  0, or -EBADMSG (truncated, a description
 * without its NUL, a file path list past the end, a bad node). */
int kt_load_option_parse(const uint8_t *p, size_t len, struct kt_load_option *o);

#endif
