/* fuzz_der.c - the DER/BER cursor: walk any input as nested TLVs in both
 * modes and apply every typed reader to every element. */
#include <stddef.h>
#include <stdint.h>

#include "der/der.h"
#include "der/oid.h"

static void walk(kt_der *d, int depth)
{
    while (!kt_der_empty(d)) {
        kt_der save = *d, c;
        uint32_t tag;
        kt_span whole, s;
        uint64_t u;
        int64_t t;
        bool b;
        unsigned unused;
        char buf[128];
        enum kt_oid o;
        if (kt_der_get_any(d, &tag, &c, &whole) < 0)
            return;
        /* each typed reader on a copy positioned at this element */
        kt_der x = save;
        kt_der_get_integer(&x, &s, "f");
        x = save;
        if (kt_der_get_uint64(&x, &u, "f") == 0)
            (void)u;
        x = save;
        if (kt_der_get_oid(&x, &s, "f") == 0) {
            kt_oid_to_dotted(s, buf, sizeof(buf));
            kt_oid_to_dotted(s, buf, 3);
        }
        x = save;
        kt_der_get_oid_id(&x, &o, NULL, "f");
        x = save;
        kt_der_get_bitstring(&x, &s, &unused, "f");
        x = save;
        kt_der_get_octets(&x, &s, "f");
        x = save;
        kt_der_get_bool(&x, &b, "f");
        x = save;
        kt_der_get_null(&x, "f");
        x = save;
        kt_der_get_time(&x, &t, "f");
        x = save;
        kt_der_get_optional(&x, tag, NULL, &b, "f");
        x = save;
        kt_der_skip_any(&x, "f");
        kt_integer_magnitude(kt_der_rest(&c));
        if ((tag & KT_TAG_CONSTRUCTED) && depth < 40)
            walk(&c, depth + 1);
        else if (depth < 40 && (tag == KT_TAG_OCTET_STRING || tag == KT_TAG_BIT_STRING)) {
            /* encapsulated DER, as in extensions and keys */
            kt_der inner = c;
            walk(&inner, depth + 1);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int mode = KT_DER_STRICT; mode <= KT_DER_BER; mode++) {
        struct kt_error e = {0};
        kt_der d;
        kt_der_init(&d, data, size, (enum kt_der_mode)mode, &e);
        walk(&d, 0);
    }
    return 0;
}
