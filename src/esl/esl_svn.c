/* esl_svn.c - dbx SVN records; EFI GUIDs as text. */
#include <stdio.h>
#include <string.h>

#include "esl/esl_svn.h"

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
    const uint8_t *p = e->data.p;
    out->version = p[0];
    memcpy(out->guid, p + 1, 16);
    out->minor = (uint16_t)(p[17] | p[18] << 8);
    out->major = (uint16_t)(p[19] | p[20] << 8);
    out->reserved_zero = true;
    for (int i = 21; i < 32; i++)
        if (p[i])
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
