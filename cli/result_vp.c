#include "result_vp.h"

#include <stdlib.h>

static const char *ts_kind(enum kt_pe_ts_kind k)
{
    return k == KT_PE_TS_RFC3161 ? "rfc3161" : k == KT_PE_TS_COUNTERSIG ? "countersignature" : "none";
}

int vp_tree_from_pe(struct vp_tree *t, const struct kt_pe_signature *s, size_t n)
{
    t->n = n;
    t->sigs = calloc(n ? n : 1, sizeof(*t->sigs));
    t->ts = calloc(n ? n : 1, sizeof(*t->ts));
    t->kids = calloc(n ? n : 1, sizeof(*t->kids));
    if (!t->sigs || !t->ts || !t->kids)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        struct vp_sig *v = &t->sigs[i];
        const struct kt_pe_signature *p = &s[i];
        if (p->msg && p->msg->n_signers)
            vp_sig_from_pkcs7(v, &p->msg->signers[0], NULL);
        v->index = p->index;
        v->digest_alg = p->digest_alg;
        v->digest = p->digest_len ? p->image_digest : NULL;
        v->digest_len = p->digest_len;
        v->signer = p->signer;
        v->chain = p->chain;
        v->chain_len = p->chain_len;
        v->trusted_by = p->trusted_by;
        v->verdict = p->verdict;
        v->reason = p->verdict ? p->error.what : NULL;
        v->timestamp = NULL;
        if (p->timestamp.kind != KT_PE_TS_NONE) {
            struct vp_timestamp *ts = &t->ts[i];
            ts->kind = ts_kind(p->timestamp.kind);
            ts->time = p->timestamp.time;
            ts->signer = p->timestamp.signer;
            ts->trusted_by = p->timestamp.trusted_by;
            ts->verdict = p->timestamp.verify_rc ? p->timestamp.verify_rc : p->timestamp.trust_rc;
            v->timestamp = ts;
        }
        if (vp_tree_from_pe(&t->kids[i], p->nested, p->n_nested) < 0)
            return -ENOMEM;
        v->nested = t->kids[i].sigs;
        v->n_nested = p->n_nested;
    }
    return 0;
}

void vp_tree_free(struct vp_tree *t)
{
    for (size_t i = 0; t->kids && i < t->n; i++)
        vp_tree_free(&t->kids[i]);
    free(t->sigs);
    free(t->ts);
    free(t->kids);
}

size_t vp_sigs_from_module(struct vp_sig *sigs, size_t cap, const struct kt_modsig_result *res,
                           int rc, const struct kt_error *err)
{
    size_t n = 0;
    for (size_t i = 0; res->msg && i < res->msg->n_signers && n < cap; i++) {
        const struct kt_pkcs7_signer *si = &res->msg->signers[i];
        vp_sig_from_pkcs7(&sigs[n], si, err->what);
        if (rc && !si->verdict)
            sigs[n].verdict = rc; /* a message-level failure (purpose) */
        if (sigs[n].verdict && !sigs[n].reason)
            sigs[n].reason = err->what;
        n++;
    }
    return n;
}
