/* PE/COFF header and section table parsing. */
#include "pe/pe.h"
#include "util/le.h"

#include <stdlib.h>
#include <string.h>

#define DOS_HDR_SIZE 64
#define COFF_HDR_SIZE 20
#define SECTION_HDR_SIZE 40
#define OPT32_FIXED 96
#define OPT64_FIXED 112
#define CERT_DIR_INDEX 4

static int by_raw_off(const void *a, const void *b)
{
    const struct kt_pe_section *x = *(const struct kt_pe_section *const *)a;
    const struct kt_pe_section *y = *(const struct kt_pe_section *const *)b;
    if (x->raw_off != y->raw_off)
        return x->raw_off < y->raw_off ? -1 : 1;
    return x->header_off < y->header_off ? -1 : (x->header_off > y->header_off);
}

static int check_sections(struct kt_pe *pe, struct kt_error *err)
{
    size_t n = pe->n_sections, k = 0;
    const struct kt_pe_section **v = malloc((n ? n : 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const struct kt_pe_section *s = &pe->sections[i];
        if (s->raw_size == 0)
            continue;
        if ((uint64_t)s->raw_off + s->raw_size > pe->len) {
            free(v);
            return kt_fail(err, -ELIBBAD, s->header_off + 16,
                           "section %s: raw data (%u bytes at %u) runs past the end of the file "
                           "(%zu bytes)",
                           s->name, s->raw_size, s->raw_off, pe->len);
        }
        v[k++] = s;
    }
    qsort(v, k, sizeof(*v), by_raw_off);
    size_t end = pe->header_size;
    if (end > pe->len)
        end = pe->len;
    if (k > 0 && v[0]->raw_off < end)
        end = v[0]->raw_off; /* headers clipped at the first section (UPX) */
    for (size_t i = 0; i < k; i++) {
        if (i > 0 && v[i]->raw_off < (size_t)v[i - 1]->raw_off + v[i - 1]->raw_size) {
            int rc = kt_fail(err, -ELIBBAD, v[i]->header_off + 20,
                             "section %s: raw data at %u overlaps section %s (ends at %zu)",
                             v[i]->name, v[i]->raw_off, v[i - 1]->name,
                             (size_t)v[i - 1]->raw_off + v[i - 1]->raw_size);
            free(v);
            return rc;
        }
        size_t e = (size_t)v[i]->raw_off + v[i]->raw_size;
        if (e > end)
            end = e;
    }
    pe->sections_end = end;
    free(v);
    return 0;
}

/* "/123": an offset into the COFF string table (after the symbol table).
 * Resolved only from bytes the image digest covers: the certificate table
 * and gaps between sections can change after signing, so a string table
 * there would let anyone rename a signed section (.keylist, .vendor_cert);
 * such a name makes the image malformed.  A name that does not resolve (no
 * table, out of the file, unterminated) stays "/n" and matches nothing. */
static int long_name(const struct kt_pe *pe, const uint8_t *coff, struct kt_pe_section *s,
                     struct kt_error *err)
{
    if (s->name[0] != '/' || s->name[1] < '0' || s->name[1] > '9')
        return 0;
    uint64_t idx = 0;
    for (int i = 1; i < 8 && s->name[i]; i++) {
        if (s->name[i] < '0' || s->name[i] > '9')
            return 0;
        idx = idx * 10 + (uint64_t)(s->name[i] - '0');
    }
    uint64_t strtab = (uint64_t)kt_le32(coff + 8) + (uint64_t)kt_le32(coff + 12) * 18;
    if (kt_le32(coff + 8) == 0 || strtab + 4 > pe->len)
        return 0;
    uint64_t size = kt_le32(pe->buf + strtab);
    if (idx < 4 || idx >= size || strtab + size > pe->len)
        return 0;
    const uint8_t *p = pe->buf + strtab + idx;
    size_t max = (size_t)(size - idx), i;
    for (i = 0; i < max && i < sizeof(s->name) - 1 && p[i]; i++)
        ;
    if (i == max || p[i] != 0)
        return 0; /* unterminated or too long: keep "/n" */
    int c1 = kt_pe_digest_covers(pe, (size_t)strtab, 4, err);
    if (c1 < 0)
        return c1;
    int c2 = kt_pe_digest_covers(pe, (size_t)(strtab + idx), i + 1, err);
    if (c2 < 0)
        return c2;
    if (!c1 || !c2)
        return kt_fail(err, -ELIBBAD, s->header_off,
                       "section %s: its long name is read from the COFF string table at %llu, "
                       "which is not covered by the image digest",
                       s->name, (unsigned long long)strtab);
    memcpy(s->name, p, i);
    s->name[i] = 0;
    return 0;
}

int kt_pe_parse(const uint8_t *buf, size_t len, struct kt_pe **out, struct kt_error *err)
{
    *out = NULL;
    if (len < DOS_HDR_SIZE || buf[0] != 'M' || buf[1] != 'Z')
        return kt_fail(err, -ELIBBAD, 0, "DOS header: no MZ signature");
    uint32_t lfanew = kt_le32(buf + 0x3c);
    if ((uint64_t)lfanew + 4 + COFF_HDR_SIZE > len)
        return kt_fail(err, -ELIBBAD, 0x3c, "DOS header: e_lfanew %u points past the end", lfanew);
    if (memcmp(buf + lfanew, "PE\0\0", 4) != 0)
        return kt_fail(err, -ELIBBAD, lfanew, "PE signature missing");

    struct kt_pe *pe = calloc(1, sizeof(*pe));
    if (!pe)
        return -ENOMEM;
    pe->buf = buf;
    pe->len = len;
    pe->pe_off = lfanew;
    const uint8_t *coff = buf + lfanew + 4;
    kt_le file, hdr;
    kt_le_init(&file, buf, len, NULL);
    uint16_t nsec, optsize;
    /* COFF header: Machine, NumberOfSections, 12 bytes, SizeOfOptionalHeader
     * (within the file: checked above) */
    kt_le_window(&file, lfanew + 4, COFF_HDR_SIZE, &hdr, NULL);
    kt_le_u16(&hdr, &pe->machine, NULL);
    kt_le_u16(&hdr, &nsec, NULL);
    kt_le_skip(&hdr, 12, NULL);
    kt_le_u16(&hdr, &optsize, NULL);
    pe->opt_off = lfanew + 4 + COFF_HDR_SIZE;
    int rc;
    if (pe->opt_off + optsize > len) {
        rc = kt_fail(err, -ELIBBAD, lfanew + 4 + 16,
                     "COFF header: SizeOfOptionalHeader %u runs past the end", optsize);
        goto fail;
    }
    if (optsize < 2) {
        rc = kt_fail(err, -ELIBBAD, lfanew + 4 + 16, "optional header missing");
        goto fail;
    }
    const uint8_t *opt = buf + pe->opt_off;
    uint16_t magic = kt_le16(opt);
    size_t fixed;
    if (magic == 0x10b) {
        fixed = OPT32_FIXED;
    } else if (magic == 0x20b) {
        fixed = OPT64_FIXED;
        pe->pe32plus = true;
    } else {
        rc = kt_fail(err, -ELIBBAD, pe->opt_off, "optional header: bad magic 0x%04x", magic);
        goto fail;
    }
    if (optsize < fixed) {
        rc = kt_fail(err, -ELIBBAD, lfanew + 4 + 16,
                     "optional header: SizeOfOptionalHeader %u too small for %s", optsize,
                     pe->pe32plus ? "PE32+" : "PE32");
        goto fail;
    }
    pe->header_size = kt_le32(opt + 60);
    pe->checksum_off = pe->opt_off + 64;
    pe->checksum = kt_le32(opt + 64);
    pe->subsystem = kt_le16(opt + 68);
    uint32_t ndirs = kt_le32(opt + fixed - 4);
    pe->dirs_off = pe->opt_off + fixed;
    if ((uint64_t)ndirs * 8 > optsize - fixed) {
        rc = kt_fail(err, -ELIBBAD, pe->opt_off + fixed - 4,
                     "optional header: NumberOfRvaAndSizes %u does not fit in the optional header",
                     ndirs);
        goto fail;
    }
    pe->n_dirs = ndirs > 16 ? 16 : ndirs;
    if (pe->header_size > len) {
        rc = kt_fail(err, -ELIBBAD, pe->opt_off + 60,
                     "optional header: SizeOfHeaders %u is past the end of the file (%zu)",
                     pe->header_size, len);
        goto fail;
    }
    size_t sec_off = pe->opt_off + optsize;
    if (sec_off + (size_t)nsec * SECTION_HDR_SIZE > len) {
        rc = kt_fail(err, -ELIBBAD, lfanew + 4 + 2,
                     "section table: %u sections run past the end of the file", nsec);
        goto fail;
    }
    if (sec_off + (size_t)nsec * SECTION_HDR_SIZE > pe->header_size) {
        rc = kt_fail(err, -ELIBBAD, pe->opt_off + 60,
                     "section table (ends at %zu) runs past SizeOfHeaders %u",
                     sec_off + (size_t)nsec * SECTION_HDR_SIZE, pe->header_size);
        goto fail;
    }
    if (pe->checksum_off + 4 > pe->header_size ||
        pe->dirs_off + (size_t)pe->n_dirs * 8 > pe->header_size) {
        rc = kt_fail(err, -ELIBBAD, pe->opt_off + 60,
                     "optional header runs past SizeOfHeaders %u", pe->header_size);
        goto fail;
    }
    pe->n_sections = nsec;
    pe->sections = calloc(nsec ? nsec : 1, sizeof(*pe->sections));
    if (!pe->sections) {
        rc = -ENOMEM;
        goto fail;
    }
    kt_le table;
    kt_le_window(&file, sec_off, (size_t)nsec * SECTION_HDR_SIZE, &table, NULL); /* checked */
    for (size_t i = 0; i < nsec; i++) {
        struct kt_pe_section *s = &pe->sections[i];
        const uint8_t *name;
        s->header_off = kt_le_offset(&table);
        kt_le_sub(&table, SECTION_HDR_SIZE, &hdr, NULL);
        kt_le_bytes(&hdr, 8, &name, NULL);
        memcpy(s->name, name, 8);
        s->name[8] = 0;
        kt_le_u32(&hdr, &s->vsize, NULL);
        kt_le_u32(&hdr, &s->vaddr, NULL);
        kt_le_u32(&hdr, &s->raw_size, NULL);
        kt_le_u32(&hdr, &s->raw_off, NULL);
        kt_le_skip(&hdr, 12, NULL); /* relocations, line numbers */
        kt_le_u32(&hdr, &s->characteristics, NULL);
    }
    rc = check_sections(pe, err);
    if (rc < 0)
        goto fail;

    if (pe->n_dirs > CERT_DIR_INDEX) {
        pe->certdir_off = pe->dirs_off + CERT_DIR_INDEX * 8;
        kt_le_window(&file, pe->certdir_off, 8, &hdr, NULL); /* within SizeOfHeaders */
        kt_le_u32(&hdr, &pe->cert_off, NULL);
        kt_le_u32(&hdr, &pe->cert_len, NULL);
    }
    if (pe->cert_len) {
        uint64_t end = (uint64_t)pe->cert_off + pe->cert_len;
        if (end > len) {
            rc = kt_fail(err, -ELIBBAD, pe->certdir_off,
                         "certificate table (%u bytes at %u) runs past the end of the file (%zu)",
                         pe->cert_len, pe->cert_off, len);
            goto fail;
        }
        if (pe->cert_off < pe->sections_end) {
            rc = kt_fail(err, -ELIBBAD, pe->certdir_off,
                         "certificate table at %u overlaps the headers or section data "
                         "(which end at %zu)",
                         pe->cert_off, pe->sections_end);
            goto fail;
        }
        if (end != len) {
            rc = kt_fail(err, -ELIBBAD, (size_t)end,
                         "%zu bytes of data follow the certificate table", len - (size_t)end);
            goto fail;
        }
    }
    /* which bytes are signed depends on all of the above: the section table
     * (names, offsets) must be among them (it may not be when the headers
     * are clipped at a first section that ends before SizeOfHeaders) */
    rc = kt_pe_digest_covers(pe, sec_off, (size_t)nsec * SECTION_HDR_SIZE, err);
    if (rc < 0)
        goto fail;
    if (rc == 0) {
        rc = kt_fail(err, -ELIBBAD, sec_off,
                     "section table (%zu bytes at %zu) is not covered by the image digest",
                     (size_t)nsec * SECTION_HDR_SIZE, sec_off);
        goto fail;
    }
    for (size_t i = 0; i < nsec; i++)
        if ((rc = long_name(pe, coff, &pe->sections[i], err)) < 0)
            goto fail;
    *out = pe;
    return 0;
fail:
    kt_pe_free(pe);
    return rc;
}

void kt_pe_free(struct kt_pe *pe)
{
    if (!pe)
        return;
    free(pe->sections);
    free(pe);
}

int kt_pe_find_section(const struct kt_pe *pe, const char *name, kt_span *data)
{
    for (size_t i = 0; i < pe->n_sections; i++) {
        const struct kt_pe_section *s = &pe->sections[i];
        if (strcmp(s->name, name) != 0)
            continue;
        size_t n = s->raw_size;
        if (s->vsize && s->vsize < n)
            n = s->vsize;
        data->p = n ? pe->buf + s->raw_off : pe->buf;
        data->len = n;
        return 0;
    }
    return -ENOENT;
}

uint32_t kt_pe_compute_checksum(const uint8_t *buf, size_t len, size_t checksum_off)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < len; i += 2) {
        if (i == checksum_off || i == checksum_off + 2)
            continue;
        uint32_t w = buf[i];
        if (i + 1 < len)
            w |= (uint32_t)buf[i + 1] << 8;
        sum += w;
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum = (sum & 0xffff) + (sum >> 16);
    return (uint32_t)(sum + len);
}
