/* ktrust audit: the whole boot chain of a system, live or offline (--root),
 * in one report.  The decisions are in src/audit; this parses, calls,
 * prints and maps the exit code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit_print.h"
#include "cannot_answer.h"
#include "cli.h"
#include "sbat_print.h"
#include "nvram_print.h"

enum { OPT_ROOT = OPT_FIRST_PRIVATE, OPT_ESP, OPT_EFIVARS, OPT_MODULES, OPT_DBX, OPT_DOT,
       OPT_SAVE_ROOT, OPT_SAVE_ROOT_FULL, OPT_APPLY, OPT_KEK_MAP, OPT_EVENTLOG, OPT_SBAT_LEVEL,
       OPT_REQUIRE_READY };

static const struct cli_opt opts[] = {
    CLI_OPT("root", 0, required_argument, OPT_ROOT, "DIR",
            "audit the system installed under DIR (the same paths under it)"),
    CLI_OPT("esp", 0, required_argument, OPT_ESP, "DIR", "the EFI system partition"),
    CLI_OPT("efivars", 0, required_argument, OPT_EFIVARS, "DIR",
            "the firmware variables (default " KT_SYS_EFIVARS_PATH ")"),
    CLI_OPT("kernel", 0, required_argument, OPT_KERNEL, "VMLINUZ", "the kernel image"),
    CLI_OPT("modules", 0, required_argument, OPT_MODULES, "DIR", "the kernel's modules"),
    CLI_OPT("eventlog", 0, required_argument, OPT_EVENTLOG, "LOG",
            "the TCG event log of the last boot (default: the system's; none offline)"),
    CLI_OPT("sbat-level", 0, required_argument, OPT_SBAT_LEVEL, "SPEC",
            "the SbatLevel before boot for the chain, as chain --sbat-level takes it "
            "(default: the variables')"),
    CLI_OPT("dbx-update", 0, required_argument, OPT_DBX, "FILE",
            "a dbx update whose effect the outlook shows (repeatable)"),
    CLI_OPT("dbx", 0, required_argument, OPT_DBX, "FILE",
            "the old spelling of --dbx-update (in chain, --dbx is the dbx variable)"),
    CLI_OPT("apply", 0, required_argument, OPT_APPLY, "FILE",
            "a signed db/dbx/KEK/PK update applied to the variables first, as firmware would "
            "(repeatable, in order)"),
    CLI_OPT("kek-map", 0, required_argument, OPT_KEK_MAP, "JSON",
            "Microsoft's kek_update_map.json: the rollover section names this PK's KEK update"),
    CLI_OPT("dot", 0, required_argument, OPT_DOT, "OUT.dot",
            "also write the chain as Graphviz, coloured by verdict"),
    CLI_OPT("save-root", 0, required_argument, OPT_SAVE_ROOT, "DIR",
            "also copy what was read into DIR (new or empty), laid out for --root DIR; each "
            "signed module as its signature and the digest of its signed content"),
    CLI_OPT("save-root-full", 0, required_argument, OPT_SAVE_ROOT_FULL, "DIR",
            "--save-root DIR with every module file whole"),
    CLI_OPT("require-ready", 0, no_argument, OPT_REQUIRE_READY, NULL,
            "exit 7 unless the 2023 rollover section says ready"),
    CLI_OPT("verbose", 'v', no_argument, 'v', NULL,
            "every module of each group, not only the first"),
    CLI_OPTS(cli_opts_nvram),
    CLI_OPTS(cli_opts_output),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust audit [--root DIR] [--esp DIR] [--efivars DIR] [--kernel VMLINUZ]\n"
        "                    [--modules DIR] [--eventlog LOG] [--dbx-update FILE]...\n"
        "                    [--apply FILE]... [--kek-map JSON] [--json] [--dot OUT.dot] [-v]\n"
        "                    [--sbat-level SPEC] [--save-root[-full] DIR] [--require-ready]\n"
        "Is this system's boot chain sound, and what would break it?  Reads the firmware\n"
        "variables (Secure Boot, setup mode, PK, KEK, db, dbx, MokListRT, MokListXRT,\n"
        "SbatLevel, BootOrder entries), simulates the chain firmware -> shim -> loader ->\n"
        "kernel -> modules as `chain` does, verifies every module, and says what the\n"
        "--dbx-update files and the latest SbatLevel would revoke (as `check-update`).  The rollover\n"
        "section: which 2011 and 2023 Microsoft CAs KEK, db and dbx hold, shim and the\n"
        "loader today and without UEFI CA 2011, known test PKs (PKfail), what to do; and\n"
        "whether the machine is ready, at risk or not ready.\n"
        "Defaults (the live system): --efivars " KT_SYS_EFIVARS_PATH "; the ESP from\n"
        "/boot/efi, /efi or /boot (the first with an EFI folder): its EFI/*/shimx64.efi\n"
        "(else EFI/BOOT/BOOTX64.EFI) with grubx64.efi and mmx64.efi beside it; the kernel\n"
        "/boot/vmlinuz-$(uname -r) (under --root: the newest boot/vmlinuz-* when that is\n"
        "absent); its modules /lib/modules/RELEASE.  --root DIR: the same paths under DIR.\n"
        "A part that is missing is reported as missing; the rest is still audited.\n"
        "Offline (--efivars or --esp without --root): only the parts given are read,\n"
        "nothing of this host (no kernel, modules or event log unless given).\n"
        "--save-root DIR: the variables, boot files, kernel, modules and TCG event log\n"
        "read, copied into DIR as --root expects them (written whole or not at all);\n"
        "a signed module is kept as its signature and the digest of its signed content\n"
        "(a few KiB), unless --save-root-full.\n"
        "--json: one object per section (parts, firmware, sbat, boot, chain, modules,\n"
        "outlook, rollover, summary; fields in ktrust(1)).\n",
        opts,
        "Exit code: the worst verdict of the links and modules (0 trusted ... 6);\n"
        "66 when a path given cannot be read, or no boot chain (shim, loader or kernel)\n"
        "was found: \"cannot answer\".  The outlook does not change it.\n"
        "--require-ready: 7 when the rollover is not ready (at risk, not ready or unknown)\n"
        "and nothing worse was found.  The --json summary's rollover.ready says it always.\n");
}

