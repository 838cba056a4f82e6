/* dbx_info.h - Microsoft's dbx_info_msft_latest.json, to describe the dbx
 * entries check-update finds (file names, vendors, CVEs). */
#ifndef KT_REVOKE_DBX_INFO_H
#define KT_REVOKE_DBX_INFO_H

#include "ktrust/chain.h"
#include "revoke/revoke.h"
#include "util/jsonr.h"

/* Parse the document (it must have "images" or "certificates").  *out:
 * kt_json_free.  Errors: -EBADMSG (with offset), -ENOMEM. */
int kt_dbx_info_parse(const uint8_t *buf, size_t len, struct kt_json **out, struct kt_error *err);

/* The description of a revocation: for an image hash "FILE (COMPANY, ARCH,
 * added DATE): DESCRIPTION", for a certificate (by SHA-1 thumbprint)
 * "SUBJECT: DESCRIPTION"; NULL when the document does not list it.
 * malloc'd. */
char *kt_dbx_info_describe(const struct kt_json *doc, const struct kt_chain_entry *r);

/* The architectures (the keys of "images": "x64", "ia32", "aarch64",
 * "arm") under which doc lists the image hash alg/v, as bits (1 << index
 * in "images"); 0 when it lists it nowhere.  *names (may be NULL) gets
 * doc's "images" object, whose kids[i].key names bit i (up to 32). */
uint32_t kt_dbx_info_hash_arches(const struct kt_json *doc, enum kt_hash alg, const uint8_t *v,
                                 size_t len, const struct kt_json **names);

#endif
