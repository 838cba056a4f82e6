/* detect.h - what kind of signed object a file is, by its content. */
#ifndef KT_VERIFY_DETECT_H
#define KT_VERIFY_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "keys/purpose.h"

enum kt_ftype {
    KT_FT_UNKNOWN = 0, /* nothing ktrust verifies: skipped */
    KT_FT_EMPTY,       /* zero bytes: skipped */
    KT_FT_PE,          /* PE/COFF image (EFI binaries, .exe, signed bzImages) */
    KT_FT_MODULE,      /* kernel module: appended signature, compressed .ko.*, or ELF relocatable */
    KT_FT_PKCS7,       /* PKCS#7 SignedData, DER or PEM */
    KT_FT_X509,        /* a certificate, DER or PEM */
    KT_FT_ESL,         /* EFI signature lists (db, dbx, MokList...) */
    KT_FT_KERNEL,      /* a kernel image without a PE signature table */
    KT_FT_VAR,         /* a signed EFI variable update (only when a policy names the
                        * variable: kt_policy_ftype; kt_detect never says it) */
};

/* Classify buf.  name (may be NULL) only disambiguates compressed modules
 * (".ko.xz", ".ko.zst", ".ko.gz"), which cannot be told from any other
 * compressed file without decompressing it. */
enum kt_ftype kt_detect(const uint8_t *buf, size_t len, const char *name);
/* "pe", "module", "pkcs7", "x509", "esl", "kernel", "variable", "empty", "unknown" */
const char *kt_ftype_name(enum kt_ftype t);

/* The purpose a file of this type is verified for unless the user picks
 * one: the same answer for scan and the single-file commands.  PE images:
 * UEFI (firmware and shim load them); modules, detached/attached PKCS#7
 * (firmware, unspecified) and certificates (would secondary accept it?):
 * MODULE, whose keyrings are builtin, secondary and machine only. */
enum kt_verify_purpose kt_ftype_purpose(enum kt_ftype t);

#endif
