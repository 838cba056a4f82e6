/* chain_sbat.c - the SbatLevel shim applies and the SBAT check of each link. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain/chain_sbat.h"
#include "efivars/efivars.h"

int kt_sbat_policy_parse(const char *s, enum kt_sbat_policy *p)
{
    if (!strcmp(s, "latest"))
        *p = KT_SBAT_POLICY_LATEST;
    else if (!strcmp(s, "automatic"))
        *p = KT_SBAT_POLICY_AUTOMATIC;
    else if (!strcmp(s, "reset"))
        *p = KT_SBAT_POLICY_RESET;
    else
        return -1;
    return 0;
}

static int copy_level(const struct kt_sbat_level *src, struct kt_sbat_level *dst,
                      struct kt_error *err)
{
    int rc = kt_sbat_level_parse(src->text, src->text_len, dst, err);
    if (rc == 0)
        memcpy(dst->source, src->source, sizeof(dst->source));
    return rc;
}

int kt_chain_sbat_level(const uint8_t *shim, size_t len, const struct kt_sbat_level *current,
                        enum kt_sbat_policy policy, bool secure, struct kt_sbat_level *applied,
                        char *note, size_t note_cap, struct kt_error *err)
{
    struct kt_pe *pe = NULL;
    struct kt_sbat self = {0};
    struct kt_sbat_level cand = {0};
    const char *which = policy == KT_SBAT_POLICY_LATEST ? "latest" : "automatic";
    memset(applied, 0, sizeof(*applied));
    int rc = kt_pe_parse(shim, len, &pe, err);
    if (rc < 0)
        return rc;
    /* shim's set_sbat_uefi_variable: outside secure mode, SbatPolicy reset
     * and no (or an unknown) SbatPolicy both reset the variable to the
     * original payload, with no keep-or-replace check */
    bool reset = !secure && (policy == KT_SBAT_POLICY_RESET || policy == KT_SBAT_POLICY_DEFAULT);
    if (reset) {
        const char *o = kt_sbat_builtin("original");
        rc = kt_sbat_level_parse((const uint8_t *)o, strlen(o), &cand, err);
        which = "original (reset)";
    } else {
        const uint8_t *t;
        size_t n;
        struct kt_error fe = KT_ERROR_INIT;
        rc = kt_sbat_level_from_shim(pe, which, &t, &n, &fe);
        if (rc == 0) {
            rc = kt_sbat_level_parse(t, n, &cand, err);
        } else { /* a shim without .sbatlevel (before 15.8): upstream 16.x's payloads */
            const char *b = kt_sbat_builtin(which);
            rc = kt_sbat_level_parse((const uint8_t *)b, strlen(b), &cand, err);
            which = policy == KT_SBAT_POLICY_LATEST ? "latest (built in, shim has no .sbatlevel)"
                                                    : "automatic (built in, shim has no .sbatlevel)";
        }
    }
    if (rc == 0)
        rc = kt_sbat_from_pe(pe, &self, err);
    if (rc < 0)
        goto out;
    snprintf(cand.source, sizeof(cand.source), "shim .sbatlevel %s", which);
    const char *reset_note = policy == KT_SBAT_POLICY_RESET && secure
                                 ? " (SbatPolicy reset is refused in secure mode)" : "";
    struct kt_error se = KT_ERROR_INIT;
    const struct kt_sbat_entry *ie, *le;
    /* shim's set_sbat_uefi_variable: a reset skips the keep-or-replace
     * check (preserve_sbat_uefi_variable), an unreadable variable is replaced */
    char why[160] = "";
    if (current && !reset &&
        kt_sbat_level_preserve(current, (const char *)cand.text, why, sizeof(why))) {
        rc = copy_level(current, applied, err);
        if (why[0])
            snprintf(note, note_cap, "SbatLevel %s kept: %s (shim's %s %s)%s",
                     current->stamp[0] ? current->stamp : "(no date)", why, which, cand.stamp,
                     reset_note);
        else
            snprintf(note, note_cap, "SbatLevel %s kept: not older than shim's %s %s%s",
                     current->stamp[0] ? current->stamp : "(no date)", which, cand.stamp,
                     reset_note);
    } else if (kt_sbat_check(&self, &cand, &ie, &le, &se) < 0) {
        if (current)
            rc = copy_level(current, applied, err);
        else
            rc = kt_sbat_level_parse((const uint8_t *)"", 0, applied, err);
        snprintf(note, note_cap, "shim's %s level %s not applied: it would revoke shim itself (%s)",
                 which, cand.stamp, se.what);
        if (rc == 0)
            rc = 1; /* set_sbat_uefi_variable fails: efi_main dies in secure mode */
    } else {
        rc = copy_level(&cand, applied, err);
        snprintf(note, note_cap, "shim sets SbatLevel to its %s %s (was %s%s%s)%s", which,
                 cand.stamp,
                 current ? (current->stamp[0] ? current->stamp : "(no date)") : "unset",
                 why[0] ? ": " : "", why, reset_note);
    }
out:
    kt_sbat_free(&self);
    kt_sbat_level_free(&cand);
    kt_pe_free(pe);
    return rc;
}

