/* chain_fw.h - firmware's db and dbx, walked once per image: which db
 * entry accepts it and which dbx entries deny it, as structured reasons
 * (struct kt_chain_entry).  The rules follow EDK2's DxeImageVerificationLib
 * (see SECURITY.md, "Firmware's db and dbx"):
 *   dbx: the image's Authenticode hash, in every algorithm dbx holds
 *        (IsSignatureFoundInDatabase); an X509 entry that is a certificate
 *        of a signature's chain from its signer, or issued one
 *        (IsForbiddenByDbx: AuthenticodeVerify with the entry as root; a
 *        certificate of the PKCS#7 bag off that chain does not count); an
 *        X509_SHA256/384/512 entry that is the hash of a chain
 *        certificate's TBSCertificate (IsCertHashFoundInDbx);
 *   db:  the first signature, in the certificate table's order, that
 *        checks out, and the first db entry in db's order that is a
 *        certificate of its chain or issued one (IsAllowedByDb); else the
 *        image's SHA-256 hash as a db entry (IsSignatureFoundInDatabase).
 */
#ifndef KT_CHAIN_CHAIN_FW_H
#define KT_CHAIN_CHAIN_FW_H

#include <stddef.h>
#include <stdint.h>

#include "esl/esl.h"
#include "ktrust/chain.h"
#include "pe/pe_verify.h"

#define KT_FW_MAX_SRC 16

/* One input of db or dbx: a variable or a file (an ESL, a signed update,
 * an efivarfs dump; a lone certificate is taken as one X509 entry). */
struct kt_fw_src {
    char *label;        /* "db", "dbx", or the file's name (owned) */
    const uint8_t *buf; /* owned, or the caller's (kt_fw_dbs_borrow) */
    size_t len;
    uint8_t *owned;     /* buf when it is a copy */
};

struct kt_fw_dbs {
    struct kt_fw_src db[KT_FW_MAX_SRC], dbx[KT_FW_MAX_SRC];
    size_t n_db, n_dbx;
};

/* Keep a copy of an input (dbx: true for dbx).  name: an efivarfs path is
 * labelled by its variable name.  Returns 0, -E2BIG, -ENOMEM. */
int kt_fw_dbs_add(struct kt_fw_dbs *d, bool dbx, const uint8_t *buf, size_t len,
                  const char *name);
/* The same without a copy: buf must stay valid as long as d. */
int kt_fw_dbs_borrow(struct kt_fw_dbs *d, bool dbx, const uint8_t *buf, size_t len,
                     const char *name);
void kt_fw_dbs_free(struct kt_fw_dbs *d);

/* The hash an entry holds: its algorithm, and whether it is a
 * certificate's TBS hash (X509_SHA*) rather than an image hash (SHA256,
 * SHA1 ...).  false: not a hash entry (X509, RSA2048, unknown types). */
bool kt_fw_entry_hash(const struct kt_esl_entry *e, enum kt_hash *alg, bool *tbs);

/* The walk: fill l->db and l->dbx/n_dbx from the image's verification r
 * (its signatures, their chains and digests; r->pe for a digest r lacks).
 * Returns 0 or -ENOMEM. */
int kt_fw_walk(const struct kt_fw_dbs *d, const struct kt_pe_result *r, struct kt_chain_link *l);

/* The db entry that accepts top-level signature sig alone (IsAllowedByDb
 * on it): *out (out->var "" none).  Returns 0 or -ENOMEM. */
int kt_fw_db_entry(const struct kt_fw_dbs *d, const struct kt_pe_result *r, size_t sig,
                   struct kt_chain_entry *out);

/* Firmware's verdict on a link from the keyrings' verification (verdict,
 * already in l) and the walk: a dbx entry denies; an image hash in db
 * admits an image no certificate does.  Updates l->verdict and l->reason. */
void kt_fw_verdict(struct kt_chain_link *l);

#endif
