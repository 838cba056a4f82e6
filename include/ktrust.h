/* ktrust.h - libktrust: the Linux kernel's asymmetric-key trust system in
 * user space.  Include this one header; build with
 * `pkg-config --cflags --libs ktrust`.
 *
 * Conventions (every function):
 *   - results are int: 0, or a negative errno with the kernel's meaning
 *     (-EBADMSG/-ELIBBAD malformed, -ENODATA unsigned, -ENOKEY untrusted,
 *     -ENOPKG unsupported, -EKEYREJECTED rejected, -EPERM refused);
 *     kt_verdict_of() maps one to a verdict, numbered as the CLI's exit
 *     codes, and kt_verdict_name() names it;
 *   - a struct kt_error *err (may be NULL) receives a one-line reason and the
 *     byte offset in the input where it was found;
 *   - every object is an opaque handle, freed with its own call
 *     (kt_ctx_free, kt_result_free, kt_x509_free, kt_sbat_level_close); a
 *     parsed certificate points into the caller's buffer, which must
 *     outlive it;
 *   - only what these headers declare is exported (KT_API).
 *
 * The headers, in reading order:
 *   ktrust/error.h      struct kt_error, enum kt_verdict
 *   ktrust/x509.h       kt_x509_parse and accessors (description, subject,
 *                       serial, validity ...), kt_certs_foreach (DER, PEM)
 *   ktrust/keyring.h    the keys of a context's keyrings (the five default
 *                       ones and user keyrings): kt_keyring_add,
 *                       kt_keyrings_add_blob (certificates, lists, EFI
 *                       signature lists), kt_keyrings_add_kernel_keys,
 *                       kt_keyring_create, kt_keyring_remove, listing keys
 *   ktrust/verify.h     the one way in: kt_ctx_open (no store, or the
 *                       persistent SQLite store read-only or for writing;
 *                       run-only keys), kt_ctx_keyrings, kt_ctx_commit;
 *                       kt_verify_file / kt_verify_buf (detect the type:
 *                       PE, module, PKCS#7, certificate, EFI signature list;
 *                       verify it under one struct kt_policy), one struct
 *                       kt_result and its accessors
 *   ktrust/efivars.h    the firmware variables in force: kt_efivars_read
 *                       (an efivarfs directory), each present, absent or
 *                       unreadable
 *   ktrust/chain.h      the boot engine: kt_chain_run (db/dbx, shim, MOK,
 *                       SBAT, loader, kernel, modules) on a variable state
 *   ktrust/update.h     would a dbx update or an SbatLevel revoke a boot
 *                       binary: struct kt_update_check
 *   ktrust/scan.h       kt_scan_verify: every file under some paths, each
 *                       detected once, verified on workers, in walk order
 *   ktrust/audit.h      a whole system: kt_audit_run
 *
 * ktrust/advanced.h (not included here) is the advanced tier: what the
 * ktrust program needs beyond this API, which may change between releases.
 */
#ifndef KTRUST_H
#define KTRUST_H

#include "ktrust/api.h"
#include "ktrust/audit.h"
#include "ktrust/chain.h"
#include "ktrust/efivars.h"
#include "ktrust/error.h"
#include "ktrust/esl.h"
#include "ktrust/eventlog.h"
#include "ktrust/ima.h"
#include "ktrust/imalist.h"
#include "ktrust/keyring.h"
#include "ktrust/nvram.h"
#include "ktrust/plan.h"
#include "ktrust/sbat.h"
#include "ktrust/scan.h"
#include "ktrust/sdboot.h"
#include "ktrust/uki.h"
#include "ktrust/update.h"
#include "ktrust/verify.h"
#include "ktrust/x509.h"

#endif
