/* check-update --install NEW_SHIM [NEW_LOADER ...]: would this machine,
 * with its variables in force, boot these binaries in place of the current
 * ones?  The answer is the library's (kt_chain_install_check); this reads
 * the variables, prints it and picks the exit code (0 yes, 5 no). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check_update_install.h"

#include "apply_print.h"
#include "cannot_answer.h"
#include "cli.h"
#include "evlog_load.h"
#include "seal_lines.h"
#include "json_summary.h"
#include "ktrust/audit.h"
#include "ktrust/chain.h"
#include "ktrust/sdboot.h"
#include "ktrust/seal.h"
#include "ktrust/uki.h"
#include "util/err.h"

/* The sealed keys and their verdicts with the new binaries (none: found.n
 * 0; r NULL: not checked), and the UKI signed policies are judged by. */
struct sealed_keys {
    struct kt_seal_found found;
    struct kt_seal_check *r;
    struct kt_seal_uki *uki;
};

static void json_sig(struct jw *w, const struct kt_chain_sig *s)
{
    jw_obj(w, NULL);
    jw_int(w, "index", s->index);
    jw_str(w, "signer", s->signer[0] ? s->signer : NULL);
    jw_str(w, "ca", s->ca[0] ? s->ca : NULL);
    jw_bool(w, "accepted", s->verdict == 0);
    jw_str(w, "accepted_by", s->accepted_by[0] ? s->accepted_by : NULL);
    jw_str(w, "reason", s->why[0] ? s->why : NULL);
    jw_obj_end(w);
}

static void print_json(const struct kt_install_check *r, const char *shim, char *const *loaders,
                       int n, int code, const struct sealed_keys *sk)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "type", "install_check");
    jw_str(&w, "file", shim);
    jw_arr(&w, "loaders");
    for (int i = 0; i < n; i++)
        jw_str(&w, NULL, loaders[i]);
    jw_arr_end(&w);
    jw_bool(&w, "boots", r->verdict == 0);
    jw_str(&w, "verdict", r->verdict == 0 ? "trusted" : "rejected");
    jw_str(&w, "why", kt_install_why_name(r->why));
    jw_str(&w, "error", r->verdict ? kt_errno_name(r->verdict) : NULL);
    jw_str(&w, "stopped_at", r->file);
    jw_str(&w, "reason", r->reason);
    jw_arr(&w, "signatures");
    for (size_t i = 0; i < r->n_sigs; i++)
        json_sig(&w, &r->sigs[i]);
    jw_arr_end(&w);
    jw_obj(&w, "sbat");
    jw_str(&w, "current", r->have_sbat_current && r->sbat_current[0] ? r->sbat_current : NULL);
    jw_str(&w, "applied", r->have_sbat_applied && r->sbat_applied[0] ? r->sbat_applied : NULL);
    jw_str(&w, "note", r->sbat_note[0] ? r->sbat_note : NULL);
    jw_obj_end(&w);
    cli_seal_json(&w, "sealed", &sk->found, sk->r);
    jw_obj_end(&w);
    jw_newline(&w);
    struct cli_count c = {code ? "does_not_boot" : "boots", 1};
    struct cli_summary s = {.verdict = code ? "rejected" : "trusted", .exit = code,
                            .counts = &c, .n_counts = 1};
    cli_json_summary(stdout, &s);
}

/* An input that cannot be read or parsed: the object says so (verdict null). */
static void print_json_failed(const char *shim, char *const *loaders, int n, const char *file,
                              int rc, const struct kt_error *e, int code)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "type", "install_check");
    jw_str(&w, "file", shim);
    jw_arr(&w, "loaders");
    for (int i = 0; i < n; i++)
        jw_str(&w, NULL, loaders[i]);
    jw_arr_end(&w);
    jw_null(&w, "boots");
    jw_null(&w, "verdict");
    jw_null(&w, "why");
    jw_str(&w, "error", kt_errno_name(rc));
    jw_str(&w, "stopped_at", file);
    jw_str(&w, "reason", e->what);
    jw_arr(&w, "signatures");
    jw_arr_end(&w);
    jw_null(&w, "sbat");
    jw_obj_end(&w);
    jw_newline(&w);
    struct cli_count c = {code == 4 ? "malformed" : "unreadable", 1};
    char why[512];
    snprintf(why, sizeof(why), "%s: %s", file ? file : shim, e->what[0] ? e->what : "failed");
    struct cli_summary s = {.verdict = code == 4 ? "malformed" : NULL, .exit = code,
                            .counts = &c, .n_counts = 1, .error = why};
    cli_json_summary(stdout, &s);
}

