/* fuzz_uki.c - a UKI's sections as systemd 252's stub locates them, its
 * text sections, PCR 11 in every bank and phase, and its .pcrsig JSON and
 * .pcrpkey (the seed carries a small .pcrsig). */
#include <stdint.h>
#include <stdlib.h>

#include "uki/uki.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const banks[] = {"sha1", "sha256", "sha384", "sha512"};
    struct kt_uki *u = NULL;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_uki_open_buf(data, size, &u, &e);
    if (rc < 0) {
        if (!e.what[0] || u)
            abort();
        return 0;
    }
    char buf[64];
    kt_uki_osrel(u, "PRETTY_NAME", buf, sizeof(buf));
    kt_uki_uname(u, buf, sizeof(buf));
    kt_uki_stub_version(u, buf, sizeof(buf));
    for (size_t i = 0; i < kt_uki_section_count(u); i++) {
        const struct kt_uki_section *s = kt_uki_section_at(u, i);
        if (!s || !s->name || (s->role == KT_UKI_MEASURED && !s->canonical))
            abort();
    }
    uint8_t v[64];
    size_t n;
    for (size_t b = 0; b < 4; b++)
        if (kt_uki_pcr11(u, banks[b], KT_UKI_PHASES - 1, v, &n) == 0 && n > 64)
            abort();
    struct kt_uki_pcrsig ps;
    if (kt_uki_pcrsig_check(u, "sha256", &ps) < 0 ||
        (ps.status != KT_PCRSIG_VALID && ps.status != KT_PCRSIG_ABSENT && !ps.why[0]))
        abort();
    struct kt_error ue = KT_ERROR_INIT;
    if (kt_uki_verdict(u, 0, &ue) < 0 && !(kt_uki_flags(u) & KT_UKI_NO_LINUX))
        abort();
    kt_uki_free(u);
    return 0;
}
