/* show_main.c - the driver of the commands that print what files hold
 * ("NOUN show FILE..." for x509, esl and sbat; kernel-keys): options, then
 * one call of the command's printer per file, the worst exit code. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "opts.h"

int cli_files_main(const struct cli_files_cmd *fc, int argc, char **argv,
                   int (*each)(const char *path, const struct cli_common *co, void *arg))
{
    struct cli_common co = {0};
    struct cli_getopt g;
    int ch;
    if (cli_opts_init(&g, fc->opts) < 0)
        return EXIT_INTERNAL;
    while ((ch = cli_getopt(argc, argv, &g)) != -1) {
        if (ch == 'h') {
            fc->usage(stdout);
            return 0;
        }
        if (fc->own_opt && fc->own_opt(fc->arg, ch))
            continue;
        int r = cli_common_opt(&co, ch, optarg);
        if (r <= 0)
            return EXIT_USAGE; /* r == 0: cli_getopt said why */
    }
    if (optind >= argc)
        return cli_usage_error(fc->cmd, "%s", fc->no_file);
    int worst = 0;
    for (int i = optind; i < argc; i++) {
        int code = each(argv[i], &co, fc->arg);
        if (code > worst)
            worst = code;
    }
    fflush(stdout);
    return worst;
}

struct show_arg {
    cli_show_fn fn;
};

static int call_show(const char *path, const struct cli_common *co, void *arg)
{
    return ((struct show_arg *)arg)->fn(path, co);
}

int cli_show_main(const char *noun, int argc, char **argv, void (*usage)(FILE *f),
                  cli_show_fn show_file)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    if (strcmp(argv[1], "show") != 0)
        return cli_usage_error(noun, "unknown subcommand '%s' (show)", argv[1]);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "%s show", noun);
    struct show_arg sa = {show_file};
    struct cli_files_cmd fc = {cmd, cli_opts_show, usage, "no FILE given", NULL, &sa};
    return cli_files_main(&fc, argc - 1, argv + 1, call_show); /* argv[0] is now "show" */
}
