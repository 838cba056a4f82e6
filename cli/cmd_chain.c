/* ktrust chain: simulate the secure-boot trust chain offline and print a
 * tree of verdicts (text, --json, --dot). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain/chain.h"
#include "chain_sbat.h"
#include "sbat_print.h"
#include "cli.h"
#include "pe/pe.h"
#include "verify/detect.h"
#include "util/file.h"

#define MAX_VARS 32
#define MODULES_SHOWN 40

enum { OPT_DB = OPT_FIRST_PRIVATE, OPT_DBX, OPT_MOK, OPT_DOT, OPT_MOK_TRUSTED, OPT_EFIVARS,
       OPT_SBAT_LEVEL, OPT_SBAT_POLICY };

static const struct cli_opt opts[] = {
    CLI_OPT("db", 0, required_argument, OPT_DB, "FILE",
            "the UEFI db: certificates (DER/PEM) or an EFI signature list (repeatable; "
            "required without --efivars)"),
    CLI_OPT("dbx", 0, required_argument, OPT_DBX, "FILE", "the dbx, the same way (repeatable)"),
    CLI_OPT("mok", 0, required_argument, OPT_MOK, "FILE",
            "MOK keys, the same way (repeatable); they join platform"),
    CLI_OPT("mok-trusted", 0, no_argument, OPT_MOK_TRUSTED, NULL,
            "MokListTrustedRT is set: MOK keys join machine and vouch for modules too"),
    CLI_OPT("efivars", 0, required_argument, OPT_EFIVARS, "DIR",
            "db, dbx, MokListRT, MokListXRT, SbatLevelRT, SecureBoot by their efivarfs "
            "names (/sys/firmware/efi/efivars on a live system)"),
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
        "usage: ktrust chain --db FILE... [--dbx FILE...] [--mok FILE... [--mok-trusted]] [--json]\n"
        "                    [--dot OUT.dot] [-q] [-v]\n"
        "                    SHIM LOADER KERNEL [MODULE...]\n\n"
        "Simulate secure boot offline: db vouches for shim (dbx revokes); shim's vendor\n"
        "certificate and MOK vouch for the loader and the kernel (shim's vendor dbx\n"
        "revokes); the kernel's builtin keys vouch for the modules.  Prints a tree of\n"
        "verdicts with the reason for each link; exit code: the highest over all links.\n"
        "db, dbx and MOK files: certificates (DER/PEM) or EFI signature lists (efivarfs\n"
        "files with their attribute prefix are fine).  MOK keys join platform (boot\n"
        "images only); with --mok-trusted (MokListTrustedRT set) they join machine and\n"
        "vouch for modules too, as the kernel does.  Files in the wrong order (a shim\n"
        "given as LOADER, a module as KERNEL ...) get a warning saying so.\n"
        "--json: one object per link {file, type, role, verdict, error, reason, signer,\n"
        "trusted_by, parent, keys_added}; verdict null for a file that cannot be read.\n"
        "SBAT (on with --efivars, --sbat-level or --sbat-policy): shim sets SbatLevel from\n"
        "--sbat-policy latest|automatic|reset (default automatic) and its .sbatlevel,\n"
        "never older than the variable (--sbat-level SPEC, or SbatLevelRT in --efivars)\n"
        "and never revoking itself; shim checks its own .sbat (a revoked shim powers the\n"
        "machine off) and the loader's (required); the kernel needs none.\n",
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

typedef int (*var_fn)(struct kt_chain *, const uint8_t *, size_t, const char *, struct kt_error *);

static int load_vars(struct kt_chain *c, const struct vars *v, var_fn fn)
{
    for (size_t i = 0; i < v->n; i++) {
        struct kt_file f;
        struct kt_error e = {0};
        int rc = kt_file_open(v->path[i], &f, &e);
        if (rc == 0) {
            rc = fn(c, f.data, f.len, v->path[i], &e);
            kt_file_close(&f);
        }
        if (rc < 0) {
            cli_error(v->path[i], &e);
            return cli_exit_code(rc);
        }
    }
    return 0;
}

typedef int (*link_fn)(struct kt_chain *, const uint8_t *, size_t, const char *,
                       struct kt_chain_link *);

static int run_link(struct kt_chain *c, link_fn fn, const char *path, struct kt_chain_link *l,
                    enum kt_chain_role role)
{
    struct kt_file f;
    struct kt_error e = {0};
    int rc = kt_file_open(path, &f, &e);
    if (rc < 0) {
        memset(l, 0, sizeof(*l));
        l->role = role;
        l->file = path;
        l->verdict = rc;
        snprintf(l->reason, sizeof(l->reason), "%s", e.what);
        return rc;
    }
    rc = fn(c, f.data, f.len, path, l);
    kt_file_close(&f);
    return rc;
}

/* What a link's file is: 'S' a PE with shim's .vendor_cert, 'P' another PE,
 * 'M' a kernel module, '?' anything else or unreadable. */
