/* esl_svn.c - dbx SVN records and GUID text (see esl_svn.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "esl/esl_svn.h"

/* 9d132b6c-59d5-4388-ab1c-185cfcb2eb92 */
const uint8_t kt_esl_guid_svn_owner[16] = {0x6c, 0x2b, 0x13, 0x9d, 0xd5, 0x59, 0x88, 0x43,
                                           0xab, 0x1c, 0x18, 0x5c, 0xfc, 0xb2, 0xeb, 0x92};

bool kt_esl_is_svn(const struct kt_esl_entry *e)
{
    return e && e->type == KT_ESL_SHA256 && e->owner &&
           !memcmp(e->owner, kt_esl_guid_svn_owner, 16);
}

int kt_esl_svn_parse(const struct kt_esl_entry *e, struct kt_esl_svn *out, struct kt_error *err)
{
    if (!kt_esl_is_svn(e))
        return kt_fail(err, -EBADMSG, e ? e->offset : KT_NO_OFFSET, "not an SVN record");
    if (e->data.len < 21)
        return kt_fail(err, -EBADMSG, e->offset, "SVN record: %zu bytes, want at least 21",
                       e->data.len);
    const uint8_t *p = e->data.p;
    out->version = p[0];
    memcpy(out->guid, p + 1, 16);
    out->minor = (uint16_t)(p[17] | p[18] << 8);
    out->major = (uint16_t)(p[19] | p[20] << 8);
    return 0;
}

char *kt_esl_guid_str(const uint8_t g[16], char out[37])
{
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", g[3],
             g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12], g[13],
             g[14], g[15]);
    return out;
}
