/* audit_sbat.c - SBAT in the audited chain, as `chain --efivars` applies
 * it: the level shim would leave in SbatLevel (from SbatPolicy and its
 * .sbatlevel), shim's self-check, the loader's .sbat (required) and the
 * kernel's (not required).  A refused shim or loader stops what it loads. */
#include <stdio.h>
#include <string.h>

#include "audit/audit.h"
#include "util/file.h"

static void stop_below(struct kt_audit *a, int from, const char *why)
{
    for (int i = from; i <= KT_AUDIT_KERNEL_LINK; i++) {
        struct kt_audit_link *L = &a->links[i];
        if (!L->present)
            continue;
        L->link.verdict = -EKEYREJECTED;
        kt_audit_fmt(L->link.reason, sizeof(L->link.reason), "never loaded: %s", why);
    }
}

void kt_audit_sbat(struct kt_audit *a)
{
    struct kt_audit_link *S = &a->links[KT_AUDIT_SHIM];
    if (!S->present)
        return;
    enum kt_sbat_policy pol = KT_SBAT_POLICY_DEFAULT;
    if (a->sbat_policy[0])
        kt_sbat_policy_parse(a->sbat_policy, &pol);
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(S->path, &f, &e);
    if (rc == 0)
        rc = kt_chain_sbat_level(f.data, f.len, a->have_sbat_current ? &a->sbat_current : NULL,
                                 pol, a->secure_boot != 0, &a->sbat_next, a->sbat_note,
                                 sizeof(a->sbat_note), &e);
    if (rc < 0) {
        kt_file_close(&f);
        kt_audit_fmt(a->sbat_note, sizeof(a->sbat_note), "SbatLevel unknown: %s", e.what);
        return;
    }
    a->have_sbat_next = true;
    rc = kt_chain_sbat_link(f.data, f.len, &a->sbat_next, true, &S->link, S->sbat,
                            sizeof(S->sbat));
    kt_file_close(&f);
    if (rc < 0) {
        stop_below(a, KT_AUDIT_LOADER, "shim failed its SBAT self-check and powered the machine off");
        return;
    }
    int loader_rc = 0;
    for (int i = KT_AUDIT_LOADER; i <= KT_AUDIT_KERNEL_LINK; i++) {
        struct kt_audit_link *L = &a->links[i];
        struct kt_file g = {0};
        if (!L->present || kt_file_open(L->path, &g, &e) < 0)
            continue; /* the link already says why */
        /* shim loads the loader itself: .sbat required; the kernel is
         * verified through shim's protocol: not required */
        rc = kt_chain_sbat_link(g.data, g.len, &a->sbat_next, i == KT_AUDIT_LOADER, &L->link,
                                L->sbat, sizeof(L->sbat));
        if (i == KT_AUDIT_LOADER)
            loader_rc = rc;
        kt_file_close(&g);
    }
    if (loader_rc < 0)
        stop_below(a, KT_AUDIT_KERNEL_LINK, "shim refused the loader (SBAT)");
}