int kt_chain_sbat_link(const uint8_t *buf, size_t len, const struct kt_sbat_level *level,
                       bool required, struct kt_chain_link *link, char *text, size_t cap)
{
    struct kt_pe *pe = NULL;
    struct kt_sbat s = {0};
    struct kt_error e = KT_ERROR_INIT;
    const char *stamp = level->stamp[0] ? level->stamp : "without date stamp";
    bool shim = link->role == KT_LINK_SHIM;
    int rc = kt_pe_parse(buf, len, &pe, &e);
    if (rc == 0)
        rc = kt_sbat_from_pe(pe, &s, &e);
    const struct kt_sbat_entry *ie = NULL, *le = NULL;
    if (rc == 0 && s.present)
        rc = kt_sbat_check(&s, level, &ie, &le, &e);
    if (rc == 0 && !s.present) {
        if (required) {
            rc = kt_fail(&e, -EKEYREJECTED, KT_NO_OFFSET, shim ? "no .sbat section"
                                                               : "no .sbat section: shim refuses to load it");
        } else {
            snprintf(text, cap, "no .sbat (not required: verified through shim's protocol)");
        }
    } else if (rc == 0) {
        /* which level entries applied: "grub 5 >= 5, shim 4 >= 4" */
        int o = snprintf(text, cap, "passes level %s", stamp);
        const char *sep = ": ";
        for (size_t i = 0; i < s.n && o > 0 && (size_t)o < cap; i++) {
            const struct kt_sbat_entry *x = &s.entries[i], *m = NULL;
            for (size_t j = 0; j < level->n && !m; j++)
                if (level->entries[j].col[0].len == x->col[0].len &&
                    !memcmp(level->entries[j].col[0].p, x->col[0].p, x->col[0].len))
                    m = &level->entries[j];
            if (!m)
                continue;
            o += snprintf(text + o, cap - (size_t)o, "%s%.*s %u >= %u", sep, (int)x->col[0].len,
                          (const char *)x->col[0].p, x->generation, m->generation);
            sep = ", ";
        }
        if (!strcmp(sep, ": ") && o > 0 && (size_t)o < cap)
            snprintf(text + o, cap - (size_t)o, " (no entry names its components)");
    }
    if (rc < 0) {
        if (rc != -EKEYREJECTED)
            rc = -EKEYREJECTED; /* an unreadable .sbat: shim refuses the image */
        snprintf(text, cap, "%s%s", e.what,
                 shim ? ": shim's self-check fails and it powers the machine off after 5 s" : "");
        if (link->verdict != -EKEYREJECTED) {
            link->verdict = rc;
            snprintf(link->reason, sizeof(link->reason), "%s", text);
        }
    }
    kt_sbat_free(&s);
    kt_pe_free(pe);
    return rc < 0 ? -EKEYREJECTED : 0;
}

void kt_chain_sbat_state(const struct kt_efivars *vars, enum kt_sbat_policy *policy,
                         bool *secure, char *name, size_t cap)
{
    static const char *const pol[] = {"", "latest", "automatic", "reset"};
    *secure = true;
    if (name && cap)
        name[0] = 0;
    if (!vars)
        return;
    size_t len;
    const uint8_t *p = kt_efivar_data(&vars->var[KT_EFIVAR_SBAT_POLICY], &len);
    if (p && len >= 1 && p[0] >= 1 && p[0] <= 3) {
        if (name && cap)
            snprintf(name, cap, "%s", pol[p[0]]);
        if (*policy == KT_SBAT_POLICY_DEFAULT)
            kt_sbat_policy_parse(pol[p[0]], policy);
    }
    int sb = kt_efivars_byte(vars, KT_EFIVAR_SECURE_BOOT);
    if (sb >= 0)
        *secure = sb;
    /* no PK in a whole view: setup mode at the next boot, SecureBoot 0
     * whatever the running system still shows (EDK2 2022.11
     * AuthVariableLibInitialize; UpdatePlatformMode leaves SecureBoot alone
     * at runtime) */
    if (kt_efivars_next_setup_mode(vars))
        *secure = false;
}

int kt_chain_sbat_next(const struct kt_efivars *vars, const struct kt_sbat_level *given,
                       const uint8_t *shim, size_t len, struct kt_sbat_level *applied,
                       char *note, size_t note_cap, struct kt_error *err)
{
    enum kt_sbat_policy policy = KT_SBAT_POLICY_DEFAULT;
    bool secure;
    struct kt_sbat_level current = {0};
    const struct kt_efivar *which = NULL;
    int have = 0;
    kt_chain_sbat_state(vars, &policy, &secure, NULL, 0);
    if (given)
        have = kt_sbat_level_parse(given->text, given->text_len, &current, err) == 0;
    else if (vars)
        have = kt_efivars_sbat_level(vars, &current, &which, err) > 0;
    int rc = kt_chain_sbat_level(shim, len, have ? &current : NULL, policy, secure, applied,
                                 note, note_cap, err);
    kt_sbat_level_free(&current);
    return rc;
}