static void print_text(const struct kt_install_check *r, const char *shim,
                       const struct sealed_keys *sk)
{
    printf("%s: %s\n", tx(shim), r->verdict == 0 ? "would boot" : "would NOT boot");
    for (size_t i = 0; i < r->n_sigs; i++) {
        const struct kt_chain_sig *s = &r->sigs[i];
        printf("  signature %d (%s): %s%s\n", s->index, s->ca[0] ? tx(s->ca) : "chain not examined",
               s->verdict == 0 ? "accepted by " : "", s->verdict == 0 ? tx(s->accepted_by) : tx(s->why));
    }
    if (r->have_sbat_current || r->have_sbat_applied)
        printf("  SbatLevel: in force %s; the new shim would apply %s\n",
               r->have_sbat_current && r->sbat_current[0] ? tx(r->sbat_current) : "none",
               r->have_sbat_applied && r->sbat_applied[0] ? tx(r->sbat_applied) : "none");
    printf("%s: %s\n", r->verdict == 0 ? "yes" : "no", tx(r->reason));
    if (sk->r && sk->found.n) {
        printf("TPM-sealed keys after the install:\n");
        cli_seal_text(&sk->found, sk->r, "  ");
        cli_seal_reseal(&sk->found, sk->r, "  ");
    }
}

/* The sealed keys against the PCRs the new binaries give (PCR 4: their
 * digests, PCR 7: the db entries that verify them), predicted from the
 * last boot's log with the variables in force: the library's answer
 * (kt_seal_check_change).  Nothing without a log. */
static int check_sealed(const struct cli_install_seal *o, const char *root, const char *efivars,
                        const char *esp, const struct kt_efivars *vars, const char *shim,
                        const char *loader, const char *new_uki, struct sealed_keys *sk)
{
    struct kt_seal_found *sealed = &sk->found;
    struct cli_evlog log;
    int code = cli_evlog_load(o->log, root, efivars, &log);
    if (!code && o->n_luks && !log.have)
        code = cli_usage_error("check-update", "--luks: the PCRs are predicted from this "
                                               "boot's event log: give --eventlog LOG");
    if (!code && log.have && (o->n_luks || root || !efivars))
        code = cli_seal_find("check-update", root, o->luks, o->n_luks, !o->n_luks, sealed);
    if (!code && sealed->n && !(sk->r = calloc(sealed->n, sizeof(*sk->r))))
        code = EXIT_INTERNAL;
    if (!code && sealed->n)
        code = cli_seal_uki(o->uki ? o->uki : new_uki, esp, vars, sealed, &sk->uki);
    struct kt_sdboot_next_uki nx = {0};
    struct kt_evlog_image_swap swap = {nx.image, new_uki};
    if (!code && sealed->n && new_uki && esp && kt_sdboot_next_uki(esp, vars, &nx, NULL) != 1)
        nx.image[0] = 0;
    if (!code && sealed->n) {
        /* a new UKI: the ESP's images, the UKI in the next entry's place */
        struct kt_evlog_predict_opts po = {.vars = vars};
        if (new_uki)
            po = (struct kt_evlog_predict_opts){.vars = vars, .esp = esp, .uki = new_uki,
                                                .uki_options = nx.type1 ? nx.options : NULL,
                                                .swap = &swap, .n_swap = nx.image[0] != 0};
        struct kt_seal_change c = {.predict = &po, .shim = new_uki ? NULL : shim,
                                   .loader = loader, .uki = sk->uki};
        struct kt_error e = KT_ERROR_INIT;
        int rc = kt_seal_check_change(&log.log, NULL, &c, sealed->tok, sealed->n, sk->r, &e);
        if (rc < 0 && !o->n_luks && !o->log && rc != -ENOMEM) {
            free(sk->r); /* keys nobody named, a log nobody named: not this run's error */
            sk->r = NULL;
        } else if (rc < 0) {
            cli_error(rc == -ENODATA ? o->log ? o->log : "the event log" : shim, &e);
            code = rc == -ENOPKG ? 3 : cli_exit_code(rc);
        }
    }
    cli_evlog_free(&log);
    return code;
}

/* The variables: --efivars, else under --root, else the live ones. */
static const char *vars_dir(const char *efivars, const char *root, char *buf, size_t cap)
{
    if (efivars)
        return efivars;
    if (root) {
        kt_sys_path_under(root, KT_SYS_EFIVARS, buf, cap);
        return buf;
    }
    return kt_sys_path(KT_SYS_EFIVARS);
}

/* No NEW_LOADER: the loader on the ESP today (as audit finds it, under
 * root or on the live system) stays behind the new shim; into out, or "".
 * --efivars alone is another machine's variables: no ESP of this host is
 * looked at (offline reads nothing of the host). */
static void current_loader(const struct cli_install_in *in, char *out, char *esp, size_t cap)
{
    /* only the ESP: "" for the other parts looks nowhere */
    struct kt_audit_opts o = {.root = in->root, .efivars = in->efivars, .esp = in->esp,
                              .kernel = "", .modules = "", .release = ""};
    out[0] = esp[0] = 0;
    if (in->efivars && !in->root && !in->esp)
        return;
    struct kt_audit *a = calloc(1, sizeof(*a));
    if (!a)
        return;
    kt_audit_locate(&o, a);
    if (a->found[KT_AUDIT_ESP])
        snprintf(esp, cap, "%s", a->path[KT_AUDIT_ESP]);
    if (a->found[KT_AUDIT_ESP] && a->links[KT_AUDIT_LOADER].present)
        snprintf(out, cap, "%s", a->links[KT_AUDIT_LOADER].path);
    free(a);
}

