/* esp_path.h - find a device path's file under an ESP directory. */
#ifndef KT_EVENTLOG_ESP_PATH_H
#define KT_EVENTLOG_ESP_PATH_H

#include <stddef.h>

#include "util/err.h"

/* esp + file ('\' or '/' separated), each component matched case-blind;
 * the path into out.  0, -ENOENT, -ENAMETOOLONG. */
int kt_evlog_esp_file(const char *esp, const char *file, char *out, size_t cap);

#endif
