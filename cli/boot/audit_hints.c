/* audit_hints.c - what would vouch for an untrusted link or group of
 * modules, and how to supply it: advice that names commands and options,
 * so it is written here, from the verdicts the library reached. */
#include <errno.h>
#include <stdio.h>

#include "audit_print.h"
#include "cli.h"

void audit_link_hint(const struct kt_audit *a, int i, char *out, size_t cap)
{
    const struct kt_audit_link *L = &a->links[i], *S = &a->links[KT_AUDIT_SHIM];
    bool shim_ok = S->present && S->link.verdict == 0;
    out[0] = 0;
    if (!L->present || L->link.verdict != -ENOKEY)
        return;
    char signer[360];
    if (L->link.signer[0])
        snprintf(signer, sizeof(signer), "signed by %s", L->link.signer);
    else
        snprintf(signer, sizeof(signer), "its signer");
    if (i == KT_AUDIT_SHIM)
        snprintf(out, cap,
                 "%s, which no certificate in db vouches for: %s; the CA that issued it "
                 "must be in db (firmware setup), or try one with `ktrust chain --db CA.pem ...`",
                 signer, a->vars[KT_AUDIT_VAR_DB].present ? "db does not hold its CA"
                                                          : "no db variable was found");
    else if (!shim_ok)
        snprintf(out, cap,
                 "%s, which only shim's vendor certificate or MOK would vouch for, and shim "
                 "is %s: load the vendor certificate from shim (`ktrust load-pe-key --keyring "
                 "platform %s` with the Microsoft CA in platform) or pass `--trust CA`",
                 signer, S->present ? "not trusted" : "missing", S->path);
    else
        snprintf(out, cap,
                 "%s, which neither db, shim's vendor certificate nor MOK vouches for: enroll "
                 "its CA in MOK (`mokutil --import CA.der`) or pass `--trust CA`",
                 signer);
}

void audit_group_hint(const struct kt_audit *a, const struct kt_audit_group *g, char *out,
                      size_t cap)
{
    out[0] = 0;
    if (g->verdict != -ENOKEY)
        return;
    const struct kt_audit_link *K = &a->links[KT_AUDIT_KERNEL_LINK];
    char who[360];
    if (g->signer[0])
        snprintf(who, sizeof(who), "signed by %s", g->signer);
    else
        snprintf(who, sizeof(who), "signed by a key the signatures do not name by certificate");
    if (!K->present || K->link.verdict != 0)
        snprintf(out, cap,
                 "%s: the kernel's builtin keys would vouch, but the kernel is %s: fix the "
                 "kernel link first, or pass `--kernel VMLINUZ` to verify-module",
                 who, K->present ? "not trusted" : "missing");
    else
        snprintf(out, cap,
                 "%s, which no builtin, secondary or machine key holds: enroll its "
                 "certificate in MOK and trust MOK for the kernel (`mokutil --import CERT.der` "
                 "and `mokutil --trust-mok`: MokListTrustedRT), or pass `--trust CERT`",
                 who);
}

void audit_rollover_hint(const struct kt_audit *a, const struct kt_rollover_finding *f, char *out,
                         size_t cap)
{
    const struct kt_rollover *ro = &a->rollover;
    out[0] = 0;
    switch (f->id) {
    case KT_RF_NO_3P_2023:
        snprintf(out, cap, "`ktrust plan-updates UPDATES...` says whether the update verifies "
                 "under this KEK; `ktrust check-update --install NEW_SHIM` before installing a "
                 "shim signed by the 2023 CA only");
        break;
    case KT_RF_NO_KEK_2023:
        if (ro->kek_map < 0 && ro->have_pk)
            snprintf(out, cap, "`ktrust plan-updates` over a clone of microsoft/secureboot_objects "
                     "says which KEK file (if any) verifies under this PK; `--kek-map "
                     "kek_update_map.json` looks this PK up");
        else if (ro->kek_map == 1)
            snprintf(out, cap, "`ktrust plan-updates` checks that it verifies under this PK");
        break;
    case KT_RF_SHIM_2011_ONLY:
    case KT_RF_SHIM_DBX_2011:
        snprintf(out, cap, "`ktrust check-update --install NEW_SHIM [NEW_LOADER]` says whether "
                 "this machine boots the new shim");
        break;
    default: break;
    }
}
