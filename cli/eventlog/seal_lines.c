/* seal_lines.c - sealed secrets in plan-updates' steps and check-update
 * --install's answer (seal_lines.h); unseal-check's own report is
 * unseal_print.c. */
#include <stdio.h>

#include "cli.h"
#include "ktrust/advanced.h"
#include "seal_lines.h"
#include "unseal_check.h"

const struct cli_opt cli_opts_luks[] = {
    CLI_OPT("luks", 0, required_argument, OPT_LUKS_SOURCE, "SOURCE",
            "a LUKS2 device or image file (or a token's JSON) whose TPM-sealed keys are "
            "checked against the predicted PCRs: unseals, does NOT unseal, cannot tell "
            "(repeatable; default: the volumes of /etc/crypttab, under --root)"),
    CLI_OPT("uki", 0, required_argument, OPT_LUKS_UKI, "FILE",
            "the UKI that boots, for signed PCR policies (systemd-cryptenroll "
            "--tpm2-public-key): they unseal when its .pcrsig signs its PCR 11 with the "
            "token's key (default: the UKI systemd-boot's next entry starts, or the one "
            "UKI in the ESP's EFI/Linux)"),
    {0},
};

int cli_seal_uki(const char *uki, const char *esp, const struct kt_efivars *vars,
                 const struct kt_seal_found *f, struct kt_seal_uki **out)
{
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_seal_uki_open_for(uki, esp, vars, f->tok, f->n, out, &e);
    if (rc < 0) {
        cli_error(uki ? uki : esp, &e);
        return cli_exit_code(rc);
    }
    unseal_set_uki(*out);
    return 0;
}

void cli_seal_uki_free(struct kt_seal_uki *u)
{
    unseal_set_uki(NULL);
    kt_seal_uki_free(u);
}

int cli_seal_find(const char *cmd, const char *root, char **sources, size_t n, bool lenient,
                  struct kt_seal_found *f)
{
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_seal_find(root, (const char *const *)sources, n, lenient ? KT_SEAL_FIND_LENIENT : 0,
                          f, &e);
    if (rc < 0) {
        cli_error(f->failed ? f->failed : cmd, &e);
        return cli_exit_code(rc);
    }
    return 0;
}

static void pcr_list(uint32_t mask, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = 0;
    for (unsigned i = 0; i < KT_EVLOG_PCRS && o + 4 < cap; i++)
        if (mask & (1u << i))
            o += (size_t)snprintf(out + o, cap - o, "%s%u", o ? "," : "", i);
}

static const char *vword(enum kt_seal_verdict v)
{
    return v == KT_SEAL_UNSEALS ? "unseals" : v == KT_SEAL_FAILS ? "does NOT unseal" : "cannot tell";
}

void cli_seal_text_one(const struct kt_seal_found *f, const struct kt_seal_check *r, size_t i,
                       const char *indent)
{
    const struct kt_seal_token *t = &f->tok[i];
    char ids[96], ch[96], num[32] = "";
    pcr_list(t->pcrs, ids, sizeof(ids));
    pcr_list(r[i].changed, ch, sizeof(ch));
    if (t->token >= 0)
        snprintf(num, sizeof(num), " token %d", t->token);
    printf("%ssealed: %s%s (%s%s, PCRs %s): %s", indent, tx(f->path[f->src[i]]), num,
           kt_seal_tool_name(t->tool), t->kind == KT_SEAL_KIND_SIGNED ? " signed policy" : "",
           ids[0] ? ids : "none", vword(r[i].after));
    if (r[i].today == KT_SEAL_FAILS)
        printf(" (already today: the next boot asks for the recovery key)\n");
    else
        printf(r[i].changed ? " (PCR %s changes)\n" : "\n", ch);
}

void cli_seal_text(const struct kt_seal_found *f, const struct kt_seal_check *r,
                   const char *indent)
{
    for (size_t i = 0; r && i < f->n; i++)
        cli_seal_text_one(f, r, i, indent);
}

static void verdict_json(struct jw *w, const char *key, enum kt_seal_verdict v)
{
    if (v == KT_SEAL_CANNOT_TELL)
        jw_null(w, key);
    else
        jw_bool(w, key, v == KT_SEAL_UNSEALS);
}

static void mask_json(struct jw *w, const char *key, uint32_t mask)
{
    jw_arr(w, key);
    for (unsigned i = 0; i < KT_EVLOG_PCRS; i++)
        if (mask & (1u << i))
            jw_int(w, NULL, i);
    jw_arr_end(w);
}

void cli_seal_json(struct jw *w, const char *key, const struct kt_seal_found *f,
                   const struct kt_seal_check *r)
{
    jw_arr(w, key);
    for (size_t i = 0; r && i < f->n; i++) {
        const struct kt_seal_token *t = &f->tok[i];
        jw_obj(w, NULL);
        jw_str(w, "source", f->path[f->src[i]]);
        if (t->token >= 0)
            jw_int(w, "token", t->token);
        else
            jw_null(w, "token");
        if (t->keyslot >= 0)
            jw_int(w, "keyslot", t->keyslot);
        else
            jw_null(w, "keyslot");
        jw_str(w, "tool", kt_seal_tool_name(t->tool));
        jw_str(w, "kind", kt_seal_kind_name(t->kind));
        jw_str(w, "bank", kt_evlog_alg_name(t->bank));
        mask_json(w, "pcrs", t->pcrs);
        verdict_json(w, "unseals_today", r[i].today);
        verdict_json(w, "unseals_after", r[i].after);
        mask_json(w, "changed_pcrs", r[i].changed);
        if (t->kind == KT_SEAL_KIND_SIGNED)
            unseal_signed_json(w, t, &r[i], unseal_uki());
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

void cli_seal_reseal(const struct kt_seal_found *f, const struct kt_seal_check *r,
                     const char *indent)
{
    for (size_t i = 0; r && i < f->n; i++) {
        if (r[i].after != KT_SEAL_FAILS || r[i].today == KT_SEAL_FAILS)
            continue;
        printf("%s%s token %d:\n", indent, tx(f->path[f->src[i]]), f->tok[i].token);
        unseal_reseal_print(f->path[f->src[i]], &f->tok[i], &r[i], indent);
    }
}
