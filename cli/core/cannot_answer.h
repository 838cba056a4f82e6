/* cannot_answer.h - the conclusion when an input the question depends on
 * could not be used (#36): never the all-clear the input did not earn. */
#ifndef KT_CLI_CANNOT_ANSWER_H
#define KT_CLI_CANNOT_ANSWER_H

#include <stdbool.h>

#include "ktrust/error.h"

#define EXIT_NO_EFI 69 /* no EFI variables where the live system keeps them */

/* Say "cannot answer: INPUT: WHY" and return code (the input's error, the
 * exit code the command returns).  The error line goes to stderr always
 * ("ktrust: INPUT: WHY"); in text, unless quiet, the same words end stdout as
 * the conclusion ("cannot answer: INPUT: WHY"); with json, the summary
 * object {"type":"summary","verdict":WORD,"exit":code,"counts":{},
 * "interrupted":false,"error":"INPUT: WHY"} where WORD is the code's verdict
 * (malformed, unsigned, ...; "error" for 66 and above), never a safe one.
 * input NULL: WHY names it. */
int cli_cannot_answer(bool json, bool quiet, const char *input, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The same from a library error: the stderr line with its offset (cli_error). */
int cli_cannot_answer_err(bool json, bool quiet, const char *input, int code,
                          const struct kt_error *e);

#endif
