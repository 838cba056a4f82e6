/* ktrust load-pe-key: verify signed PE binaries and add the keys they wrap
 * to a keyring, flagged trusted, in one store transaction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert_print.h"
#include "cli.h"
#include "keyload.h"
#include "ktrust/advanced.h"
#include "ktrust/verify.h"
#include "ktrust/x509.h"

enum { OPT_KEYRING = OPT_FIRST_PRIVATE, OPT_PURPOSE, OPT_SHA1 };

static const struct cli_opt opts[] = {
    CLI_OPT("keyring", 0, required_argument, OPT_KEYRING, "NAME",
            "the keyring the wrapped keys are added to (default secondary)"),
    CLI_OPT("purpose", 0, required_argument, OPT_PURPOSE, "uefi|kexec",
            "verify the PE as verify-pe does for that purpose (default uefi)"),
    CLI_OPT("allow-sha1", 0, no_argument, OPT_SHA1, NULL,
            "accept SHA-1 image digests (refused as unsupported, 3, without it)"),
    CLI_OPTS(cli_opts_common),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust load-pe-key FILE... [--keyring NAME] [--trust FILE]... [--store PATH]\n"
        "                          [--kernel VMLINUZ] [--purpose uefi|kexec] [--allow-sha1] [--json] [-q] [-v]\n\n"
        "Verify each signed PE binary (the keyrings that may vouch: builtin, secondary,\n"
        "machine, platform) and, only if it is trusted, add the certificates it wraps\n"
        "(.keylist section, or shim's .vendor_cert) to the keyring (default secondary),\n"
        "flagged trusted; shim's vendor dbx goes to the blacklist.  All files are one\n"
        "store transaction: if any file is not trusted, nothing is stored.\n"
        "The store is --store, else $KTRUST_STORE, else $XDG_DATA_HOME/ktrust/keyrings.db\n"
        "(also when --trust is given); it is created (its directory must exist) only\n"
        "when there is something to store.\n",
        opts, NULL);
}

/* One file's result, printed once the store's fate is known: not_stored
 * (NULL when the keys were committed) says why a trusted file's keys were
 * not kept, so no line claims a write that did not happen. */
static void print_one(const struct cli_common *co, const char *file, int rc,
                      const struct kt_error *e, const struct kt_pe_load_result *res,
                      const char *ring, const char *not_stored)
{
    char why[sizeof(e->what) + 64];
    if (rc == 0 && not_stored)
        snprintf(why, sizeof(why), "verified (trusted); not stored: %s", not_stored);
    if (co->json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "file", file);
        jw_str(&w, "type", "pe");
        if (cli_exit_code(rc) == EXIT_NOINPUT)
            jw_null(&w, "verdict"); /* not read */
        else
            jw_str(&w, "verdict", kt_verdict_name(kt_verdict_of(rc)));
        jw_str(&w, "error", kt_errno_name(rc));
        jw_str(&w, "reason", rc ? e->what
                             : not_stored ? why
                                          : "trusted: its wrapped keys were added");
        jw_str(&w, "keyring", ring);
        jw_str(&w, "wrapped", res->kind ? kt_wrap_kind_name(res->kind) : NULL);
        jw_arr(&w, "added");
        for (size_t i = 0; rc == 0 && !not_stored && i < res->n_added; i++)
            cli_cert_json(&w, NULL, kt_key_cert(res->added[i]));
        jw_arr_end(&w);
        jw_int(&w, "blacklisted", rc == 0 && !not_stored ? (long long)res->n_blacklisted : 0);
        jw_obj_end(&w);
        jw_newline(&w);
        return;
    }
    if (co->quiet || cli_exit_code(rc) == EXIT_NOINPUT)
        return; /* an unreadable file: its stderr line says it all */
    if (rc != 0) {
        printf("%s: %s: nothing added\n", tx(file), kt_verdict_name(kt_verdict_of(rc)));
        return;
    }
    if (not_stored) {
        printf("%s: %s\n", tx(file), tx(why));
        return;
    }
    printf("%s: trusted; %zu key%s from %s added to %s, flagged trusted\n", tx(file), res->n_added,
           res->n_added == 1 ? "" : "s", kt_wrap_kind_name(res->kind), tx(ring));
    for (size_t i = 0; i < res->n_added; i++) {
        char hex[65];
        const struct kt_x509 *cert = kt_key_cert(res->added[i]);
        printf("  + %s\n    sha256 %s\n", tx(kt_x509_description(cert)),
               kt_hex(kt_x509_sha256(cert), 32, hex));
    }
    if (res->n_blacklisted)
        printf("  + %zu vendor dbx entr%s added to blacklist\n", res->n_blacklisted,
               res->n_blacklisted == 1 ? "y" : "ies");
}

