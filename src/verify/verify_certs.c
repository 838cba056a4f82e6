/* verify_certs.c - a certificate, a certificate list or an EFI signature
 * list as one result: would each certificate be trusted (the module
 * purpose: could it join secondary)?  The worst certificate decides. */
#include <errno.h>
#include <string.h>

#include "esl/esl.h"
#include "policy/cert_trust.h"
#include "verify/verify_int.h"
#include "x509/x509.h"

struct cert_walk {
    const struct kt_keyrings *rings;
    int worst_rc; /* ranked by verdict */
    size_t n_certs, n_hashes, n_trusted;
    struct kt_error e;
};

static void rank(struct cert_walk *w, int rc)
{
    if (kt_verdict_of(rc) > kt_verdict_of(w->worst_rc))
        w->worst_rc = rc;
}

static int one_cert(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    struct cert_walk *w = ctx;
    struct kt_x509 *c = NULL;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_x509_parse(der, len, &c, &e);
    w->n_certs++;
    if (rc == 0) {
        const struct kt_key *by;
        rc = kt_cert_validate_trust(w->rings, kt_ftype_purpose(KT_FT_X509), c, &by);
        if (rc == 0)
            w->n_trusted++;
        kt_x509_free(c);
    } else if (w->e.code == 0) {
        w->e = e;
        if (w->e.offset != KT_NO_OFFSET)
            w->e.offset += off;
    }
    rank(w, rc);
    return 0;
}

static int one_esl_entry(void *ctx, const struct kt_esl_entry *en)
{
    struct cert_walk *w = ctx;
    if (en->type == KT_ESL_X509)
        return one_cert(ctx, en->data.p, en->data.len, en->offset);
    w->n_hashes++;
    return 0;
}

void kt_verify_certs(const struct kt_keyrings *rings, const uint8_t *buf, size_t len,
                     enum kt_ftype type, struct kt_result *r)
{
    struct cert_walk w = {.rings = rings, .worst_rc = 0};
    int rc = type == KT_FT_ESL ? kt_esl_foreach(buf, len, one_esl_entry, &w, &w.e)
                               : kt_certs_foreach(buf, len, one_cert, &w, &w.e);
    if (rc == 0)
        rc = w.worst_rc;
    if (rc == 0 && w.n_certs == 0)
        rc = kt_fail(&w.e, -ENODATA, KT_NO_OFFSET, "%zu hash%s, no certificate to verify",
                     w.n_hashes, w.n_hashes == 1 ? "" : "es");
    if (rc < 0 && !w.e.what[0])
        kt_fail(&w.e, rc, KT_NO_OFFSET, "%zu of %zu certificate%s trusted", w.n_trusted,
                w.n_certs, w.n_certs == 1 ? "" : "s");
    r->rc = rc;
    r->err = w.e;
    r->n_certs = w.n_certs;
    r->n_hashes = w.n_hashes;
    r->n_trusted = w.n_trusted;
}
