/* certlist.c - the kernel's compiled-in certificate list: DER certificates
 * back to back, each one's extent given by its outer SEQUENCE header (what
 * certs/system_certificates.S embeds and load_certificate_list() walks).
 * An entry whose outer SEQUENCE has an indefinite length (BER, which the
 * kernel's X.509 parser takes) extends to its end-of-contents octets. */
#include "esl/esl.h"

#include <stdio.h>

int kt_certlist_foreach(const uint8_t *buf, size_t len, kt_cert_cb cb, void *ctx,
                        struct kt_error *err)
{
    if (!buf)
        len = 0;
    kt_der d;
    kt_der_init(&d, buf, len, KT_DER_STRICT, err);
    size_t index = 0;
    while (!kt_der_empty(&d)) {
        /* The build pads the list with zero bytes: all zeros to the end is
         * the end of the list. */
        size_t off = kt_der_offset(&d), z = off;
        while (z < len && buf[z] == 0)
            z++;
        if (z == len)
            break;
        if (buf[off] != 0x30)
            return kt_fail(err, -EBADMSG, off,
                           "certificate list: entry %zu is not a SEQUENCE (byte 0x%02x)", index,
                           buf[off]);
        kt_span whole;
        char what[48];
        snprintf(what, sizeof(what), "certificate list: entry %zu", index);
        /* one certificate whose outer SEQUENCE has an indefinite length (as
         * keyctl padd takes it): its extent is up to its end-of-contents */
        d.mode = off + 1 < len && buf[off + 1] == 0x80 ? KT_DER_BER : KT_DER_STRICT;
        KT_TRY(kt_der_get_element(&d, KT_TAG_SEQUENCE, &whole, what));
        d.mode = KT_DER_STRICT;
        if (cb) {
            int rc = cb(ctx, whole.p, whole.len, off);
            if (rc < 0)
                return rc;
        }
        index++;
    }
    return 0;
}
