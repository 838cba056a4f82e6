/* fuzz_imalist.c - the IMA measurement list: both forms (detected), every
 * entry through the hook, the replay in sha1 and sha256, the boot_aggregate
 * against no values; every failure names a field and an offset inside the
 * input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ima/imalist.h"

static int each(void *arg, const struct kt_ima_entry *e)
{
    size_t size = *(const size_t *)arg;
    if (e->pcr >= KT_EVLOG_PCRS || e->offset >= size || strlen(e->template_name) > 255)
        abort();
    if (e->decoded && e->file_digest.len && !e->file_digest.p)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kt_ima_summary *s = malloc(sizeof(*s));
    if (!s)
        return 0;
    struct kt_ima_opts o = {.detect = true, .each = each, .arg = &size};
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_ima_replay(data, size, &o, s, &e);
    if (rc < 0) {
        if (rc != -EBADMSG && rc != -ENOMEM && rc != -E2BIG)
            abort();
        if (rc == -EBADMSG && (e.what[0] == 0 || (e.offset != KT_NO_OFFSET && e.offset > size)))
            abort();
    } else {
        uint8_t d[KT_EVLOG_MAX_DIGEST];
        (void)kt_ima_boot_aggregate_check(s, NULL, NULL, d);
        if (s->entries > size)
            abort();
    }
    free(s);
    return 0;
}