static char file_kind(const char *path)
{
    struct kt_file f;
    struct kt_error e = {0};
    if (kt_file_open(path, &f, &e) < 0)
        return '?';
    char k = '?';
    enum kt_ftype t = kt_detect(f.data, f.len, path);
    if (t == KT_FT_MODULE) {
        k = 'M';
    } else if (t == KT_FT_PE) {
        struct kt_pe *pe;
        kt_span sec;
        k = 'P';
        if (kt_pe_parse(f.data, f.len, &pe, &e) == 0) {
            if (kt_pe_find_section(pe, ".vendor_cert", &sec) == 0)
                k = 'S';
            kt_pe_free(pe);
        }
    }
    kt_file_close(&f);
    return k;
}

/* Links given in the wrong order (a shim after the first place, a module
 * among SHIM LOADER KERNEL, a PE among the modules): say so, once, before
 * the verdicts (which then explain little).  Returns true when wrong. */
static bool check_order(char **files, size_t n)
{
    static const char *const pos[] = {"SHIM", "LOADER", "KERNEL"};
    char first = file_kind(files[0]);
    for (size_t i = 0; i < n; i++) {
        char k = i ? file_kind(files[i]) : first;
        const char *why = NULL;
        if (i == 0 && k == 'M')
            why = "is a kernel module";
        else if (i > 0 && k == 'S' && first != 'S')
            why = "is a shim (it has .vendor_cert), and the first file is not";
        else if (i > 0 && i < 3 && k == 'M')
            why = "is a kernel module";
        else if (i >= 3 && (k == 'P' || k == 'S'))
            why = "is a PE image, not a kernel module";
        if (why) {
            fprintf(stderr,
                    "ktrust chain: the order looks wrong: %s (given as %s) %s; the order is "
                    "SHIM LOADER KERNEL [MODULE...]\n",
                    files[i], i < 3 ? pos[i] : "a MODULE", why);
            return true;
        }
    }
    return false;
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
    printf("%s%s %s: %s — %s\n", prefix, kt_chain_role_name(l->role), l->file,
           kt_verdict_name(kt_verdict_of(l->verdict)), l->reason);
    if (g_sbat_text && g_sbat_text[0])
        printf("      sbat: %s\n", g_sbat_text);
}

static const char *dot_color(int verdict)
{
    switch (kt_verdict_of(verdict)) {
    case KT_TRUSTED: return "palegreen";
    case KT_REJECTED: return "tomato";
    case KT_MALFORMED: return "orange";
    default: return "lightgrey";
    }
}

static void dot_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
}

static void dot_node(FILE *f, const char *id, const struct kt_chain_link *l)
{
    const char *base = strrchr(l->file, '/');
    fprintf(f, "  %s [label=\"%s\\n", id, kt_chain_role_name(l->role));
    dot_escape(f, base ? base + 1 : l->file);
    fprintf(f, "\\n%s\", fillcolor=%s];\n", kt_verdict_name(kt_verdict_of(l->verdict)),
            dot_color(l->verdict));
}

static int write_dot(const char *out, const struct vars *db, const struct kt_chain_link *links,
                     size_t n_links)
{
    FILE *f = fopen(out, "w");
    if (!f) {
        cli_errorf(out, "cannot write: %m");
        return EXIT_NOINPUT;
    }
    fprintf(f, "digraph secureboot {\n  rankdir=TB;\n  node [shape=box, style=filled];\n");
    fprintf(f, "  db [label=\"UEFI db\\n");
    for (size_t i = 0; i < db->n; i++) {
        const char *b = strrchr(db->path[i], '/');
        dot_escape(f, b ? b + 1 : db->path[i]);
        fprintf(f, "\\n");
    }
    fprintf(f, "\", fillcolor=lightblue];\n");
    size_t n_trusted_mods = 0, n_mods = 0;
    for (size_t i = 0; i < n_links; i++)
        if (links[i].role == KT_LINK_MODULE) {
            n_mods++;
            n_trusted_mods += links[i].verdict == 0;
        }
    for (size_t i = 0; i < n_links; i++) {
        const struct kt_chain_link *l = &links[i];
        char id[32];
        const char *parent = l->role == KT_LINK_SHIM ? "db" : l->role == KT_LINK_MODULE ? "kernel" : "shim";
        if (l->role == KT_LINK_MODULE && l->verdict == 0 && n_mods > MODULES_SHOWN)
            continue; /* summarised below */
        if (l->role == KT_LINK_MODULE)
            snprintf(id, sizeof(id), "m%zu", i);
        else
            snprintf(id, sizeof(id), "%s", kt_chain_role_name(l->role));
        dot_node(f, id, l);
        fprintf(f, "  %s -> %s [color=%s];\n", parent, id, l->verdict == 0 ? "darkgreen" : "red");
    }
    if (n_mods > MODULES_SHOWN && n_trusted_mods) {
        fprintf(f, "  mods [label=\"%zu modules\\ntrusted\", fillcolor=palegreen];\n", n_trusted_mods);
        fprintf(f, "  kernel -> mods [color=darkgreen];\n");
    }
    fprintf(f, "}\n");
    if (fclose(f) != 0) {
        cli_errorf(out, "cannot write: %m");
        return EXIT_NOINPUT;
    }
    return 0;
}