static void progress(void *ctx, size_t done, size_t total)
{
    (void)ctx;
    if (done < total)
        fprintf(stderr, "\rktrust audit: verifying modules %zu/%zu", done + 1, total);
    else
        fprintf(stderr, "\r\033[K");
}

/* --save-root(-full) DIR: whole or not at all; a failure prints no report.
 * 0, or the exit code. */
static int save_root(const struct kt_audit *a, const struct kt_audit_opts *o, const char *save,
                     unsigned flags, bool quiet)
{
    struct kt_audit_saved sv;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_audit_save_root_ex(a, o, save, flags, &sv, &e);
    if (rc < 0) {
        cli_error(save, &e);
        fprintf(stderr, "ktrust: audit: nothing saved (%s not created)\n", tx(save));
        return rc == -ENOTEMPTY || rc == -ENOTDIR ? EXIT_USAGE : EXIT_INTERNAL;
    }
    if (sv.not_saved[0])
        fprintf(stderr, "ktrust: audit: --save-root: not saved: %s\n", tx(sv.not_saved));
    if (!quiet)
        fprintf(stderr, "ktrust: audit: saved %zu files (%llu bytes) to %s\n", sv.n_files,
                sv.bytes, tx(save));
    return 0;
}

static int audit_main(int argc, char **argv, struct kt_sbat_level **level)
{
    struct kt_audit_opts o = {0};
    struct kt_nv_limits nv = {0};
    const char *dot = NULL, *save = NULL;
    bool json = false, quiet = false, verbose = false, require_ready = false;
    unsigned save_flags = 0;
    struct cli_getopt g;
    int c;
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        switch (c) {
        case OPT_ROOT: o.root = optarg; break;
        case OPT_ESP: o.esp = optarg; break;
        case OPT_EFIVARS: o.efivars = optarg; break;
        case OPT_KERNEL: o.kernel = optarg; break;
        case OPT_MODULES: o.modules = optarg; break;
        case OPT_DBX:
            if (o.n_dbx >= KT_AUDIT_MAX_DBX)
                return cli_usage_error("audit", "at most %d --dbx files", KT_AUDIT_MAX_DBX);
            o.dbx[o.n_dbx++] = optarg;
            break;
        case OPT_APPLY:
            if (o.n_apply >= KT_AUDIT_MAX_APPLY)
                return cli_usage_error("audit", "at most %d --apply files", KT_AUDIT_MAX_APPLY);
            o.apply[o.n_apply++] = optarg;
            break;
        case OPT_DOT: dot = optarg; break;
        case OPT_SAVE_ROOT: save = optarg; break;
        case OPT_SAVE_ROOT_FULL:
            save = optarg;
            save_flags = KT_AUDIT_SAVE_FULL;
            break;
        case OPT_KEK_MAP: o.kek_map = optarg; break;
        case OPT_EVENTLOG: o.eventlog = optarg; break;
        case OPT_SBAT_LEVEL: {
            if (*level)
                return cli_usage_error("audit", "one --sbat-level");
            int lrc = cli_sbat_level_load(optarg, level);
            if (lrc)
                return lrc;
            o.sbat_level = *level;
            break;
        }
        case OPT_NV_MAX_VAR: case OPT_NV_FREE:
            if (cli_nv_opt(&nv, c, optarg, "audit"))
                return EXIT_USAGE;
            o.nv = &nv;
            break;
        case OPT_REQUIRE_READY: require_ready = true; break;
        case OPT_JSON: json = true; break;
        case 'q': quiet = true; break;
        case 'v': verbose = true; break;
        case 'h': usage(stdout); return 0;
        default: return EXIT_USAGE; /* cli_getopt said why */
        }
    }
    if (optind < argc)
        return cli_usage_error("audit", "unexpected argument '%s' (use --root DIR)", argv[optind]);
    if (o.root && access(o.root, F_OK) != 0) {
        cli_errorf(o.root, "cannot open: %m");
        return EXIT_NOINPUT;
    }
    struct kt_error e = KT_ERROR_INIT;
    int rc;
    if (save && (rc = kt_audit_save_check(save, &e)) < 0) { /* before any work */
        cli_error(save, &e);
        return rc == -ENOENT ? EXIT_NOINPUT : EXIT_USAGE;
    }
    if (isatty(STDERR_FILENO) && !quiet)
        o.progress = progress;
    char cache[4096];
    o.kernel_cache = cli_cache_dir(cache, sizeof(cache));
    struct kt_audit *a = malloc(sizeof(*a));
    if (!a)
        return EXIT_INTERNAL;
    rc = kt_audit_run(&o, a, &e);
    if (rc < 0) {
        int code = cli_cannot_answer_err(json, quiet, a->error_file ? a->error_file : "audit",
                                         cli_exit_code(rc), &e);
        kt_audit_free(a);
        free(a);
        return code;
    }
    if (save && (rc = save_root(a, &o, save, save_flags, quiet)) != 0) {
        kt_audit_free(a);
        free(a);
        return rc;
    }
    if (json)
        audit_print_json(a, &o, require_ready);
    else if (!quiet)
        audit_print_text(a, &o, verbose);
    int code = audit_exit_code_ready(a, require_ready);
    if (dot) {
        int drc = audit_write_dot(a, dot);
        if (drc > code)
            code = drc;
    }
    kt_audit_free(a);
    free(a);
    return code;
}

int cmd_audit(int argc, char **argv)
{
    struct kt_sbat_level *level = NULL; /* --sbat-level, closed whatever the way out */
    int code = audit_main(argc, argv, &level);
    kt_sbat_level_close(level);
    return code;
}
