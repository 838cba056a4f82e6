/* esl_svn.h - SVN records in a dbx: EFI_CERT_SHA256 entries whose owner is
 * the SVN GUID 9d132b6c-59d5-4388-ab1c-185cfcb2eb92 are not image hashes but
 * {u8 version; EFI_GUID application; u16 minor; u16 major; zero padding}
 * (Microsoft's dbx SVN data: "bootmgfw.efi SVN 9.0"); and EFI_GUID text. */
#ifndef KT_ESL_ESL_SVN_H
#define KT_ESL_ESL_SVN_H

#include <stdbool.h>
#include <stdint.h>

#include "esl/esl.h"

/* The SVN owner GUID, on-disk (mixed-endian) byte order. */
extern const uint8_t kt_esl_guid_svn_owner[16];

struct kt_esl_svn {
    uint8_t version;     /* record format version (1) */
    uint8_t guid[16];    /* the application (e.g. EFI_BOOTMGR_DBXSVN_GUID), on-disk order */
    uint16_t major, minor;
};

/* Is this entry an SVN record (an EFI_CERT_SHA256 entry with the SVN owner)? */
bool kt_esl_is_svn(const struct kt_esl_entry *e);

/* Decode an SVN record.  -EBADMSG (with the entry's offset) if it is not one
 * or is shorter than 21 bytes. */
int kt_esl_svn_parse(const struct kt_esl_entry *e, struct kt_esl_svn *out, struct kt_error *err);

/* An EFI_GUID (16 bytes, on-disk order: the first three fields little-endian)
 * as "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" into out[37].  Returns out. */
char *kt_esl_guid_str(const uint8_t g[16], char out[37]);

#endif
