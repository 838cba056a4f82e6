/* ktrust uki entries ESP [--efivars DIR] : systemd-boot's menu on an ESP as
 * systemd 252's systemd-boot builds it, which entry boots next and why,
 * each entry's verdict and its add-ons'. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_summary.h"
#include "ktrust/efivars.h"
#include "ktrust/sdboot.h"
#include "ktrust/verify.h"
#include "text_escape.h"
#include "uki_entries.h"
#include "verdict_print.h"

enum { OPT_EFIVARS = OPT_FIRST_PRIVATE };

static const struct cli_opt opts[] = {
    CLI_OPT("efivars", 0, required_argument, OPT_EFIVARS, "DIR",
            "an efivarfs directory or snapshot: LoaderEntryDefault, LoaderEntryOneShot and "
            "LoaderEntryLastBooted (systemd-boot's vendor GUID) are read from it"),
    CLI_OPT("allow-sha1", 0, no_argument, OPT_ALLOW_SHA1, NULL,
            "accept SHA-1 image digests (refused as unsupported, 3, without it)"),
    CLI_OPTS(cli_opts_verify),
    {0},
};

void uki_entries_usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust uki entries ESP [--efivars DIR] [--trust FILE]... [--store PATH] [--json] [-q]\n"
        "systemd-boot's menu on the ESP as systemd 252's systemd-boot (Debian 12) builds it:\n"
        "loader/loader.conf, loader/entries/*.conf (Type #1), EFI/Linux/*.efi (Type #2 UKIs),\n"
        "in its sort order; which entry boots next (LoaderEntryOneShot, then\n"
        "LoaderEntryDefault or @saved, then loader.conf's default, then the first entry);\n"
        "each entry's verdict as verify-pe / uki verify give it, and the add-ons\n"
        "(*.addon.efi) each UKI would take (systemd-stub 252 ignores them). Lines\n"
        "systemd-boot ignores and entries it drops are reported on stderr.\n",
        opts,
        "Exit code: the verdict of the entry that boots next (0 trusted, 1 unsigned,\n"
        "2 untrusted, 3 unsupported, 4 malformed or no entry, 5 rejected); 64 usage,\n"
        "66 unreadable input or store.\n");
}

struct judged {
    int rc;
    struct kt_error e;
};

static void addon_json(struct jw *w, const struct kt_sdboot *s, size_t i,
                       const struct kt_ctx *ctx, const struct kt_policy *pol)
{
    jw_arr(w, "addons");
    const struct kt_sdboot_addon *a;
    for (size_t k = 0; (a = kt_sdboot_addon_at(s, i, k)) != NULL; k++) {
        char bad[200];
        struct kt_error e = KT_ERROR_INIT;
        int rc = kt_sdboot_addon_verify(ctx, a->resolved, pol, bad, sizeof(bad), &e);
        jw_obj(w, NULL);
        jw_str(w, "file", a->path);
        jw_bool(w, "global", a->global);
        jw_str(w, "verdict", kt_verdict_name(kt_verdict_of(rc)));
        jw_str(w, "reason", rc ? e.what : NULL);
        jw_arr(w, "forbidden_sections");
        for (char *t = strtok(bad, " "); t; t = strtok(NULL, " "))
            jw_str(w, NULL, t);
        jw_arr_end(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static void entry_json(struct jw *w, const struct kt_sdboot *s, size_t i, const struct judged *j,
                       const struct kt_ctx *ctx, const struct kt_policy *pol)
{
    const struct kt_sdboot_entry *e = kt_sdboot_entry_at(s, i);
    jw_obj(w, NULL);
    jw_str(w, "id", e->id);
    jw_str(w, "kind", kt_sdboot_kind_name(e->kind));
    jw_str(w, "source", e->source);
    jw_str(w, "title", e->title[0] ? e->title : NULL);
    jw_str(w, "version", e->version[0] ? e->version : NULL);
    jw_str(w, "sort_key", e->sort_key[0] ? e->sort_key : NULL);
    jw_str(w, "machine_id", e->machine_id[0] ? e->machine_id : NULL);
    jw_str(w, "image", e->image);
    jw_str(w, "options", e->options[0] ? e->options : NULL);
    jw_str(w, "initrd", e->initrd[0] ? e->initrd : NULL);
    if (e->tries_left >= 0) {
        jw_int(w, "tries_left", e->tries_left);
        jw_int(w, "tries_done", e->tries_done);
    }
    jw_str(w, "verdict", kt_verdict_name(kt_verdict_of(j->rc)));
    jw_str(w, "reason", j->rc ? j->e.what : NULL);
    if (e->kind == KT_SDBOOT_UKI)
        addon_json(w, s, i, ctx, pol);
    jw_obj_end(w);
}

static void next_json(struct jw *w, const char *key, const struct kt_sdboot *s, bool one_shot)
{
    enum kt_sdboot_rule rule;
    long n = kt_sdboot_next(s, one_shot, &rule);
    jw_obj(w, key);
    jw_str(w, "id", n >= 0 ? kt_sdboot_entry_at(s, (size_t)n)->id : NULL);
    jw_str(w, "rule", kt_sdboot_rule_name(rule));
    jw_obj_end(w);
}

static void print_json(const char *esp, const struct kt_sdboot *s, const struct judged *j, int code,
                       const struct kt_ctx *ctx, const struct kt_policy *pol)
{
    static const char *const vars[] = {"LoaderEntryDefault", "LoaderEntryOneShot",
                                       "LoaderEntryLastBooted"};
    struct jw w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "type", "sdboot");
    jw_str(&w, "esp", esp);
    jw_obj(&w, "loader_conf");
    jw_str(&w, "default", kt_sdboot_setting(s, "default"));
    jw_str(&w, "timeout", kt_sdboot_setting(s, "timeout"));
    jw_obj_end(&w);
    jw_obj(&w, "variables");
    for (size_t i = 0; i < 3; i++)
        jw_str(&w, vars[i], kt_sdboot_variable(s, vars[i]));
    jw_obj_end(&w);
    jw_arr(&w, "entries");
    for (size_t i = 0; i < kt_sdboot_count(s); i++)
        entry_json(&w, s, i, &j[i], ctx, pol);
    jw_arr_end(&w);
    next_json(&w, "next", s, true);
    next_json(&w, "after_oneshot", s, false);
    jw_arr(&w, "problems");
    for (size_t i = 0; i < kt_sdboot_problem_count(s); i++) {
        const struct kt_sdboot_problem *p = kt_sdboot_problem_at(s, i);
        jw_obj(&w, NULL);
        jw_str(&w, "file", p->file);
        jw_int(&w, "line", p->line);
        jw_str(&w, "reason", p->reason);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_obj_end(&w);
    jw_newline(&w);
    struct cli_tally t = {0};
    for (size_t i = 0; i < kt_sdboot_count(s); i++)
        cli_tally_add(&t, j[i].rc, true);
    cli_tally_summary(&t, stdout, code, false);
}

static void print_text(const struct kt_sdboot *s, const struct judged *j,
                       const struct kt_ctx *ctx, const struct kt_policy *pol)
{
    enum kt_sdboot_rule rule, later;
    long next = kt_sdboot_next(s, true, &rule), after = kt_sdboot_next(s, false, &later);
    const char *d = kt_sdboot_setting(s, "default");
    printf("systemd-boot entries, in its menu order (loader.conf default: %s):\n", d ? tx(d) : "none");
    for (size_t i = 0; i < kt_sdboot_count(s); i++) {
        const struct kt_sdboot_entry *e = kt_sdboot_entry_at(s, i);
        printf("%s %-28s %-5s %-10s %s\n", (long)i == next ? "*" : " ", tx(e->id),
               kt_sdboot_kind_name(e->kind), kt_verdict_name(kt_verdict_of(j[i].rc)), tx(e->image));
        if (j[i].rc && j[i].e.what[0])
            printf("    %s\n", tx(j[i].e.what));
        const struct kt_sdboot_addon *a;
        for (size_t k = 0; (a = kt_sdboot_addon_at(s, i, k)) != NULL; k++) {
            struct kt_error e2 = KT_ERROR_INIT;
            int rc = kt_sdboot_addon_verify(ctx, a->resolved, pol, NULL, 0, &e2);
            printf("    add-on %s: %s%s%s\n", tx(a->path), kt_verdict_name(kt_verdict_of(rc)),
                   rc ? ": " : "", rc ? tx(e2.what) : "");
        }
    }
    if (next < 0) {
        printf("boots next: %s\n", rule == KT_SDBOOT_BY_UNKNOWN
               ? "not answered (a variable or default too long for ktrust)" : "nothing (no entry)");
        return;
    }
    printf("boots next: %s (%s)\n", tx(kt_sdboot_entry_at(s, (size_t)next)->id), kt_sdboot_rule_name(rule));
    if (after != next)
        printf("then: %s (%s)\n", tx(kt_sdboot_entry_at(s, (size_t)after)->id), kt_sdboot_rule_name(later));
}

static int judge_all(const char *esp, const struct cli_common *co, const struct kt_ctx *ctx,
                     const struct kt_policy *pol, const struct kt_efivars *vars)
{
    struct kt_sdboot *s = NULL;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_sdboot_open(esp, vars, &s, &e);
    if (rc < 0) {
        cli_error(esp, &e);
        return rc == -ENOMEM ? EXIT_INTERNAL : EXIT_NOINPUT;
    }
    size_t n = kt_sdboot_count(s);
    struct judged *j = calloc(n ? n : 1, sizeof(*j));
    if (!j) {
        kt_sdboot_free(s);
        return EXIT_INTERNAL;
    }
    for (size_t i = 0; i < n; i++) {
        j[i].e = (struct kt_error)KT_ERROR_INIT;
        j[i].rc = kt_sdboot_entry_verify(ctx, s, i, pol, &j[i].e);
    }
    for (size_t i = 0; i < kt_sdboot_problem_count(s); i++) {
        const struct kt_sdboot_problem *p = kt_sdboot_problem_at(s, i);
        if (p->line)
            cli_errorf(p->file, "line %u: %s", p->line, p->reason);
        else
            cli_errorf(p->file, "%s", p->reason);
    }
    enum kt_sdboot_rule rule;
    long next = kt_sdboot_next(s, true, &rule);
    int code = next < 0 ? cli_exit_code(rule == KT_SDBOOT_BY_UNKNOWN ? -ENOPKG : -EBADMSG)
                        : cli_exit_code(j[next].rc);
    if (co->json)
        print_json(esp, s, j, code, ctx, pol);
    else if (!co->quiet)
        print_text(s, j, ctx, pol);
    free(j);
    kt_sdboot_free(s);
    return code;
}

struct entries_arg {
    struct kt_policy pol;
    const char *efivars;
};

static bool own_opt(void *arg, int ch)
{
    struct entries_arg *ea = arg;
    if (ch == OPT_EFIVARS)
        ea->efivars = optarg;
    else if (ch == OPT_ALLOW_SHA1)
        ea->pol.allow_sha1 = true;
    return ch == OPT_EFIVARS || ch == OPT_ALLOW_SHA1;
}

/* One ESP: the variables, the context the common options select, the menu. */
static int one_esp(const char *esp, const struct cli_common *co, void *arg)
{
    struct entries_arg *ea = arg;
    struct kt_efivars vars;
    struct kt_error e = KT_ERROR_INIT;
    if (ea->efivars && kt_efivars_read(ea->efivars, &vars, &e) < 0) {
        cli_error(ea->efivars, &e);
        return EXIT_NOINPUT;
    }
    struct kt_ctx *ctx = NULL;
    char *files[1] = {(char *)esp};
    int code = vp_open_ctx(co, &ctx, "sdboot", files, 1);
    if (code == 0)
        code = judge_all(esp, co, ctx, &ea->pol, ea->efivars ? &vars : NULL);
    kt_ctx_free(ctx);
    if (ea->efivars)
        kt_efivars_free(&vars);
    return code;
}

int uki_entries_main(int argc, char **argv)
{
    struct entries_arg ea = {.pol = {.type = KT_VERIFY_PE}};
    const struct cli_files_cmd fc = {"uki", opts, uki_entries_usage, "no ESP given", own_opt, &ea};
    return cli_files_main(&fc, argc, argv, one_esp);
}
