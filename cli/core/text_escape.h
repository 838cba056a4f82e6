/* text_escape.h - strings from the input (certificate names, file names,
 * reasons that quote them) made safe for the text output: one line, no
 * terminal control.  JSON escapes on its own (json.c). */
#ifndef KT_CLI_TEXT_ESCAPE_H
#define KT_CLI_TEXT_ESCAPE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* s with every control character escaped: C0 and DEL as \xNN, a backslash
 * as \\, the C1 controls and the bidirectional overrides/isolates
 * (U+202A-U+202E, U+2066-U+2069) as \uNNNN, a byte that is not UTF-8 as
 * \xNN; the rest of UTF-8 as is.  Returns s itself when nothing needs it,
 * else one of a few rotating buffers (per thread; valid until that many more
 * calls);
 * NULL stays NULL.  A newline in a name thus cannot start a line of its own,
 * so no input can forge a verdict line. */
const char *tx(const char *s);
/* The same into out (cap bytes, cut at a whole escape, NUL-terminated);
 * returns the length the whole escaped text needs. */
size_t text_escape(const char *s, char *out, size_t cap);
/* tx for a distinguished name as the library formats it (kt_x509_subject,
 * kt_x509_issuer, kt_signer_issuer_name): it has escaped the C0 controls as
 * \XX already, so a backslash stays as it is (the output unchanged for every
 * name that was safe); the rest as tx. */
const char *tx_name(const char *s);
/* tx over len bytes that need not end in a NUL (a NUL among them is escaped
 * as \x00): an SBAT column, say.  Always one of the rotating buffers; NULL
 * gives "". */
const char *txn(const char *s, size_t len);
/* fmt and its arguments formatted, then escaped as a whole (tx) onto f: for a
 * message whose arguments may hold an input's bytes (cli_errorf). */
void cli_text_escape_vfprintf(FILE *f, const char *fmt, va_list ap);

#endif