struct one {
    int rc;
    struct kt_error e;
    struct kt_pe_load_result res;
};

struct load_to {
    struct kt_keyrings *rings;
    struct kt_keyring *target;
    const struct kt_policy *pol;
};

/* Verifies each file and adds the keys it wraps (in memory: the caller
 * commits); fills r[i], counts the keys added in *n_new, names the first
 * failed file in *failed; returns the worst exit code. */
static int load_all(const struct load_to *to, char **files, int nf, struct one *r, size_t *n_new,
                    const char **failed)
{
    int worst = 0;
    for (int i = 0; i < nf; i++) {
        struct kt_file f;
        r[i].e = (struct kt_error)KT_ERROR_INIT;
        r[i].rc = kt_file_open(files[i], &f, &r[i].e);
        if (r[i].rc == 0) {
            r[i].rc = kt_pe_load_keys_policy(f.data, f.len, to->rings, to->target, to->pol,
                                             files[i], &r[i].res, &r[i].e);
            if (r[i].rc == 0)
                *n_new += r[i].res.n_added + r[i].res.n_blacklisted;
            kt_file_close(&f);
        }
        if (r[i].rc < 0)
            cli_error(files[i], &r[i].e);
        int code = cli_exit_code(r[i].rc);
        if (code > worst) {
            worst = code;
            *failed = *failed ? *failed : files[i];
        }
    }
    return worst;
}

int cmd_load_pe_key(int argc, char **argv)
{
    struct cli_common co = {0};
    struct kt_policy pol = {.purpose = KT_VERIFY_PURPOSE_UEFI};
    const char *ring_name = "secondary";
    struct cli_getopt g;
    int c;
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        int h = cli_common_opt(&co, c, optarg);
        if (h < 0)
            return EXIT_USAGE;
        if (h)
            continue;
        switch (c) {
        case 'h': usage(stdout); return 0;
        case OPT_KEYRING: ring_name = optarg; break;
        case OPT_SHA1: pol.allow_sha1 = true; break;
        case OPT_PURPOSE:
            if (cli_parse_verify_purpose(optarg, false, &pol.purpose) < 0)
                return cli_usage_error("load-pe-key", "--purpose takes uefi or kexec");
            break;
        default: return EXIT_USAGE; /* cli_getopt said why */
        }
    }
    if (optind >= argc)
        return cli_usage_error("load-pe-key", "no PE file given");

    struct kt_ctx *ctx = NULL;
    struct kt_error e = KT_ERROR_INIT;
    const char *bad = NULL;
    int rc = cli_open_ctx_write(&co, &ctx, &e, &bad);
    if (rc < 0) {
        cli_error(bad, &e);
        cli_json_setup_failed(&co, "pe", argv + optind, argc - optind, rc, &e);
        return cli_exit_code(rc);
    }
    struct kt_keyrings *rings = kt_ctx_keyrings(ctx);
    struct kt_keyring *target = kt_keyrings_get(rings, ring_name);
    if (!target) {
        cli_errorf(NULL, "no keyring '%s' to add keys to", ring_name);
        kt_ctx_free(ctx);
        return EXIT_USAGE;
    }
    int nf = argc - optind;
    size_t n_new = 0;
    struct one *r = calloc((size_t)nf, sizeof(*r));
    if (!r) {
        kt_ctx_free(ctx);
        return EXIT_INTERNAL;
    }
    const char *failed = NULL;
    const struct load_to to = {rings, target, &pol};
    int worst = load_all(&to, argv + optind, nf, r, &n_new, &failed);
    /* a store that did not exist is made only when there is something to keep;
     * the results are printed after the commit, saying whether it happened */
    char not_stored[sizeof(e.what) + 128] = "";
    if (worst == 0 && (kt_ctx_has_store(ctx) || n_new)) {
        if ((rc = kt_ctx_commit(ctx, &e)) < 0) {
            cli_error(kt_ctx_store_path(ctx), &e);
            worst = cli_exit_code(rc);
            snprintf(not_stored, sizeof(not_stored), "%s", e.what);
        }
    } else if (worst) {
        snprintf(not_stored, sizeof(not_stored),
                 "%s failed, and all files are one store transaction", failed);
    }
    for (int i = 0; i < nf; i++) {
        print_one(&co, argv[optind + i], r[i].rc, &r[i].e, &r[i].res, ring_name,
                  not_stored[0] ? not_stored : NULL);
        kt_pe_load_result_free(&r[i].res);
    }
    free(r);
    if (worst) {
        kt_ctx_rollback(ctx);
        if (!co.quiet && !co.json)
            fprintf(stderr, "ktrust: load-pe-key: nothing stored (%s)\n",
                    rc < 0 ? "the store could not be written" : "a file failed");
    }
    kt_ctx_free(ctx);
    return worst;
}
