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

/* The COFF header's fields that parsing needs beyond struct kt_pe. */
struct coff_header {
    uint16_t nsec;    /* NumberOfSections */
    uint32_t symtab;  /* PointerToSymbolTable (0: none) */
    uint32_t nsyms;   /* NumberOfSymbols */
    uint16_t optsize; /* SizeOfOptionalHeader */
};

/* "/123": an offset into the COFF string table (after the symbol table).
 * Resolved only from bytes the image digest covers: the certificate table
 * and gaps between sections can change after signing, so a string table
 * there would let anyone rename a signed section (.keylist, .vendor_cert);
 * such a name makes the image malformed.  A name that does not resolve (no
 * table, out of the file, unterminated) stays "/n" and matches nothing. */
static int long_name(const struct kt_pe *pe, const kt_le *file, const struct coff_header *coff,
                     struct kt_pe_section *s, struct kt_error *err)
{
    if (s->name[0] != '/' || s->name[1] < '0' || s->name[1] > '9')
        return 0;
    uint64_t idx = 0;
    for (int i = 1; i < 8 && s->name[i]; i++) {
        if (s->name[i] < '0' || s->name[i] > '9')
            return 0;
        idx = idx * 10 + (uint64_t)(s->name[i] - '0');
    }
    uint64_t strtab = (uint64_t)coff->symtab + (uint64_t)coff->nsyms * 18;
    kt_le table;
    uint32_t size;
    if (coff->symtab == 0 || strtab + 4 > pe->len)
        return 0;
    kt_le_window(file, (size_t)strtab, 4, &table, NULL); /* within the file: checked */
    kt_le_u32(&table, &size, NULL);
    if (idx < 4 || idx >= size || strtab + size > pe->len)
        return 0;
    const uint8_t *p;
    size_t max = (size_t)(size - idx), i;
    kt_le_window(file, (size_t)(strtab + idx), max, &table, NULL); /* checked */
    kt_le_bytes(&table, max, &p, NULL);
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

/* The DOS header's "MZ" and e_lfanew, and the "PE\0\0" signature it points
 * at, followed by room for a COFF header. */
static int read_dos_header(const kt_le *file, uint32_t *lfanew, struct kt_error *err)
{
    kt_le dos, sig;
    const uint8_t *mz, *pe_sig;
    size_t len = kt_le_left(file);
    if (len == 0)
        return kt_fail(err, -ELIBBAD, 0, "empty file");
    kt_le magic;
    if (kt_le_window(file, 0, 2, &magic, NULL) < 0 || kt_le_bytes(&magic, 2, &mz, NULL) < 0 ||
        mz[0] != 'M' || mz[1] != 'Z')
        return kt_fail(err, -ELIBBAD, 0, "DOS header: no MZ signature");
    if (kt_le_window(file, 0, DOS_HDR_SIZE, &dos, NULL) < 0)
        return kt_fail(err, -ELIBBAD, 0,
                       "DOS header: the file ends after %zu bytes, inside the %d-byte DOS header",
                       len, DOS_HDR_SIZE);
    kt_le_bytes(&dos, 2, &mz, NULL); /* e_magic, checked above */
    kt_le_seek(&dos, 0x3c, NULL);
    kt_le_u32(&dos, lfanew, NULL); /* e_lfanew */
    if (kt_le_window(file, *lfanew, 4 + COFF_HDR_SIZE, &sig, NULL) < 0)
        return kt_fail(err, -ELIBBAD, 0x3c,
                       "DOS header: e_lfanew %u points past the end: the file ends after %zu bytes, "
                       "before the PE and COFF headers (%d bytes there)",
                       *lfanew, len, 4 + COFF_HDR_SIZE);
    kt_le_bytes(&sig, 4, &pe_sig, NULL);
    if (memcmp(pe_sig, "PE\0\0", 4) != 0)
        return kt_fail(err, -ELIBBAD, *lfanew, "PE signature missing");
    return 0;
}

/* The COFF header after "PE\0\0" (within the file: read_dos_header checked
 * it); the optional header follows it and must lie within the file. */
static int read_coff_header(const kt_le *file, struct kt_pe *pe, struct coff_header *coff,
                            struct kt_error *err)
{
    kt_le hdr;
    kt_le_window(file, pe->pe_off + 4, COFF_HDR_SIZE, &hdr, NULL);
    kt_le_u16(&hdr, &pe->machine, NULL);
    kt_le_u16(&hdr, &coff->nsec, NULL);
    kt_le_skip(&hdr, 4, NULL); /* TimeDateStamp */
    kt_le_u32(&hdr, &coff->symtab, NULL);
    kt_le_u32(&hdr, &coff->nsyms, NULL);
    kt_le_u16(&hdr, &coff->optsize, NULL);
    pe->opt_off = pe->pe_off + 4 + COFF_HDR_SIZE;
    if (pe->opt_off + coff->optsize > pe->len)
        return kt_fail(err, -ELIBBAD, pe->pe_off + 4 + 16,
                       "COFF header: SizeOfOptionalHeader %u runs past the end", coff->optsize);
    return 0;
}

/* The optional header: its magic (PE32 or PE32+), SizeOfHeaders, CheckSum,
 * Subsystem and NumberOfRvaAndSizes, which must fit in its optsize bytes. */
static int read_optional_header(const kt_le *file, struct kt_pe *pe, uint16_t optsize,
                                struct kt_error *err)
{
    size_t size_field = pe->pe_off + 4 + 16; /* SizeOfOptionalHeader, in the COFF header */
    if (optsize < 2)
        return kt_fail(err, -ELIBBAD, size_field, "optional header missing");
    kt_le opt;
    uint16_t magic;
    size_t fixed;
    kt_le_window(file, pe->opt_off, optsize, &opt, NULL); /* within the file: checked */
    kt_le_u16(&opt, &magic, NULL);
    if (magic == 0x10b) {
        fixed = OPT32_FIXED;
    } else if (magic == 0x20b) {
        fixed = OPT64_FIXED;
        pe->pe32plus = true;
    } else {
        return kt_fail(err, -ELIBBAD, pe->opt_off, "optional header: bad magic 0x%04x", magic);
    }
    if (optsize < fixed)
        return kt_fail(err, -ELIBBAD, size_field,
                       "optional header: SizeOfOptionalHeader %u too small for %s", optsize,
                       pe->pe32plus ? "PE32+" : "PE32");
    uint32_t ndirs;
    kt_le_seek(&opt, pe->opt_off + 60, NULL);
    kt_le_u32(&opt, &pe->header_size, NULL); /* SizeOfHeaders */
    pe->checksum_off = pe->opt_off + 64;
    kt_le_u32(&opt, &pe->checksum, NULL);
    kt_le_u16(&opt, &pe->subsystem, NULL);
    kt_le_seek(&opt, pe->opt_off + fixed - 4, NULL);
    kt_le_u32(&opt, &ndirs, NULL); /* NumberOfRvaAndSizes, before the directories */
    pe->dirs_off = pe->opt_off + fixed;
    if ((uint64_t)ndirs * 8 > optsize - fixed)
        return kt_fail(err, -ELIBBAD, pe->opt_off + fixed - 4,
                       "optional header: NumberOfRvaAndSizes %u does not fit in the optional "
                       "header",
                       ndirs);
    pe->n_dirs = ndirs > 16 ? 16 : ndirs;
    if (pe->header_size > pe->len)
        return kt_fail(err, -ELIBBAD, pe->opt_off + 60,
                       "optional header: SizeOfHeaders %u is past the end of the file (%zu)",
                       pe->header_size, pe->len);
    return 0;
}

/* The section table at sec_off: within the file and SizeOfHeaders (as are
 * the CheckSum and the data directories), then each section header. */
static int read_section_table(const kt_le *file, struct kt_pe *pe, size_t sec_off,
                              uint16_t nsec, struct kt_error *err)
{
    size_t table_len = (size_t)nsec * SECTION_HDR_SIZE;
    if (sec_off + table_len > pe->len)
        return kt_fail(err, -ELIBBAD, pe->pe_off + 4 + 2,
                       "section table: %u sections run past the end of the file", nsec);
    if (sec_off + table_len > pe->header_size)
        return kt_fail(err, -ELIBBAD, pe->opt_off + 60,
                       "section table (ends at %zu) runs past SizeOfHeaders %u",
                       sec_off + table_len, pe->header_size);
    if (pe->checksum_off + 4 > pe->header_size ||
        pe->dirs_off + (size_t)pe->n_dirs * 8 > pe->header_size)
        return kt_fail(err, -ELIBBAD, pe->opt_off + 60,
                       "optional header runs past SizeOfHeaders %u", pe->header_size);
    pe->n_sections = nsec;
    pe->sections = calloc(nsec ? nsec : 1, sizeof(*pe->sections));
    if (!pe->sections)
        return -ENOMEM;
    kt_le table, hdr;
    kt_le_window(file, sec_off, table_len, &table, NULL); /* checked */
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
    return 0;
}

/* Data directory 4, the certificate table: after all section data and
 * ending exactly at the end of the file. */
static int read_cert_dir(const kt_le *file, struct kt_pe *pe, struct kt_error *err)
{
    if (pe->n_dirs > CERT_DIR_INDEX) {
        kt_le dir;
        pe->certdir_off = pe->dirs_off + CERT_DIR_INDEX * 8;
        kt_le_window(file, pe->certdir_off, 8, &dir, NULL); /* within SizeOfHeaders */
        kt_le_u32(&dir, &pe->cert_off, NULL);
        kt_le_u32(&dir, &pe->cert_len, NULL);
    }
    if (!pe->cert_len)
        return 0;
    uint64_t end = (uint64_t)pe->cert_off + pe->cert_len;
    if (end > pe->len)
        return kt_fail(err, -ELIBBAD, pe->certdir_off,
                       "certificate table (%u bytes at %u) runs past the end of the file (%zu)",
                       pe->cert_len, pe->cert_off, pe->len);
    if (pe->cert_off < pe->sections_end)
        return kt_fail(err, -ELIBBAD, pe->certdir_off,
                       "certificate table at %u overlaps the headers or section data "
                       "(which end at %zu)",
                       pe->cert_off, pe->sections_end);
    if (end != pe->len)
        return kt_fail(err, -ELIBBAD, (size_t)end,
                       "%zu bytes of data follow the certificate table", pe->len - (size_t)end);
    return 0;
}

/* Which bytes are signed depends on all of the above: the section table
 * (names, offsets) must be among them (it may not be when the headers are
 * clipped at a first section that ends before SizeOfHeaders). */
static int check_section_table_signed(const struct kt_pe *pe, size_t sec_off,
                                      struct kt_error *err)
{
    size_t table_len = pe->n_sections * SECTION_HDR_SIZE;
    int rc = kt_pe_digest_covers(pe, sec_off, table_len, err);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return kt_fail(err, -ELIBBAD, sec_off,
                       "section table (%zu bytes at %zu) is not covered by the image digest",
                       table_len, sec_off);
    return 0;
}

static int parse_headers(struct kt_pe *pe, struct kt_error *err)
{
    kt_le file;
    struct coff_header coff;
    kt_le_init(&file, pe->buf, pe->len, NULL);
    KT_TRY(read_coff_header(&file, pe, &coff, err));
    KT_TRY(read_optional_header(&file, pe, coff.optsize, err));
    size_t sec_off = pe->opt_off + coff.optsize;
    KT_TRY(read_section_table(&file, pe, sec_off, coff.nsec, err));
    KT_TRY(check_sections(pe, err));
    KT_TRY(read_cert_dir(&file, pe, err));
    KT_TRY(check_section_table_signed(pe, sec_off, err));
    for (size_t i = 0; i < pe->n_sections; i++)
        KT_TRY(long_name(pe, &file, &coff, &pe->sections[i], err));
    return 0;
}

int kt_pe_parse(const uint8_t *buf, size_t len, struct kt_pe **out, struct kt_error *err)
{
    *out = NULL;
    kt_le file;
    uint32_t lfanew;
    kt_le_init(&file, buf, len, NULL);
    KT_TRY(read_dos_header(&file, &lfanew, err));
    struct kt_pe *pe = calloc(1, sizeof(*pe));
    if (!pe)
        return -ENOMEM;
    pe->buf = buf;
    pe->len = len;
    pe->pe_off = lfanew;
    int rc = parse_headers(pe, err);
    if (rc < 0) {
        kt_pe_free(pe);
        return rc;
    }
    *out = pe;
    return 0;
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
