/* ktrust chain: simulate the secure-boot trust chain offline and print a
 * tree of verdicts (text, --json, --dot). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktrust/boot.h"
#include "ktrust/chain.h"
#include "apply_print.h"
#include "cli.h"
#include "json_summary.h"
#include "dot.h"
#include "sbat_print.h"

#define MAX_VARS 32
#define MODULES_SHOWN 40

enum { OPT_DB = OPT_FIRST_PRIVATE, OPT_DBX, OPT_MOK, OPT_DOT, OPT_MOK_TRUSTED, OPT_EFIVARS,
       OPT_SBAT_LEVEL, OPT_SBAT_POLICY, OPT_MOK_UNTRUSTED, OPT_APPLY };

static const struct cli_opt opts[] = {
    CLI_OPT("db", 0, required_argument, OPT_DB, "FILE",
            "the UEFI db: certificates (DER/PEM) or an EFI signature list (repeatable; "
            "required without --efivars)"),
    CLI_OPT("dbx", 0, required_argument, OPT_DBX, "FILE",
            "the dbx variable's contents, the same way (repeatable); an update to consider is "
            "check-update/audit --dbx-update"),
    CLI_OPT("mok", 0, required_argument, OPT_MOK, "FILE",
            "MOK keys, the same way (repeatable); a SHA-256 image hash in them admits an image "
            "at shim's links"),
    CLI_OPT("mok-trusted", 0, no_argument, OPT_MOK_TRUSTED, NULL,
            "MokListTrustedRT is set: MOK keys join machine and vouch for modules too "
            "(without --efivars the default, as shim 16.x sets it)"),
    CLI_OPT("mok-untrusted", 0, no_argument, OPT_MOK_UNTRUSTED, NULL,
            "MokListTrustedRT is not set (a shim before 15.7, or MokListTrusted says no): MOK "
            "keys join platform, boot images only"),
    CLI_OPT("efivars", 0, required_argument, OPT_EFIVARS, "DIR",
            "db, dbx, MokListRT, MokListXRT, SbatLevelRT, SecureBoot by their efivarfs "
            "names (" KT_SYS_EFIVARS_PATH " on a live system)"),
    CLI_OPT("apply", 0, required_argument, OPT_APPLY, "FILE",
            "a signed db/dbx/KEK/PK update applied to --efivars first, as firmware would "
            "(repeatable, in order)"),
    CLI_OPT("sbat-level", 0, required_argument, OPT_SBAT_LEVEL, "SPEC",
            "the SbatLevel variable before boot (as verify-pe --sbat-level takes it)"),
    CLI_OPT("sbat-policy", 0, required_argument, OPT_SBAT_POLICY, "latest|automatic|reset",
            "shim's SbatPolicy (default automatic)"),
    CLI_OPT("dot", 0, required_argument, OPT_DOT, "OUT.dot", "also write the chain as Graphviz"),
    CLI_OPT("verbose", 'v', no_argument, 'v', NULL, "every module, not only the first 40"),
    CLI_OPTS(cli_opts_output),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust chain --db FILE... [--dbx FILE...] [--mok FILE... [--mok-[un]trusted]] [--json]\n"
        "                    [--dot OUT.dot] [-q] [-v]\n"
        "                    SHIM LOADER KERNEL [MODULE...] | SYSTEMD-BOOT UKI [MODULE...]\n\n"
        "Simulate secure boot offline: db vouches for shim (dbx revokes); shim's vendor\n"
        "certificate and MOK vouch for the loader and the kernel (shim's vendor dbx\n"
        "revokes); the kernel's builtin keys vouch for the modules.  Prints a tree of\n"
        "verdicts with the reason for each link; exit code: the highest over all links.\n"
        "The LOADER may be systemd-boot and the KERNEL a UKI (shim's protocol). A first\n"
        "file that is systemd-boot (sbctl style, no shim): firmware judges it and the UKI\n"
        "it loads by db and dbx alone (no vendor certificate, MOK or SBAT).\n"
        "db, dbx and MOK files: certificates (DER/PEM) or EFI signature lists (efivarfs\n"
        "files with their attribute prefix are fine).  MOK keys join machine and vouch\n"
        "for modules too when MokListTrustedRT is set (the kernel's rule): with --efivars\n"
        "when it is there; without, assumed, as shim 16.x creates it (--mok-untrusted:\n"
        "platform, boot images only).  MokIgnoreDB in --efivars: db vouches for shim\n"
        "only.  Files in the wrong order (a shim\n"
        "given as LOADER, a module as KERNEL ...) get a warning saying so.\n"
        "--json: one object per link {file, type, role, verdict, error, reason, signer,\n"
        "trusted_by, parent, keys_added}; verdict null for a file that cannot be read.\n"
        "SBAT, always, as shim applies it in secure mode: shim sets SbatLevel from\n"
        "--sbat-policy latest|automatic|reset (default: SbatPolicy in --efivars, else\n"
        "automatic) and its .sbatlevel, never older than the variable (--sbat-level SPEC,\n"
        "or SbatLevelRT in --efivars; none: no variable yet); a level that would revoke\n"
        "shim itself is not set, and shim then stops in secure mode (nothing boots);\n"
        "shim checks its own .sbat (a revoked shim powers the machine off) and the\n"
        "loader's (required); the kernel needs none.\n",
        opts, NULL);
}

struct vars {
    const char *path[MAX_VARS];
    size_t n;
};

static int push(struct vars *v, const char *p)
{
    if (v->n >= MAX_VARS) {
        fprintf(stderr, "ktrust chain: at most %d files per option\n", MAX_VARS);
        return -1;
    }
    v->path[v->n++] = p;
    return 0;
}

/* Links given in the wrong order: say so, once, before the verdicts (which
 * then explain little). */
