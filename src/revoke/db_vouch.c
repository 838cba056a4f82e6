/* db_vouch.c - does db vouch for an image (check-update --db)?  As firmware:
 * a top-level signature that checks out (digest and signature) whose chain
 * holds a db certificate or is issued by one; dates ignored. */
#include <string.h>

#include "pe/pe_verify.h"
#include "policy/verify.h"
#include "revoke/revoke.h"

static const struct kt_x509 *vouches(const struct kt_x509 *c, const struct kt_certset *db)
{
    for (size_t i = 0; i < db->n; i++) {
        const struct kt_x509 *a = db->certs[i];
        if (a->der.len == c->der.len && !memcmp(a->der.p, c->der.p, a->der.len))
            return a;
        if (a->pub && kt_x509_is_issued_by(c, a) && kt_x509_check_signature(c, a->pub) == 0)
            return a;
    }
    return NULL;
}

int kt_revoke_db_vouches(const uint8_t *buf, size_t len, const struct kt_certset *db,
                         const struct kt_x509 **by)
{
    struct kt_pe_result *r = NULL;
    struct kt_error e = KT_ERROR_INIT;
    struct kt_pe_verify_opts opts = {.purpose = KT_VERIFY_PURPOSE_UEFI};
    *by = NULL;
    int rc = kt_pe_verify(buf, len, NULL, &opts, &r, &e);
    (void)rc; /* untrusted (no keyrings) is expected: look at each signature */
    for (size_t i = 0; r && i < r->n_sigs && !*by; i++) {
        const struct kt_pe_signature *s = &r->sigs[i];
        if (!s->digest_match || (s->verdict != 0 && s->verdict != -ENOKEY))
            continue;
        for (size_t k = 0; k < s->chain_len && !*by; k++)
            *by = vouches(s->chain[k], db);
    }
    kt_pe_result_free(r);
    return *by ? 1 : 0;
}
