/* uki_entries.h - `ktrust uki entries ESP`: systemd-boot's menu on an ESP
 * (cmd_uki_entries.c), a subcommand of cmd_uki.c. */
#ifndef KT_CLI_UKI_ENTRIES_H
#define KT_CLI_UKI_ENTRIES_H

#include <stdio.h>

void uki_entries_usage(FILE *f);
int uki_entries_main(int argc, char **argv);

#endif
