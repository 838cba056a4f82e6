/* json_summary.c - the summary object every multi-input command ends its
 * --json output with (json_summary.h). */
#include "json_summary.h"

#include "cli.h"

void cli_json_summary_begin(struct jw *w, FILE *f, const struct cli_summary *s)
{
    jw_init(w, f);
    jw_obj(w, NULL);
    jw_str(w, "type", "summary");
    jw_str(w, "verdict", s->verdict);
    jw_int(w, "exit", s->exit);
    jw_obj(w, "counts");
    for (size_t i = 0; i < s->n_counts; i++)
        jw_int(w, s->counts[i].name, (long long)s->counts[i].n);
    jw_obj_end(w);
    jw_bool(w, "interrupted", s->interrupted);
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