static void check_order(char **files, size_t n)
{
    static const char *const pos[] = {"SHIM", "LOADER", "KERNEL"};
    size_t i;
    const char *why;
    if (kt_chain_check_order((const char *const *)files, n, &i, &why))
        fprintf(stderr,
                "ktrust chain: the order looks wrong: %s (given as %s) %s; the order is "
                "SHIM LOADER KERNEL [MODULE...]\n",
                tx(files[i]), i < 3 ? pos[i] : "a MODULE", tx(why));
}

static int link_exit(const struct kt_chain_link *l)
{
    return cli_exit_code(l->verdict);
}

static const char *g_sbat_text; /* the link's SBAT line for json_link/text_link, or NULL */

static void json_link(const struct kt_chain_link *l)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "file", l->file);
    jw_str(&w, "type", "chain");
    jw_str(&w, "role", kt_chain_role_name(l->role));
    if (cli_exit_code(l->verdict) >= EXIT_USAGE || kt_verdict_of(l->verdict) == KT_INTERNAL)
        jw_null(&w, "verdict"); /* not verified (unreadable): as every command */
    else
        jw_str(&w, "verdict", kt_verdict_name(kt_verdict_of(l->verdict)));
    jw_str(&w, "error", kt_errno_name(l->verdict));
    jw_str(&w, "reason", l->reason);
    jw_str(&w, "signer", l->signer[0] ? l->signer : NULL);
    jw_str(&w, "trusted_by", l->trusted_by[0] ? l->trusted_by : NULL);
    jw_str(&w, "parent", l->parent >= 0 ? kt_chain_role_name((enum kt_chain_role)l->parent) : NULL);
    jw_int(&w, "keys_added", (long long)l->keys_added);
    if (g_sbat_text)
        jw_str(&w, "sbat", g_sbat_text[0] ? g_sbat_text : NULL);
    jw_obj_end(&w);
    jw_newline(&w);
}

static void text_link(const char *prefix, const struct kt_chain_link *l)
{
    printf("%s%s %s: %s — %s\n", prefix, kt_chain_role_name(l->role), tx(l->file),
           kt_verdict_name(kt_verdict_of(l->verdict)), tx(l->reason));
    if (g_sbat_text && g_sbat_text[0])
        printf("      sbat: %s\n", tx(g_sbat_text));
}

