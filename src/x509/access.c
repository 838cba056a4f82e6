/* access.c - the public accessors of a parsed certificate (ktrust/x509.h). */
#include "x509/x509.h"

const char *kt_x509_description(const struct kt_x509 *c) { return c->description; }
const char *kt_x509_subject(const struct kt_x509 *c) { return c->subject; }
const char *kt_x509_issuer(const struct kt_x509 *c) { return c->issuer; }
int64_t kt_x509_not_before(const struct kt_x509 *c) { return c->not_before; }
int64_t kt_x509_not_after(const struct kt_x509 *c) { return c->not_after; }
const uint8_t *kt_x509_sha256(const struct kt_x509 *c) { return c->sha256; }
bool kt_x509_is_ca(const struct kt_x509 *c) { return c->is_ca; }
bool kt_x509_is_self_signed(const struct kt_x509 *c) { return c->self_signed; }

const uint8_t *kt_x509_der(const struct kt_x509 *c, size_t *len)
{
    *len = c->der.len;
    return c->der.p;
}
