/* fuzz_audit_boot.c - EFI_LOAD_OPTION parsing for `audit`'s boot entries:
 * never reads past the input, strings always terminated, the file path
 * '/'-separated and printable. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct kt_audit_boot b;
    memset(&b, 0, sizeof(b));
    if (kt_audit_load_option(data, size, &b) < 0)
        return 0;
    if (strnlen(b.description, sizeof(b.description)) == sizeof(b.description) ||
        strnlen(b.file, sizeof(b.file)) == sizeof(b.file))
        abort();
    for (const char *p = b.file; *p; p++)
        if (*p == '\\' || *p < 0x20 || *p > 0x7e)
            abort();
    return 0;
}