static int write_dot(const char *out, const struct vars *db, const struct kt_chain_link *links,
                     size_t n_links)
{
    struct cli_dot d;
    if (dot_open(&d, out, "secureboot"))
        return EXIT_NOINPUT;
    char label[1024] = "UEFI db\n";
    for (size_t i = 0; i < db->n; i++) {
        size_t n = strlen(label);
        snprintf(label + n, sizeof(label) - n, "%s\n", dot_base(db->path[i]));
    }
    dot_node(&d, "db", "lightblue", false, "%s", label);
    size_t n_trusted_mods = 0, n_mods = 0;
    for (size_t i = 0; i < n_links; i++)
        if (links[i].role == KT_LINK_MODULE) {
            n_mods++;
            n_trusted_mods += links[i].verdict == 0;
        }
    for (size_t i = 0; i < n_links; i++) {
        const struct kt_chain_link *l = &links[i];
        char id[32];
        const char *parent = l->role == KT_LINK_SHIM || l->parent < 0 ? "db"
                             : l->role == KT_LINK_MODULE ? "kernel" : "shim";
        if (!l->file)
            continue;
        if (l->role == KT_LINK_MODULE && l->verdict == 0 && n_mods > MODULES_SHOWN)
            continue; /* summarised below */
        if (l->role == KT_LINK_MODULE)
            snprintf(id, sizeof(id), "m%zu", i);
        else
            snprintf(id, sizeof(id), "%s", kt_chain_role_name(l->role));
        dot_node(&d, id, dot_verdict_fill(l->verdict), false, "%s\n%s\n%s",
                 kt_chain_role_name(l->role), dot_base(l->file),
                 kt_verdict_name(kt_verdict_of(l->verdict)));
        dot_edge(&d, parent, id, l->verdict == 0);
    }
    if (n_mods > MODULES_SHOWN && n_trusted_mods) {
        dot_node(&d, "mods", "palegreen", false, "%zu modules\ntrusted", n_trusted_mods);
        dot_edge(&d, "kernel", "mods", true);
    }
    return dot_close(&d);
}

struct modules {
    struct kt_chain_link *links; /* links[3 + i]: module i */
};

/* SYSTEMD-BOOT UKI [MODULE...]: no shim, firmware starts systemd-boot
 * (kt_chain_is_systemd_boot); the files as SHIM LOADER KERNEL with no SHIM. */
static char **no_shim_files(char **argv, size_t n)
{
    char **f = calloc(n + 1, sizeof(*f));
    if (f)
        memcpy(f + 1, argv, n * sizeof(*f));
    return f;
}

static int keep_module(void *ctx, size_t i, const struct kt_chain_link *l)
{
    ((struct modules *)ctx)->links[3 + i] = *l;
    return 0;
}

/* Where MOK keys went, and whether that was assumed (no variables). */
struct mok_note {
    size_t n_files;
    bool assumed;
};

/* In the text's order: the MOK and SbatLevel records, the links, then the
 * summary (json_summary.h), counts by the links' verdicts. */
static void print_json(const struct kt_chain_report *r, const struct kt_chain_link *links,
                       size_t n_links, const struct mok_note *m, int worst)
{
    struct jw w;
    if (m->n_files) {
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "mok");
        jw_str(&w, "keyring", r->mok_trusted ? "machine" : "platform");
        jw_bool(&w, "assumed", m->assumed);
        jw_obj_end(&w);
        jw_newline(&w);
    }
    if (r->sbat_on) {
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "sbat_level");
        jw_str(&w, "level", r->have_sbat_applied && r->sbat_applied[0] ? r->sbat_applied : NULL);
        jw_str(&w, "previous", r->have_sbat_current && r->sbat_current[0] ? r->sbat_current : NULL);
        jw_str(&w, "note", r->sbat_note);
        jw_obj_end(&w);
        jw_newline(&w);
    }
    struct cli_tally t = {0};
    for (size_t i = 0; i < n_links; i++) {
        if (!links[i].file)
            continue; /* no shim: firmware starts systemd-boot */
        g_sbat_text = r->sbat_on && i < 3 ? r->sbat[i] : NULL;
        json_link(&links[i]);
        cli_tally_add(&t, links[i].verdict, true);
    }
    g_sbat_text = NULL;
    cli_tally_summary(&t, stdout, worst, false);
}

