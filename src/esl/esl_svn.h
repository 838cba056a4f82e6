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

/* struct kt_esl_svn, kt_esl_is_svn, kt_esl_svn_parse, kt_guid_str:
 * ktrust/esl.h. */

#endif
