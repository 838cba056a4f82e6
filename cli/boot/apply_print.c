/* apply_print.c - print what `--apply FILE` changed in the variables. */
#include "apply_print.h"

#include <stdio.h>
#include <string.h>

#include "cannot_answer.h"
#include "cli.h"
#include "ktrust/error.h"
#include "text_escape.h"

int cli_apply_add(struct cli_apply *a, const char *cmd, const char *file)
{
    if (a->n >= CLI_MAX_APPLY)
        return cli_usage_error(cmd, "at most %d --apply files", CLI_MAX_APPLY), -1;
    a->files[a->n++] = file;
    return 0;
}

static const char *target_name(const struct kt_efivars_change *c)
{
    return c->target < KT_EFIVAR__COUNT ? kt_efivar_name(c->target) : NULL;
}

void cli_apply_json(struct jw *w, const char *file, const struct kt_efivars_change *c)
{
    jw_obj(w, NULL);
    jw_str(w, "type", "apply");
    jw_str(w, "file", file);
    jw_bool(w, "applied", c->verdict == 0);
    jw_str(w, "variable", target_name(c));
    if (c->target < KT_EFIVAR__COUNT)
        jw_str(w, "write", c->append ? "append" : "replace");
    else
        jw_null(w, "write");
    jw_str(w, "authority", c->authority[0] ? c->authority : NULL);
    jw_bool(w, "setup_mode", c->setup_mode);
    jw_str(w, "verdict", kt_verdict_name(kt_verdict_of(c->verdict)));
    jw_str(w, "reason", c->verdict ? c->error.what : NULL);
    jw_str(w, "accepted_from", c->verdict ? c->accepted_from : NULL);
    jw_arr(w, "gained");
    for (size_t i = 0; i < c->n_gained; i++)
        jw_str(w, NULL, c->gained[i]);
    jw_arr_end(w);
    jw_arr(w, "lost");
    for (size_t i = 0; i < c->n_lost; i++)
        jw_str(w, NULL, c->lost[i]);
    jw_arr_end(w);
    jw_int(w, "already_present", (long long)c->n_present);
    jw_obj_end(w);
}

/* Certificates one per line; hashes and other entries counted by type
 * ("dbx gained 443 sha256 entries"): the JSON has each. */
static void print_entries(const char *var, const char *verb, char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strncmp(lines[i], "X509 ", 5))
            printf("  %s %s %s\n", var, verb, tx(lines[i]));
    for (size_t i = 0; i < n; i++) {
        size_t w = strcspn(lines[i], " ");
        if (!strncmp(lines[i], "X509 ", 5))
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcspn(lines[j], " ") == w && !strncmp(lines[j], lines[i], w);
        if (seen)
            continue;
        size_t k = 0;
        for (size_t j = i; j < n; j++)
            k += strcspn(lines[j], " ") == w && !strncmp(lines[j], lines[i], w);
        printf("  %s %s %zu %.*s entr%s\n", var, verb, k, (int)w, lines[i], k == 1 ? "y" : "ies");
    }
}

void cli_apply_text(const char *file, const struct kt_efivars_change *c)
{
    if (c->verdict) {
        printf("apply %s: not applied: %s\n", tx(file), tx(c->error.what));
        return;
    }
    const char *var = target_name(c);
    printf("apply %s: %s %s write", tx(file), var, c->append ? "append" : "replace");
    if (c->setup_mode)
        printf(" (setup mode: no authority needed)");
    else if (c->authority[0])
        printf(", authorized by %s", tx(c->authority));
    printf("\n");
    print_entries(var, "gained", c->gained, c->n_gained);
    print_entries(var, "lost", c->lost, c->n_lost);
    if (c->n_present)
        printf("  %zu entr%s already in %s (dropped, as firmware does)\n", c->n_present,
               c->n_present == 1 ? "y" : "ies", var);
    if (!c->n_gained && !c->n_lost)
        printf("  %s unchanged\n", var);
}

int cli_apply_all(struct kt_efivars *s, struct cli_apply *a, bool json, bool quiet)
{
    int worst = 0;
    a->failed = NULL;
    struct kt_nv_limits lim;
    kt_nv_limits_read(s->dir, &lim);
    lim.max_var = a->nv.max_var;
    if (a->nv.free_known) {
        lim.store_free = a->nv.store_free;
        lim.free_known = true;
    }
    uint64_t room = lim.store_free;
    for (size_t i = 0; i < a->n; i++) {
        struct kt_efivars_change c;
        int rc = kt_efivars_apply_file_nv(s, a->files[i], &lim, &room, &c);
        if (rc == -ENOMEM) {
            kt_efivars_change_free(&c);
            return EXIT_INTERNAL;
        }
        if (json) {
            struct jw w;
            jw_init(&w, stdout);
            cli_apply_json(&w, a->files[i], &c);
            jw_newline(&w);
        } else if (!quiet) {
            cli_apply_text(a->files[i], &c);
        }
        if (rc < 0 && !a->failed) {
            a->failed = a->files[i];
            a->failed_code = cli_exit_code(rc);
            kt_fmt(a->why, sizeof(a->why), "%s", c.error.what);
        }
        if (rc < 0) {
            int code = cli_exit_code(rc);
            if (code > worst)
                worst = code;
        }
        kt_efivars_change_free(&c);
    }
    return worst;
}

int cli_apply_cannot_answer(const struct cli_apply *a, bool json, bool quiet)
{
    if (!a->failed)
        return 0;
    return cli_cannot_answer(json, quiet, a->failed, a->failed_code,
                             "not applied: %s", a->why);
}
