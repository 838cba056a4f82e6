/* cannot_answer.c - the conclusion when an input could not be used
 * (cannot_answer.h). */
#include "cannot_answer.h"

#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "json_summary.h"

static const char *code_verdict(int code)
{
    if (code > 0 && code <= KT_REFUSED)
        return kt_verdict_name((enum kt_verdict)code);
    return "error";
}

static int conclude(bool json, bool quiet, const char *input, int code, const char *why)
{
    if (json) {
        char error[1400];
        kt_fmt(error, sizeof(error), "%s%s%s", input ? input : "", input ? ": " : "", why);
        /* the summary's one "error" (an exit below 64 used to get a second) */
        struct cli_summary s = {.verdict = code_verdict(code), .exit = code, .error = error};
        cli_json_summary(stdout, &s);
    } else if (!quiet) {
        printf("cannot answer: %s%s%s\n", input ? tx(input) : "", input ? ": " : "", tx(why));
    }
    return code;
}

int cli_cannot_answer(bool json, bool quiet, const char *input, int code, const char *fmt, ...)
{
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    cli_errorf(input, "%s", why);
    return conclude(json, quiet, input, code, why);
}

int cli_cannot_answer_err(bool json, bool quiet, const char *input, int code,
                          const struct kt_error *e)
{
    cli_error(input, e);
    return conclude(json, quiet, input, code, e->what);
}
