/* ktrust verify-ima FILE... : IMA file signatures (security.ima, an evmctl
 * FILE.sig, an appended modsig) against the `.ima` keyring. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_summary.h"
#include "keyload.h"
#include "ktrust/ima.h"
#include "text_escape.h"
#include "verdict_print.h"

enum {
    OPT_SIGFILE = OPT_FIRST_PRIVATE,
    OPT_NO_MODSIG,
    OPT_IMA_HASH,
    OPT_EVM,
    OPT_EVM_KEY,
    OPT_FUNC,
};

static const struct cli_opt opts[] = {
    CLI_OPT("sigfile", 0, no_argument, OPT_SIGFILE, NULL,
            "read each FILE's signature from FILE.sig (evmctl ima_sign --sigfile), not "
            "from security.ima"),
    CLI_OPTS(cli_opts_ima),
    CLI_OPT("evm", 0, no_argument, OPT_EVM, NULL,
            "EVM is on: check security.evm first (a portable signature, evmctl sign "
            "--portable; an HMAC cannot be checked offline: unsupported)"),
    CLI_OPT("evm-key", 0, required_argument, OPT_EVM_KEY, "CERT",
            "add a certificate to the .evm keyring for this run, obeying its restriction "
            "(repeatable)"),
    CLI_OPT("no-modsig", 0, no_argument, OPT_NO_MODSIG, NULL,
            "never fall back to an appended modsig"),
    CLI_OPT("func", 0, required_argument, OPT_FUNC, "HOOK",
            "the IMA hook that appraises the files (a policy rule's func=: MODULE_CHECK, "
            "KEXEC_KERNEL_CHECK, KEXEC_INITRAMFS_CHECK take a modsig; FILE_CHECK, "
            "BPRM_CHECK, ... do not); without it a modsig that verifies is unsupported (3)"),
    CLI_OPT("ima-hash", 0, required_argument, OPT_IMA_HASH, "ALG",
            "the kernel's ima_hash= (a file whose security.ima names no algorithm is "
            "hashed with it; default sha256)"),
    CLI_OPT("allow-sha1", 0, no_argument, OPT_ALLOW_SHA1, NULL,
            "accept SHA-1 signatures (refused as unsupported, 3, without it)"),
    CLI_OPTS(cli_opts_common),
    {0},
};

static void usage(FILE *f)
{
    cli_usage_print(
        f,
        "usage: ktrust verify-ima FILE... [--trust FILE]... [--store PATH] [--ima-key CERT]...\n"
        "                         [--kernel-config FILE] [--machine-ca]\n"
        "                         [--sigfile] [--evm] [--evm-key CERT]...\n"
        "                         [--no-modsig] [--func HOOK] [--ima-hash ALG] [--allow-sha1]\n"
        "                         [--json] [-q] [-v]\n"
        "Verify IMA file signatures as the kernel's appraisal does: security.ima (read\n"
        "without following a symbolic link) or FILE.sig, v2 and v3 (fs-verity) signatures,\n"
        "or an appended modsig, with the key its id names in the .ima keyring: the\n"
        "store's, or one made for the run under the kernel's rule (--kernel-config):\n"
        "the restricted .ima accepts only keys a builtin (or secondary) key signed\n"
        "(restrict_link_to_ima); without CONFIG_INTEGRITY_TRUSTED_KEYRING the kernel\n"
        "searches _ima, which takes any key user space imports.\n",
        opts,
        "Exit code: the verdict (0 trusted, 1 unsigned, 2 untrusted: unknown key or a key\n"
        "nothing vouches for, 3 unsupported, 4 malformed, 5 rejected, 6 refused: the\n"
        ".ima restriction refused the signer), the highest over all files; 64 usage, 66\n"
        "unreadable input or store.\n");
}

struct ima_print {
    const struct kt_ima_file_result *r;
    const struct cli_ima_keys *keys;
};

static void ima_json(struct jw *w, const void *ctx)
{
    const struct kt_ima_file_result *r = ((const struct ima_print *)ctx)->r;
    const struct kt_ima_sig_check *c = &r->check;
    jw_obj(w, "ima");
    jw_str(w, "source", r->source);
    if (c->header_ok) {
        char kid[9];
        snprintf(kid, sizeof(kid), "%08x", c->keyid);
        jw_int(w, "xattr_type", c->type);
        jw_int(w, "version", c->version);
        jw_str(w, "hash_algorithm", c->hash_name);
        jw_str(w, "keyid", kid);
        jw_int(w, "sig_size", c->sig_size);
    }
    jw_str(w, "digest_algorithm", r->digest_len ? kt_ima_hash_name(r->digest_algo) : NULL);
    jw_hex(w, "digest", r->digest, r->digest_len);
    jw_str(w, "digest_kind", !r->digest_len ? NULL : r->verity ? "fs-verity" : "content");
    jw_str(w, "key", c->signer[0] ? c->signer : NULL);
    jw_int(w, "candidates", (long long)c->n_candidates);
    cli_ima_rule_json(w, "keyring", ((const struct ima_print *)ctx)->keys);
    jw_obj_end(w);
    if (r->evm_checked) {
        const struct kt_ima_sig_check *e = &r->evm;
        char kid[9];
        snprintf(kid, sizeof(kid), "%08x", e->keyid);
        jw_obj(w, "evm");
        jw_str(w, "verdict", kt_verdict_name(e->verdict));
        jw_str(w, "error", kt_errno_name(e->error));
        jw_str(w, "reason", e->reason);
        jw_str(w, "keyid", e->header_ok ? kid : NULL);
        jw_str(w, "key", e->signer[0] ? e->signer : NULL);
        jw_obj_end(w);
    }
}

static void ima_text(FILE *f, const void *ctx)
{
    const struct kt_ima_file_result *r = ((const struct ima_print *)ctx)->r;
    const struct kt_ima_sig_check *c = &r->check;
    if (r->source)
        fprintf(f, "  source: %s\n", r->source);
    if (c->header_ok)
        fprintf(f, "  signature: type %u, v%u, %s, key id %08x, %u bytes\n", c->type, c->version,
                c->hash_name ? c->hash_name : "?", c->keyid, c->sig_size);
    if (c->signer[0])
        fprintf(f, "  key: %s\n", tx(c->signer));
    cli_ima_rule_text(f, "  ", ((const struct ima_print *)ctx)->keys);
    if (r->evm_checked)
        fprintf(f, "  evm: %s (%s)\n", kt_verdict_name(r->evm.verdict), tx(r->evm.reason));
    if (c->n_candidates > 1)
        fprintf(f, "  note: %zu keys of .ima have id %08x; the kernel tries the first its "
                "search finds\n", c->n_candidates, c->keyid);
}

static int one(const char *path, const struct cli_common *co, struct kt_keyrings *k,
               const struct kt_ima_file_opts *base, const struct cli_ima_keys *keys,
               struct cli_tally *t)
{
    struct kt_ima_file_opts o = *base;
    char sig[4096];
    if (base->sigfile) {
        snprintf(sig, sizeof(sig), "%s.sig", path);
        o.sigfile = sig;
    }
    struct kt_error e = KT_ERROR_INIT;
    struct kt_ima_file_result r;
    int rc = kt_ima_verify_file(k, path, &o, &r, &e);
    if (rc < 0) {
        vp_print_unreadable(path, "ima", rc, &e, co->json);
        cli_tally_add(t, rc, false);
        /* a link or a non-regular file is an input that cannot be read as asked */
        return rc == -ELOOP || rc == -EINVAL ? EXIT_NOINPUT : cli_exit_code(rc);
    }
    struct kt_error why = KT_ERROR_INIT;
    why.code = r.check.error;
    snprintf(why.what, sizeof(why.what), "%s", r.check.reason);
    struct ima_print ip = {&r, keys};
    /* the one signature, as every verification result lists its own */
    const struct kt_x509 *cert = r.check.key ? kt_key_cert(r.check.key) : NULL;
    struct kt_signer sg = {.index = 0,
                           .digest_name = r.digest_len ? kt_ima_hash_name(r.digest_algo) : NULL,
                           .digest = r.digest,
                           .digest_len = r.digest_len,
                           .signer = cert,
                           .chain = &cert,
                           .chain_len = cert ? 1 : 0,
                           .trusted_by = r.check.error == 0 ? r.check.key : NULL,
                           .verdict = r.check.error,
                           .linux_since = r.check.error ? 0 : r.check.linux_since,
                           .reason = r.check.error ? r.check.reason : NULL};
    struct vp_result vr = {.file = path, .type = "ima", .rc = r.check.error, .error = &why,
                           .linux_since = r.check.error ? 0 : r.check.linux_since,
                           .sigs = &sg, .n_sigs = r.check.header_ok || cert ? 1 : 0,
                           .extra_json = ima_json, .extra_text = ima_text, .extra_ctx = &ip};
    vp_print(&vr, co->json, co->quiet, co->verbose);
    cli_tally_add(t, r.check.error, true);
    return cli_exit_code(r.check.error);
}

