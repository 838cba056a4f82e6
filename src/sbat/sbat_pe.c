/* sbat_pe.c - an image's .sbat section, found as shim's pe.c finds it. */
#include <string.h>

#include "sbat/internal.h"
#include "util/le.h"

int kt_sbat_from_pe(const struct kt_pe *pe, struct kt_sbat *out, struct kt_error *err)
{
    static const uint8_t name[8] = {'.', 's', 'b', 'a', 't', 0, 0, 0};
    const struct kt_pe_section *sec = NULL;
    kt_le file, hdr;
    kt_le_init(&file, pe->buf, pe->len, NULL);
    memset(out, 0, sizeof(*out));
    /* shim's verify_buffer_sbat, in its order: a second .sbat after one
     * that counted is refused, then relocations are; a .sbat whose
     * SizeOfRawData is 0 or below its VirtualSize is ignored and does not
     * count (so a later one may still be the image's .sbat). */
    for (size_t i = 0; i < pe->n_sections; i++) {
        const struct kt_pe_section *s = &pe->sections[i];
        const uint8_t *raw_name;
        uint32_t reloc_off;
        uint16_t n_relocs;
        kt_le_window(&file, s->header_off, 40, &hdr, NULL); /* a header the parser checked */
        kt_le_bytes(&hdr, 8, &raw_name, NULL);
        if (memcmp(raw_name, name, 8) != 0)
            continue;
        if (sec)
            return kt_fail(err, -ELIBBAD, s->header_off,
                           "two .sbat sections (shim refuses the image)");
        kt_le_skip(&hdr, 16, NULL); /* VirtualSize .. PointerToRawData */
        kt_le_u32(&hdr, &reloc_off, NULL); /* PointerToRelocations */
        kt_le_skip(&hdr, 4, NULL);         /* PointerToLinenumbers */
        kt_le_u16(&hdr, &n_relocs, NULL);  /* NumberOfRelocations */
        if (reloc_off != 0 || n_relocs != 0)
            return kt_fail(err, -ELIBBAD, s->header_off,
                           ".sbat section has relocations (shim refuses the image)");
        if (s->raw_size == 0 || s->raw_size < s->vsize)
            continue; /* ignored as shim ignores it */
        if ((uint64_t)s->raw_off + s->raw_size > pe->len)
            return kt_fail(err, -ELIBBAD, s->header_off,
                           ".sbat: raw data past the end of the file");
        sec = s;
    }
    if (!sec)
        return 0; /* none that counts: present stays false */
    return kt_sbat_parse(pe->buf + sec->raw_off, sec->raw_size, sec->raw_off, out, err);
}