/* A new UKI alone: the ESP's systemd-boot (and shim) with it. */
static int check_uki(const struct cli_install_in *in, const struct kt_efivars *vars,
                     const char *uki, char *esp, size_t cap, struct kt_install_check *r,
                     struct kt_error *e, bool say)
{
    char cur[4200], sd[4200];
    if (in->esp)
        snprintf(esp, cap, "%s", in->esp);
    else
        current_loader(in, cur, esp, cap);
    if (!esp[0]) {
        r->file = uki;
        return kt_fail(e, -ENOENT, KT_NO_OFFSET, "no ESP found for the UKI's systemd-boot (give --esp DIR)");
    }
    int rc = kt_chain_install_uki(vars, esp, uki, r, sd, sizeof(sd), e);
    if (say && sd[0])
        printf("the current systemd-boot stays: %s\n", tx(sd));
    return rc;
}

int cli_check_install(int argc, char **argv, const struct cli_install_in *in, bool json,
                      bool quiet)
{
    const char *efivars = in->efivars, *root = in->root;
    struct cli_apply *apply = in->apply;
    if (argc < 1)
        return cli_usage_error("check-update", "--install needs NEW_SHIM [NEW_LOADER ...] or NEW_SYSTEMD_BOOT [NEW_UKI ...]");
    char buf[4200];
    const char *dir = vars_dir(efivars, root, buf, sizeof(buf));
    struct kt_efivars *vars = calloc(1, sizeof(*vars));
    struct kt_install_check *r = calloc(1, sizeof(*r));
    struct kt_error e = KT_ERROR_INIT;
    struct sealed_keys sk = {0};
    int code = 0;
    if (!vars || !r) {
        code = EXIT_INTERNAL;
        goto out;
    }
    struct stat st;
    if (in->esp && (stat(in->esp, &st) < 0 || !S_ISDIR(st.st_mode))) {
        code = cli_cannot_answer(json, quiet, in->esp, EXIT_NOINPUT, "cannot open: not a directory");
        goto out;
    }
    int rc = kt_efivars_read(dir, vars, &e);
    if (rc < 0 && !efivars && rc == -ENOENT) { /* not a UEFI system: 69, never an input's 66 */
        code = cli_cannot_answer(json, quiet, dir, EXIT_NO_EFI, "no EFI variables (not booted "
                                 "with UEFI, or efivarfs not mounted; give --efivars DIR)");
        goto out;
    }
    if (rc < 0) {
        code = cli_cannot_answer(json, quiet, dir, cli_exit_code(rc),
                                 "cannot read the firmware variables: %s", e.what);
        goto out;
    }
    /* the updates first: "after DBUpdate3P2023, would it boot this shim?" */
    if (cli_apply_all(vars, apply, json, quiet)) {
        code = cli_apply_cannot_answer(apply, json, quiet);
        goto out;
    }
    char cur[4200], esp[4200] = "";
    char *cur_argv[2] = {argv[0], cur};
    const char *new_uki = argc == 1 && kt_uki_detect_file(argv[0]) ? argv[0] : NULL;
    if (argc == 1 && !new_uki && !kt_chain_is_systemd_boot(argv[0])) { /* systemd-boot: no loader behind */
        current_loader(in, cur, esp, sizeof(cur));
        if (cur[0]) {
            argv = cur_argv;
            argc = 2;
            if (!quiet && !json)
                printf("the current loader stays: %s\n", tx(cur));
        }
    }
    rc = new_uki ? check_uki(in, vars, new_uki, esp, sizeof(esp), r, &e, !quiet && !json)
                 : kt_chain_install_check(vars, argv[0], (const char *const *)argv + 1,
                                          (size_t)argc - 1, r, &e);
    if (rc < 0) {
        code = cli_exit_code(rc);
        if (!json) {
            cli_cannot_answer_err(false, quiet, r->file ? r->file : argv[0], code, &e);
            goto out;
        }
        cli_error(r->file ? r->file : argv[0], &e);
        print_json_failed(argv[0], argv + 1, argc - 1, r->file ? r->file : argv[0], rc, &e,
                          code);
        goto out;
    }
    code = r->verdict == 0 ? 0 : 5;
    int seal_code = check_sealed(in->seal, root, efivars, new_uki ? esp : in->esp, vars, argv[0],
                                 argc > 1 ? argv[1] : NULL, new_uki, &sk);
    if (seal_code > code)
        code = seal_code;
    if (json)
        print_json(r, argv[0], argv + 1, argc - 1, code, &sk);
    else if (!quiet)
        print_text(r, argv[0], &sk);
    if (!json && !quiet && kt_efivars_byte(vars, KT_EFIVAR_SECURE_BOOT) == 0)
        printf("note: Secure Boot is off in these variables: firmware boots anything; the "
               "answer is for Secure Boot on\n");
out:
    kt_seal_found_free(&sk.found);
    free(sk.r);
    cli_seal_uki_free(sk.uki);
    if (vars)
        kt_efivars_free(vars);
    free(vars);
    free(r);
    return code;
}
