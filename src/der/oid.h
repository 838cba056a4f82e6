/* oid.h - the OID registry: encoded form <-> enum <-> name.
 * Lookups compare the raw DER content bytes; no allocation. */
#ifndef KT_DER_OID_H
#define KT_DER_OID_H

#include "der/der.h"

enum kt_oid {
    KT_OID_UNKNOWN = 0,
#define X(id, dotted, name) KT_OID_##id,
#include "der/oid_list.h"
#undef X
    KT_OID__COUNT
};

/* The enum for an OID's content bytes (KT_OID_UNKNOWN if not registered). */
enum kt_oid kt_oid_lookup(kt_span oid);
/* Short name ("sha256"), or NULL for KT_OID_UNKNOWN. */
const char *kt_oid_name(enum kt_oid id);
/* Dotted form ("2.16.840.1.101.3.4.2.1"). */
const char *kt_oid_dotted(enum kt_oid id);
/* The encoded content bytes of a registered OID. */
kt_span kt_oid_encoding(enum kt_oid id);
/* Read an OID element and look it up in one step. */
int kt_der_get_oid_id(kt_der *d, enum kt_oid *id, kt_span *raw, const char *what);

#endif
