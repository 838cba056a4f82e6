/* cert_print.h - one way to show a certificate, as JSON or as text, for
 * every command that prints certificates (x509 show, verify signers,
 * keyring listings). */
#ifndef KT_CLI_CERT_PRINT_H
#define KT_CLI_CERT_PRINT_H

#include <stdio.h>

#include "json.h"
#include "ktrust/error.h"
#include "ktrust/x509.h"

/* Write the CONTRACT.md certificate object (key may be NULL at top level or
 * in an array): description, subject, issuer, serial, skid, akid,
 * not_before, not_after, key_algorithm, key_bits, signature_algorithm,
 * self_signed, sha256, tbs_sha256.  The description is the kernel's bytes;
 * bytes that are not UTF-8 (Latin-1 T61String names) are written as the
 * Latin-1 characters they stand for, so the output stays valid JSON. */
void cli_cert_json(struct jw *w, const char *key, const struct kt_x509 *c);
/* Same fields without opening an object: for callers adding their own. */
void cli_cert_json_fields(struct jw *w, const struct kt_x509 *c);
/* The --json object for an input (or the index-th certificate in it, 1-based;
 * 0: the file as a whole) that could not be read or parsed:
 * {file, type, index, error, reason, offset} -- the same for x509 show,
 * kernel-keys and esl show (type: what the command's objects are), so that
 * every input has an object. */
void cli_bad_input_json(const char *file, const char *type, int index, int rc, const char *reason,
                        size_t offset);

/* "name: value" lines, each prefixed by indent. */
void cli_cert_text(FILE *f, const struct kt_x509 *c, const char *indent);

#endif
