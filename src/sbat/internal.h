/* internal.h - shared between the sbat/ files (not installed). */
#ifndef KT_SBAT_INTERNAL_H
#define KT_SBAT_INTERNAL_H

#include "sbat/sbat.h"

/* Split CSV records as shim does (see kt_sbat_parse); `need` columns at
 * least, the first `keep` kept; what names the payload in errors. */
int kt_sbat_csv(const uint8_t *buf, size_t len, size_t base, size_t need, size_t keep,
                const char *what, struct kt_sbat_entry **out, size_t *n_out,
                struct kt_error *err);

#endif
