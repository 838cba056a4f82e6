/* edk2.c - the EDK2 firmware generations (edk2.h). */
#include "boot/edk2.h"

#include "util/fmt.h"

const char *kt_edk2_accepted_from(enum kt_edk2_change c)
{
    switch (c) {
    case KT_EDK2_CONTENT_INFO: return "edk2-stable202302";
    case KT_EDK2_SHA384_512: return "edk2-stable202311";
    case KT_EDK2_PK_NOT_SELF_SIGNED: return "edk2-stable202302";
    default: return NULL;
    }
}

const char *kt_edk2_note(enum kt_edk2_change c, char *buf, size_t cap)
{
    const char *from = kt_edk2_accepted_from(c);
    if (!from) {
        if (cap)
            buf[0] = 0;
        return buf;
    }
    kt_fmt(buf, cap, "refused by %s, accepted from %s%s", KT_EDK2_MODELLED, from,
           c == KT_EDK2_PK_NOT_SELF_SIGNED ? " unless the platform sets PcdRequireSelfSignedPk"
                                           : "");
    return buf;
}
