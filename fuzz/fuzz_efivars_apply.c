/* fuzz_efivars_apply.c - a signed update applied to a variable state:
 * input = u16 LE length L, L bytes of an existing db variable (efivarfs
 * form, attribute word first), then the update.  The state has no PK (setup
 * mode), so a well-signed update reaches the write path (the append filter
 * walks both the old data and the payload). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "efivars/efivars.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t l = (size_t)data[0] | (size_t)data[1] << 8;
    if (l > size - 2)
        l = size - 2;
    struct kt_efivars s;
    memset(&s, 0, sizeof(s));
    struct kt_efivar *db = &s.var[KT_EFIVAR_DB];
    if (l) {
        db->raw = malloc(l);
        if (!db->raw)
            return 0;
        memcpy(db->raw, data + 2, l);
        db->raw_len = l;
        db->state = KT_EFIVAR_PRESENT;
    }
    struct kt_efivars_change c;
    int rc = kt_efivars_apply(&s, data + 2 + l, size - 2 - l, &c);
    if (rc < 0 && !c.error.what[0])
        abort(); /* not applied without a reason */
    if (rc == 0 && c.target >= KT_EFIVAR__COUNT)
        abort(); /* applied to no variable */
    kt_efivars_change_free(&c);
    kt_efivars_free(&s);
    return 0;
}