/* The .ima and .evm keyrings of the run (the kernel config's rule) and the
 * --ima-key/--evm-key certificates: 0, or the exit code (66 unreadable, 64
 * a bad certificate or config file, 70 the keyrings themselves). */
static int setup_ring(struct kt_keyrings *k, struct cli_ima_keys *keys, bool quiet)
{
    struct kt_error e = KT_ERROR_INIT;
    const char *bad;
    int rc = cli_ima_keys_load(k, keys, quiet, &bad, &e);
    if (rc == 0)
        return 0;
    cli_error(bad ? bad : ".ima", &e);
    if (!bad)
        return EXIT_INTERNAL;
    return cli_exit_code(rc) == EXIT_NOINPUT ? EXIT_NOINPUT : EXIT_USAGE;
}

int cmd_verify_ima(int argc, char **argv)
{
    struct cli_common co = {0};
    struct kt_ima_file_opts o = {0};
    static struct cli_ima_keys keys; /* large: not on the stack */
    bool sigfile = false;
    struct cli_getopt g;
    int c;
    if (cli_opts_init(&g, opts) < 0)
        return EXIT_INTERNAL;
    while ((c = cli_getopt(argc, argv, &g)) != -1) {
        int r = cli_common_opt(&co, c, optarg);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        if ((r = cli_ima_opt(&keys, "verify-ima", c, optarg)) != 0) {
            if (r > 1)
                return r;
            continue;
        }
        switch (c) {
        case 'h': usage(stdout); return 0;
        case OPT_SIGFILE: sigfile = true; break;
        case OPT_NO_MODSIG: o.no_modsig = true; break;
        case OPT_FUNC:
            if (!kt_ima_func_known(optarg))
                return cli_usage_error("verify-ima", "--func '%s': not an IMA hook (func=)", optarg);
            o.func = optarg;
            break;
        case OPT_ALLOW_SHA1: o.sig.allow_sha1 = true; break;
        case OPT_IMA_HASH: {
            int h = kt_ima_hash_from_name(optarg);
            if (h < 0)
                return cli_usage_error("verify-ima", "--ima-hash '%s': not a kernel hash name", optarg);
            o.ima_hash = (uint8_t)h;
            break;
        }
        case OPT_EVM: o.evm = true; break;
        case OPT_EVM_KEY:
            if ((r = cli_ima_key_add(&keys, "verify-ima", "evm", optarg)) != 0)
                return r;
            break;
        default: return EXIT_USAGE; /* cli_getopt said why */
        }
    }
    if (optind >= argc)
        return cli_usage_error("verify-ima", "no file given");
    o.sigfile = sigfile ? "" : NULL;
    o.kconfig = &keys.config; /* filled by setup_ring */
    struct kt_ctx *ctx;
    int worst = vp_open_ctx(&co, &ctx, "ima", argv + optind, argc - optind);
    if (worst > 0)
        return worst;
    struct kt_keyrings *k = kt_ctx_keyrings(ctx);
    if ((worst = setup_ring(k, &keys, co.quiet)) != 0) {
        kt_ctx_free(ctx);
        return worst;
    }
    struct cli_tally tally = {0};
    for (int i = optind; i < argc; i++) {
        int code = one(argv[i], &co, k, &o, &keys, &tally);
        if (code > worst)
            worst = code;
    }
    if (co.json && argc - optind > 1)
        cli_tally_summary(&tally, stdout, worst, false);
    kt_ctx_free(ctx);
    return worst;
}
