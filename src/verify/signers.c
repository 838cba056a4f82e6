/* signers.c - the signatures of a result, from PE, module and PKCS#7
 * results, in arrays sized to the input (no cap). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verify/verify_int.h"

static struct kt_bytes bytes(kt_span s) { return (struct kt_bytes){s.p, s.len}; }

static const char *digest_name(enum kt_hash h) { return h != KT_HASH_NONE ? kt_hash_name(h) : NULL; }

void kt_signer_from_pkcs7(struct kt_signer *s, const struct kt_pkcs7_signer *si,
                          const char *reason)
{
    memset(s, 0, sizeof(*s));
    s->index = si->index;
    s->digest_name = digest_name(si->digest_alg);
    s->digest = si->digest_len ? si->digest : NULL;
    s->digest_len = si->digest_len;
    s->signer = si->signer_cert;
    s->signer_issuer = bytes(si->issuer_raw);
    s->signer_serial = bytes(si->serial);
    s->signer_skid = bytes(si->skid);
    s->chain = si->chain;
    s->chain_len = si->chain_len;
    s->trusted_by = si->trusted_by;
    s->verdict = si->verdict;
    s->time_invalid = si->time_invalid;
    s->time_invalid_cert = si->time_invalid_cert;
    s->reason = !si->verdict ? NULL : si->error.what[0] ? si->error.what : reason;
    s->linux_since = kt_pkcs7_linux_since(si);
}

static const char *ts_kind(enum kt_pe_ts_kind k)
{
    return k == KT_PE_TS_RFC3161 ? "rfc3161" : k == KT_PE_TS_COUNTERSIG ? "countersignature" : "none";
}

static int tree_alloc(struct kt_signer_tree *t, size_t n, bool kids)
{
    t->n = n;
    t->sigs = calloc(n ? n : 1, sizeof(*t->sigs));
    t->ts = calloc(n ? n : 1, sizeof(*t->ts));
    t->kids = kids ? calloc(n ? n : 1, sizeof(*t->kids)) : NULL;
    return !t->sigs || !t->ts || (kids && !t->kids) ? -ENOMEM : 0;
}

int kt_signer_tree_from_pe(struct kt_signer_tree *t, const struct kt_pe_signature *s, size_t n)
{
    if (tree_alloc(t, n, true) < 0)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        struct kt_signer *v = &t->sigs[i];
        const struct kt_pe_signature *p = &s[i];
        if (p->msg && p->msg->n_signers)
            kt_signer_from_pkcs7(v, &p->msg->signers[0], NULL);
        v->index = p->index;
        v->digest_name = digest_name(p->digest_alg);
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
            struct kt_signer_ts *ts = &t->ts[i];
            ts->kind = ts_kind(p->timestamp.kind);
            ts->time = p->timestamp.time;
            ts->signer = p->timestamp.signer;
            ts->trusted_by = p->timestamp.trusted_by;
            ts->verdict = p->timestamp.verify_rc ? p->timestamp.verify_rc : p->timestamp.trust_rc;
            v->timestamp = ts;
        }
        if (kt_signer_tree_from_pe(&t->kids[i], p->nested, p->n_nested) < 0)
            return -ENOMEM;
        v->nested = t->kids[i].sigs;
        v->n_nested = p->n_nested;
    }
    return 0;
}

int kt_signer_tree_from_pkcs7(struct kt_signer_tree *t, const struct kt_pkcs7 *msg, int rc,
                              const struct kt_error *err, bool msg_level_on_signers)
{
    size_t n = msg ? msg->n_signers : 0;
    if (tree_alloc(t, n, false) < 0)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const struct kt_pkcs7_signer *si = &msg->signers[i];
        struct kt_signer *s = &t->sigs[i];
        kt_signer_from_pkcs7(s, si, err->what);
        if (msg_level_on_signers && rc && !si->verdict)
            s->verdict = rc; /* a message-level failure (the purpose's rules) */
        if (msg_level_on_signers && s->verdict && !s->reason)
            s->reason = err->what;
    }
    return 0;
}

int kt_signer_tree_from_authvar(struct kt_signer_tree *t, const struct kt_authvar_result *res,
                                int rc, const struct kt_error *err)
{
    const struct kt_pkcs7 *msg = res->msg;
    size_t n = msg ? msg->n_signers : 0;
    if (tree_alloc(t, n, false) < 0)
        return -ENOMEM;
    t->keys = calloc(n ? n : 1, sizeof(*t->keys));
    if (!t->keys) {
        kt_signer_tree_free(t);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const struct kt_pkcs7_signer *si = &msg->signers[i];
        struct kt_signer *s = &t->sigs[i];
        kt_signer_from_pkcs7(s, si, NULL);
        /* firmware checks no date: the chain's validity only reported, now */
        s->dates_ignored = true;
        s->time_invalid = false;
        s->time_invalid_cert = NULL;
        int64_t now = (int64_t)time(NULL);
        for (size_t k = 0; k < si->chain_len && !s->time_invalid; k++)
            if (now < si->chain[k]->not_before || now > si->chain[k]->not_after) {
                s->time_invalid = true;
                s->time_invalid_cert = si->chain[k];
            }
        if (si->verify_rc != 0) {
            s->verdict = si->verify_rc;
        } else if (!res->attributes) {
            s->verdict = rc; /* neither attribute set verified */
            s->reason = err->what;
        } else if (res->authority && res->authority[i]) {
            t->keys[i].cert = (struct kt_x509 *)res->authority[i];
            s->trusted_by = &t->keys[i];
            s->verdict = 0;
            s->reason = NULL;
        } else {
            s->verdict = -ENOKEY;
            s->reason = "no PK/KEK certificate vouches for this signer";
        }
    }
    return 0;
}

void kt_signer_tree_free(struct kt_signer_tree *t)
{
    for (size_t i = 0; t->kids && i < t->n; i++)
        kt_signer_tree_free(&t->kids[i]);
    free(t->sigs);
    free(t->ts);
    free(t->kids);
    free(t->keys);
    memset(t, 0, sizeof(*t));
}
