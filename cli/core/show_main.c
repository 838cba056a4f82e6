/* show_main.c - the driver of the "NOUN show FILE..." commands (x509, esl,
 * sbat): options, then one call of the command's printer per file. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "opts.h"

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
    struct cli_common co = {0};
    struct cli_getopt g;
    int ch;
    argc--;
    argv++; /* argv[0] is now "show" */
    if (cli_opts_init(&g, cli_opts_show) < 0)
        return EXIT_INTERNAL;
    while ((ch = cli_getopt(argc, argv, &g)) != -1) {
        if (ch == 'h') {
            usage(stdout);
            return 0;
        }
        int r = cli_common_opt(&co, ch, optarg);
        if (r < 0)
            return EXIT_USAGE;
        if (r == 0)
            return EXIT_USAGE; /* cli_getopt said why */
    }
    if (optind >= argc)
        return cli_usage_error(cmd, "no FILE given");
    int worst = 0;
    for (int i = optind; i < argc; i++) {
        int code = show_file(argv[i], &co);
        if (code > worst)
            worst = code;
    }
    fflush(stdout);
    return worst;
}
