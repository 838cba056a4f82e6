/* esl_svn.c - dbx SVN records; EFI GUIDs as text. */
#include <stdio.h>
#include <string.h>

#include "esl/esl_svn.h"
#include "util/le.h"

/* 9d132b6c-59d5-4388-ab1c-185cfcb2eb92 */
const uint8_t kt_esl_svn_owner[16] = {0x6c, 0x2b, 0x13, 0x9d, 0xd5, 0x59, 0x88, 0x43,
                                      0xab, 0x1c, 0x18, 0x5c, 0xfc, 0xb2, 0xeb, 0x92};

bool kt_esl_is_svn(const struct kt_esl_entry *e)
{
    return e->type == KT_ESL_SHA256 && e->owner && e->data.len == 32 &&
           memcmp(e->owner, kt_esl_svn_owner, 16) == 0;
}

int kt_esl_svn_parse(const struct kt_esl_entry *e, struct kt_esl_svn *out)
{
    if (!kt_esl_is_svn(e))
        return -EINVAL;
    /* u8 version; GUID application; u16 minor; u16 major; 11 reserved bytes */
    kt_le c;
    const uint8_t *guid, *reserved;
    kt_le_init(&c, e->data.p, e->data.len, NULL); /* 32 bytes */
    kt_le_u8(&c, &out->version, NULL);
    kt_le_bytes(&c, 16, &guid, NULL);
    memcpy(out->guid, guid, 16);
    kt_le_u16(&c, &out->minor, NULL);
    kt_le_u16(&c, &out->major, NULL);
    kt_le_bytes(&c, 11, &reserved, NULL);
    out->reserved_zero = true;
    for (int i = 0; i < 11; i++)
        if (reserved[i])
            out->reserved_zero = false;
    return 0;
}

char *kt_guid_str(const uint8_t g[16], char *buf)
{
    snprintf(buf, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12],
             g[13], g[14], g[15]);
    return buf;
}
