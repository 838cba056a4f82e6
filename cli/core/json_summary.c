/* json_summary.c - the summary object every multi-input command ends its
 * --json output with (json_summary.h). */
#include "json_summary.h"

#include <string.h>

#include "cli.h"

static struct {
    bool json;           /* this run was asked for --json */
    bool summary;        /* a summary object was written */
} run;

void cli_json_run_start(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--json"))
            run.json = true;
}

/* The words for an exit code when the run said nothing more precise. */
static const char *exit_words(int code)
{
    switch (code) {
    case EXIT_USAGE: return "usage error";
    case EXIT_NOINPUT: return "an input cannot be read";
    case EXIT_INTERNAL: return "internal error";
    default: return "failed";
    }
}

int cli_json_run_end(int code)
{
    if (!run.json || run.summary || code == 0)
        return code;
    if (code < EXIT_USAGE && cli_json_objects > 0)
        return code; /* a verdict on the one input, already printed */
    fflush(stdout);
    const char *first = cli_first_error();
    struct cli_summary s = {.verdict = NULL, .exit = code, .error = first ? first : exit_words(code)};
    cli_json_summary(stdout, &s);
    fflush(stdout);
    return code;
}

void cli_json_summary_begin(struct jw *w, FILE *f, const struct cli_summary *s)
{
    run.summary = true;
    jw_init(w, f);
    jw_obj(w, NULL);
    jw_str(w, "type", "summary");
    jw_int(w, "schema", CLI_JSON_SCHEMA);
    jw_str(w, "verdict", s->verdict);
    jw_int(w, "exit", s->exit);
    jw_obj(w, "counts");
    for (size_t i = 0; i < s->n_counts; i++)
        jw_int(w, s->counts[i].name, (long long)s->counts[i].n);
    jw_obj_end(w);
    jw_bool(w, "interrupted", s->interrupted);
    /* a run that failed names its first error, whoever wrote the summary */
    const char *error = s->error;
    if (!error && s->exit >= EXIT_USAGE)
        error = cli_first_error() ? cli_first_error() : exit_words(s->exit);
    jw_str(w, "error", error);
}

void cli_json_summary(FILE *f, const struct cli_summary *s)
{
    struct jw w;
    cli_json_summary_begin(&w, f, s);
    jw_obj_end(&w);
    jw_newline(&w);
}

const char *cli_tally_name(int i)
{
    if (i <= KT_REFUSED)
        return kt_verdict_name((enum kt_verdict)i);
    return i == KT_REFUSED + 1 ? "error" : "unreadable";
}

void cli_tally_add(struct cli_tally *t, int rc, bool verified)
{
    t->inputs++;
    enum kt_verdict v = kt_verdict_of(rc);
    if (!verified || cli_exit_code(rc) >= EXIT_USAGE)
        t->n[v == KT_INTERNAL && verified ? KT_REFUSED + 1 : KT_REFUSED + 2]++;
    else
        t->n[v <= KT_REFUSED ? (int)v : KT_REFUSED + 1]++;
}

void cli_tally_summary(const struct cli_tally *t, FILE *f, int exit_code, bool interrupted)
{
    struct cli_count c[CLI_TALLY_SLOTS];
    const char *worst = NULL;
    for (int i = 0; i < CLI_TALLY_SLOTS; i++) {
        c[i] = (struct cli_count){cli_tally_name(i), t->n[i]};
        if (i <= KT_REFUSED && t->n[i])
            worst = c[i].name; /* the verdicts are in exit-code order */
    }
    struct cli_summary s = {.verdict = worst, .exit = exit_code, .counts = c,
                            .n_counts = CLI_TALLY_SLOTS, .interrupted = interrupted};
    cli_json_summary(f, &s);
}