int cmd_chain(int argc, char **argv)
{
    struct vars db = {0}, dbx = {0}, mok = {0};
    const char *dot = NULL, *efivars = NULL;
    struct chain_sb sb = {.secure = true};
    bool json = false, quiet = false, verbose = false, mok_trusted = false;
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
        case OPT_MOK_TRUSTED: mok_trusted = true; break;
        case OPT_EFIVARS: efivars = optarg; sb.on = true; break;
        case OPT_SBAT_LEVEL:
            kt_sbat_level_free(&sb.current);
            if ((c = cli_sbat_level_load(optarg, &sb.current)) != 0)
                return c;
            sb.have_current = sb.on = true;
            break;
        case OPT_SBAT_POLICY:
            if (kt_sbat_policy_parse(optarg, &sb.policy) < 0) {
                kt_sbat_level_free(&sb.current);
                return cli_usage_error("chain", "--sbat-policy latest, automatic or reset");
            }
            sb.on = true;
            break;
        case OPT_JSON: json = true; break;
        case 'q': quiet = true; break;
        case 'v': verbose = true; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (db.n == 0 && !efivars)
        return cli_usage_error("chain", "--db is required (the UEFI db: certificates or an ESL)");
    if (argc - optind < 3) {
        kt_sbat_level_free(&sb.current);
        return cli_usage_error("chain", "SHIM, LOADER and KERNEL are required");
    }

    check_order(argv + optind, (size_t)(argc - optind));
    struct kt_chain *ch;
    if (kt_chain_new(&ch) < 0)
        return EXIT_INTERNAL;
    kt_chain_set_mok_trusted(ch, mok_trusted);
    int worst = efivars ? chain_efivars_load(ch, efivars, &sb) : 0;
    if (!worst)
        worst = load_vars(ch, &db, kt_chain_add_db);
    if (!worst)
        worst = load_vars(ch, &dbx, kt_chain_add_dbx);
    if (!worst)
        worst = load_vars(ch, &mok, kt_chain_add_mok);
    if (worst) {
        kt_chain_free(ch);
        chain_sb_free(&sb);
        return worst;
    }
    size_t n_links = (size_t)(argc - optind);
    struct kt_chain_link *links = calloc(n_links, sizeof(*links));
    if (!links) {
        kt_chain_free(ch);
        return EXIT_INTERNAL;
    }
    const char *shim = argv[optind], *loader = argv[optind + 1], *kernel = argv[optind + 2];
    run_link(ch, kt_chain_shim, shim, &links[0], KT_LINK_SHIM);
    run_link(ch, kt_chain_loader, loader, &links[1], KT_LINK_LOADER);
    run_link(ch, kt_chain_kernel, kernel, &links[2], KT_LINK_KERNEL);
    for (size_t i = 3; i < n_links; i++)
        run_link(ch, kt_chain_module, argv[optind + (int)i], &links[i], KT_LINK_MODULE);
    worst = chain_sbat_apply(&sb, links, n_links, (const char *const *)&argv[optind]);

    size_t counts[8] = {0};
    for (size_t i = 0; i < n_links; i++) {
        int code = link_exit(&links[i]);
        if (code > worst)
            worst = code;
        if (links[i].role == KT_LINK_MODULE)
            counts[kt_verdict_of(links[i].verdict) <= KT_REFUSED ? kt_verdict_of(links[i].verdict) : 7]++;
    }
    if (json) {
        for (size_t i = 0; i < n_links; i++) {
            g_sbat_text = sb.text && i < 3 ? sb.text[i] : NULL;
            json_link(&links[i]);
        }
        g_sbat_text = NULL;
        if (sb.on) {
            struct jw w;
            jw_init(&w, stdout);
            jw_obj(&w, NULL);
            jw_str(&w, "type", "sbat_level");
            jw_str(&w, "level", sb.have_applied && sb.applied.stamp[0] ? sb.applied.stamp : NULL);
            jw_str(&w, "previous", sb.have_current && sb.current.stamp[0] ? sb.current.stamp : NULL);
            jw_str(&w, "note", sb.note);
            jw_obj_end(&w);
            jw_newline(&w);
        }
    } else if (!quiet) {
        printf("db: ");
        if (efivars)
            printf("%s (efivars)%s", efivars, db.n ? ", " : "");
        for (size_t i = 0; i < db.n; i++)
            printf("%s%s", i ? ", " : "", db.path[i]);
        if (dbx.n)
            printf("  (dbx: %zu file%s)", dbx.n, dbx.n == 1 ? "" : "s");
        printf("\n");
        if (sb.on)
            printf("SbatLevel: %s\n", sb.note);
        for (size_t i = 0; i < 3; i++) {
            static const char *const pre[3] = {"└─ ", "   ├─ ", "   └─ "};
            g_sbat_text = sb.text ? sb.text[i] : NULL;
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
    if (dot) {
        int drc = write_dot(dot, &db, links, n_links);
        if (drc > worst)
            worst = drc;
    }
    free(links);
    kt_chain_free(ch);
    chain_sb_free(&sb);
    return worst;
}
