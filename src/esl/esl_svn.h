/* esl_svn.h - dbx SVN records and EFI GUID text.
 *
 * In an EFI_CERT_SHA256 list whose SignatureOwner is
 * 9d132b6c-59d5-4388-ab1c-185cfcb2eb92, the 32 bytes are not an image hash
 * but {u8 version, 16-byte application GUID, u16 minor, u16 major, 11 zero
 * bytes} (Microsoft's dbx SVN data; REFERENCE.md "Revocation").
 */
#ifndef KT_ESL_ESL_SVN_H
#define KT_ESL_ESL_SVN_H

#include <stdbool.h>
#include <stdint.h>

#include "esl/esl.h"

extern const uint8_t kt_esl_svn_owner[16];

struct kt_esl_svn {
    uint8_t version;
    uint8_t guid[16];  /* the application GUID, on-disk byte order */
    uint16_t minor, major;
    bool reserved_zero; /* the 11 trailing bytes are zero */
};

/* Is e an SVN record (a SHA256 entry owned by kt_esl_svn_owner)? */
bool kt_esl_is_svn(const struct kt_esl_entry *e);

/* Decode an SVN record.  Returns 0, or -EINVAL when e is not one. */
int kt_esl_svn_parse(const struct kt_esl_entry *e, struct kt_esl_svn *out);

/* A 16-byte EFI_GUID (mixed-endian on disk) as "8be4df61-93ca-11d2-aa0d-
 * 00e098032b8c" into buf (>= 37 bytes).  Returns buf. */
char *kt_guid_str(const uint8_t g[16], char *buf);

#endif
