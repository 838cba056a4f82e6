/* predict_opts.c - the prediction's options, one table and one handler for
 * eventlog and unseal-check (predict_opts.h). */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "ktrust/boot.h"
#include "predict_opts.h"

const struct cli_opt cli_opts_predict[] = {
    CLI_OPT("root", 0, required_argument, OPT_PRED_ROOT, "DIR",
            "read the live paths (the event log, the TPM's PCRs, efivars) under DIR"),
    CLI_OPT("pcrs", 0, required_argument, OPT_PRED_PCRS, "FILE",
            "today's PCR values, to check the replay or the sealed keys against: tpm2_pcrread "
            "YAML, 'BANK PCR HEX' lines, or a directory of pcr-BANK/N files (default: "
            KT_SYS_TPM_PCRS_PATH " when present)"),
    CLI_OPT("efivars", 0, required_argument, OPT_PRED_EFIVARS, "DIR",
            "the variables, efivarfs form (default: " KT_SYS_EFIVARS_PATH " when present): a "
            "prediction takes them, after --apply, as the state of the next boot"),
    CLI_OPT("apply", 0, required_argument, OPT_PRED_APPLY, "FILE",
            "a signed db/dbx/KEK/PK update applied to the variables first, as firmware would "
            "(repeatable, in order)"),
    CLI_OPT("sbat-level", 0, required_argument, OPT_PRED_SBAT_LEVEL, "SPEC",
            "the SbatLevel before the next boot (a payload or efivarfs file, original, "
            "automatic, latest)"),
    CLI_OPT("esp", 0, required_argument, OPT_PRED_ESP, "DIR",
            "the ESP: the boot applications' new Authenticode digests (PCR 4) and the db "
            "entries that verify them (PCR 7)"),
    {0},
};

int cli_predict_opt(int c, const char *cmd, struct cli_predict_args *p)
{
    switch (c) {
    case OPT_PRED_ROOT: p->root = optarg; return 1;
    case OPT_PRED_PCRS: p->pcrs = optarg; return 1;
    case OPT_PRED_EFIVARS: p->efivars = optarg; return 1;
    case OPT_PRED_APPLY: return cli_apply_add(&p->apply, cmd, optarg) < 0 ? -1 : 1;
    case OPT_PRED_SBAT_LEVEL: p->sbat = optarg; return 1;
    case OPT_PRED_ESP: p->esp = optarg; return 1;
    default: return 0;
    }
}

int cli_predict_check(const char *cmd, const struct cli_predict_args *p)
{
    if (p->sbat && !strncmp(p->sbat, "shim:", 5))
        return cli_usage_error(cmd, "--sbat-level shim:FILE is not taken here: give the "
                                    "payload, an efivarfs file, original, automatic or latest");
    return 0;
}