static void print_text(const struct kt_chain_report *r, const struct kt_chain_link *links,
                       size_t n_links, const char *efivars, const struct vars *db,
                       const struct vars *dbx, const struct mok_note *m, bool verbose, int worst)
{
    size_t counts[8] = {0};
    for (size_t i = 3; i < n_links; i++)
        counts[kt_verdict_of(links[i].verdict) <= KT_REFUSED ? kt_verdict_of(links[i].verdict) : 7]++;
    printf("db: ");
    if (efivars)
        printf("%s (efivars)%s", tx(efivars), db->n ? ", " : "");
    for (size_t i = 0; i < db->n; i++)
        printf("%s%s", i ? ", " : "", tx(db->path[i]));
    if (dbx->n)
        printf("  (dbx: %zu file%s)", dbx->n, dbx->n == 1 ? "" : "s");
    printf("\n");
    if (m->n_files)
        printf("MOK: %zu file%s, into %s%s\n", m->n_files, m->n_files == 1 ? "" : "s",
               r->mok_trusted ? "machine (vouches for modules too)" : "platform (boot images only)",
               m->assumed ? "; assumed MokListTrustedRT, as shim 16.x sets it (--mok-untrusted: "
                            "platform)" : "");
    if (r->sbat_on)
        printf("SbatLevel: %s\n", tx(r->sbat_note));
    for (size_t i = 0; i < 3; i++) {
        static const char *const pre[3] = {"└─ ", "   ├─ ", "   └─ "};
        g_sbat_text = r->sbat_on ? r->sbat[i] : NULL;
        if (links[i].file)
            text_link(pre[i], &links[i]);
    }
    g_sbat_text = NULL;
    size_t n_mods = n_links - 3, shown = 0;
    for (size_t i = 3; i < n_links; i++) {
        if (!verbose && n_mods > MODULES_SHOWN && links[i].verdict == 0)
            continue;
        text_link(shown + 1 < n_mods ? "      ├─ " : "      └─ ", &links[i]);
        shown++;
    }
    if (n_mods)
        printf("      modules: %zu trusted, %zu untrusted, %zu rejected, %zu unsigned, %zu malformed, %zu other\n",
               counts[KT_TRUSTED], counts[KT_UNTRUSTED], counts[KT_REJECTED],
               counts[KT_UNSIGNED], counts[KT_MALFORMED],
               counts[KT_UNSUPPORTED] + counts[KT_REFUSED] + counts[7]);
    printf("chain: %s\n", worst == 0 ? "every link trusted" : "NOT every link is trusted");
}

/* The engine's report as the chain's links: shim, loader, kernel, modules. */
static int run(struct kt_chain_opts *co, struct kt_chain_report *r, struct kt_chain_link *links,
               size_t n_links, bool *failed)
{
    struct modules m = {links};
    struct kt_error e = KT_ERROR_INIT;
    co->on_module = keep_module;
    co->ctx = &m;
    int rc = kt_chain_run(co, r, &e);
    *failed = rc < 0;
    if (rc < 0) {
        cli_error(r->error_file ? r->error_file : "chain", &e);
        return cli_exit_code(rc);
    }
    for (size_t i = 0; i < 3; i++)
        links[i] = r->link[i];
    int worst = 0;
    if (r->sbat_on && r->sbat_rc < 0) {
        cli_error(co->shim, &r->sbat_error);
        worst = cli_exit_code(r->sbat_rc);
    }
    for (size_t i = 0; i < n_links; i++) {
        int code = link_exit(&links[i]);
        if (code > worst)
            worst = code;
    }
    return worst;
}

/* The boot's files into the engine's options: the extra db/dbx/MOK files,
 * then SHIM LOADER KERNEL [MODULE...]. */
static void set_files(struct kt_chain_opts *co, const struct vars *db, const struct vars *dbx,
                      const struct vars *mok, char **files, size_t n)
{
    co->db = (const char *const *)db->path;
    co->n_db = db->n;
    co->dbx = (const char *const *)dbx->path;
    co->n_dbx = dbx->n;
    co->mok = (const char *const *)mok->path;
    co->n_mok = mok->n;
    co->shim = files[0];
    co->loader = files[1];
    co->kernel = files[2];
    co->modules = (const char *const *)&files[3];
    co->n_modules = n - 3;
}

/* The positional files (n; SYSTEMD-BOOT UKI when sdboot) and the options
 * they need: 0, or a usage error's code. */
static int check_args(int n, bool sdboot, bool have_db, const char *efivars, size_t n_apply)
{
    if (!have_db && !efivars)
        return cli_usage_error("chain", "--db is required (the UEFI db: certificates or an ESL)");
    if (n < (sdboot ? 2 : 3))
        return cli_usage_error("chain", sdboot ? "SYSTEMD-BOOT and its UKI (KERNEL) are required"
                                               : "SHIM, LOADER and KERNEL are required");
    if (n_apply && !efivars)
        return cli_usage_error("chain", "--apply needs --efivars (the variables it changes)");
    return 0;
}

/* --efivars DIR into *vars (co->vars then points to it): 0 or the exit code. */
static int read_vars(const char *efivars, struct kt_efivars *vars, struct kt_chain_opts *co)
{
    struct kt_error e = KT_ERROR_INIT;
    if (!efivars)
        return 0;
    if (kt_efivars_read(efivars, vars, &e) < 0) {
        cli_errorf(efivars, "cannot open: %s", strerror(-e.code));
        return EXIT_NOINPUT;
    }
    co->vars = vars;
    return 0;
}

