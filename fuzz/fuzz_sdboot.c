/* fuzz_sdboot.c - systemd-boot's configuration text as systemd 252 reads
 * it: a Type #1 entry, loader.conf, and the version order and glob the menu
 * and the default use (the input split at its first NUL into two strings). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sdboot/sdboot.h"

static void count(void *ctx, unsigned line, const char *reason)
{
    (void)line;
    if (!reason || !reason[0])
        abort();
    ++*(size_t *)ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kt_sdboot_entry *e = malloc(sizeof(*e));
    char why[200];
    size_t problems = 0;
    if (!e)
        return 0;
    int keep = kt_sdboot_entry_parse((const char *)data, size, "Fuzz+3-1.conf", e, count, &problems,
                                     why, sizeof(why));
    if (keep < 0 || (keep == 0 && !why[0]) || (keep == 1 && e->image[0] != '/'))
        abort();
    if (e->tries_left != 3 || e->tries_done != 1 || strcmp(e->id, "fuzz+3-1.conf"))
        abort();
    free(e);
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    struct kt_sdboot_conf c;
    memset(&c, 0, sizeof(c));
    kt_sdboot_conf_parse(text, &c, count, &problems);
    memcpy(text, data, size);
    size_t n = strnlen(text, size);
    const char *b = n < size ? text + n + 1 : "";
    int r = kt_sdboot_verscmp(text, b), q = kt_sdboot_verscmp(b, text);
    if ((r > 0) != (q < 0) || (r == 0) != (q == 0))
        abort(); /* an order */
    kt_sdboot_fnmatch(text, b);
    free(text);
    return 0;
}