int cmd_chain(int argc, char **argv)
{
    struct vars db = {0}, dbx = {0}, mok = {0};
    const char *dot = NULL, *efivars = NULL;
    struct kt_sbat_level *level = NULL;
    struct cli_apply apply = {0};
    struct kt_chain_opts co = {.strict_vars = true, .sbat = true}; /* shim in secure mode */
    bool json = false, quiet = false, verbose = false;
    int mok_trust = -1; /* --mok-trusted 1, --mok-untrusted 0, neither -1 */
    struct cli_getopt g;
    int c;
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        switch (c) {
        case OPT_DB: if (push(&db, optarg)) return EXIT_USAGE; break;
        case OPT_DBX: if (push(&dbx, optarg)) return EXIT_USAGE; break;
        case OPT_MOK: if (push(&mok, optarg)) return EXIT_USAGE; break;
        case OPT_DOT: dot = optarg; break;
        case OPT_MOK_TRUSTED: mok_trust = 1; break;
        case OPT_MOK_UNTRUSTED: mok_trust = 0; break;
        case OPT_EFIVARS: efivars = optarg; break;
        case OPT_APPLY:
            if (cli_apply_add(&apply, "chain", optarg) < 0) {
                kt_sbat_level_close(level);
                return EXIT_USAGE;
            }
            break;
        case OPT_SBAT_LEVEL:
            if ((c = cli_sbat_level_load(optarg, &level)) != 0)
                return c;
            co.sbat_level = level;
            break;
        case OPT_SBAT_POLICY:
            if (kt_sbat_policy_parse(optarg, &co.sbat_policy) < 0) {
                kt_sbat_level_close(level);
                return cli_usage_error("chain", "--sbat-policy latest, automatic or reset");
            }
            break;
        case OPT_JSON: json = true; break;
        case 'q': quiet = true; break;
        case 'v': verbose = true; break;
        case 'h': usage(stdout); return 0;
        default: return EXIT_USAGE; /* cli_getopt said why */
        }
    }
    bool sdboot = argc - optind >= 1 && kt_chain_is_systemd_boot(argv[optind]);
    int uc = check_args(argc - optind, sdboot, db.n != 0, efivars, apply.n);
    if (uc) {
        kt_sbat_level_close(level);
        return uc;
    }
    if (!sdboot)
        check_order(argv + optind, (size_t)(argc - optind));
    co.mok_trust = mok_trust == 1 ? KT_MOK_TRUST_YES : mok_trust == 0 ? KT_MOK_TRUST_VARS
                                                                      : KT_MOK_TRUST_AUTO;
    struct kt_efivars vars = {0};
    if ((uc = read_vars(efivars, &vars, &co)) != 0) {
        kt_sbat_level_close(level);
        return uc;
    }
    if (cli_apply_all(&vars, &apply, json, quiet)) {
        kt_efivars_free(&vars);
        kt_sbat_level_close(level);
        return cli_apply_cannot_answer(&apply, json, quiet);
    }
    size_t n_links = (size_t)(argc - optind) + sdboot;
    char **files = sdboot ? no_shim_files(argv + optind, n_links - 1) : argv + optind;
    struct kt_chain_link *links = files ? calloc(n_links, sizeof(*links)) : NULL;
    if (!links) {
        if (sdboot)
            free(files);
        kt_efivars_free(&vars);
        kt_sbat_level_close(level);
        return EXIT_INTERNAL;
    }
    set_files(&co, &db, &dbx, &mok, files, n_links);
    co.firmware_only = sdboot; /* no shim: files[0] is NULL */
    char cache[4096];
    co.kernel_cache = cli_cache_dir(cache, sizeof(cache));
    struct kt_chain_report r;
    bool failed;
    int worst = run(&co, &r, links, n_links, &failed);
    struct mok_note mn = {mok.n, r.mok_assumed};
    if (!failed) {
        if (json)
            print_json(&r, links, n_links, &mn, worst);
        else if (!quiet)
            print_text(&r, links, n_links, efivars, &db, &dbx, &mn, verbose, worst);
        if (dot) {
            int drc = write_dot(dot, &db, links, n_links);
            if (drc > worst)
                worst = drc;
        }
    }
    free(links);
    if (sdboot)
        free(files);
    kt_chain_report_free(&r);
    kt_efivars_free(&vars);
    kt_sbat_level_close(level);
    return worst;
}
