/* A minimal PE32+ EFI application that wraps certificates in `.keylist`. */
#include "pe/pe.h"

#include <stdlib.h>
#include <string.h>

#define FILE_ALIGN 0x200u
#define SECT_ALIGN 0x1000u
#define OPT64_SIZE (112 + 16 * 8)
#define N_SECTIONS 2

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* entry point: return EFI_UNSUPPORTED (0x8000000000000003) */
static const uint8_t stub_x64[] = {0x48, 0xb8, 0x03, 0, 0, 0, 0, 0, 0, 0x80, /* movabs rax */
                                   0xc3 /* ret */};
static const uint8_t stub_aa64[] = {0x60, 0x00, 0x80, 0xd2,  /* movz x0, #3 */
                                    0x00, 0x00, 0xf0, 0xf2,  /* movk x0, #0x8000, lsl #48 */
                                    0xc0, 0x03, 0x5f, 0xd6}; /* ret */

static void section_header(uint8_t *h, const char *name, uint32_t vsize, uint32_t vaddr,
                           uint32_t raw_size, uint32_t raw_off, uint32_t flags)
{
    memcpy(h, name, strlen(name));
    put32(h + 8, vsize);
    put32(h + 12, vaddr);
    put32(h + 16, raw_size);
    put32(h + 20, raw_off);
    put32(h + 36, flags);
}

int kt_pe_build_keylist(const kt_span *certs, size_t n, enum kt_pe_machine m, uint8_t **out,
                        size_t *out_len)
{
    return kt_pe_build_section(".keylist", certs, n, m, out, out_len);
}

/* Where everything goes in the image. */
struct layout {
    size_t klen;                  /* the parts' bytes */
    size_t name_len;
    size_t opt_off, sec_off, hdr_size;
    size_t text_raw, text_rawsz;  /* .text: file offset and size */
    size_t key_raw, key_rawsz;    /* the parts' section */
    uint32_t text_rva, key_rva, image_size;
    size_t strtab, strtab_len;    /* COFF string table (0 bytes: a short name) */
    size_t total;
};

#define PE_OFF 0x40u

/* Check the parts and the name, and lay the image out. */
static int plan(const char *name, const kt_span *parts, size_t n, size_t stub_len,
                struct layout *l)
{
    if (n == 0)
        return -EINVAL;
    l->klen = 0;
    for (size_t i = 0; i < n; i++) {
        if (parts[i].len == 0 || parts[i].len > 0x10000000)
            return -EINVAL;
        l->klen += parts[i].len;
        if (l->klen > 0x40000000)
            return -EFBIG;
    }
    l->opt_off = PE_OFF + 4 + 20;
    l->sec_off = l->opt_off + OPT64_SIZE;
    l->hdr_size = align_up(l->sec_off + N_SECTIONS * 40, FILE_ALIGN);
    l->text_raw = l->hdr_size;
    l->text_rawsz = align_up(stub_len, FILE_ALIGN);
    l->key_raw = l->text_raw + l->text_rawsz;
    l->key_rawsz = align_up(l->klen, FILE_ALIGN);
    l->text_rva = SECT_ALIGN;
    l->key_rva = (uint32_t)(l->text_rva + align_up(stub_len, SECT_ALIGN));
    l->image_size = (uint32_t)(l->key_rva + align_up(l->klen, SECT_ALIGN));
    /* a name longer than 8 bytes lives in the COFF string table ("/4"), which
     * follows the sections (an empty symbol table), as in shim's .vendor_cert */
    l->name_len = strlen(name);
    if (l->name_len == 0 || l->name_len > 64)
        return -EINVAL;
    l->strtab = l->key_raw + l->key_rawsz;
    l->strtab_len = l->name_len > 8 ? align_up(4 + l->name_len + 1, 8) : 0;
    l->total = l->strtab + l->strtab_len;
    return 0;
}

/* The DOS stub header, "PE\0\0", the COFF header and the PE32+ optional
 * header (its CheckSum is written last, over the whole image). */
static void write_headers(uint8_t *b, const struct layout *l, enum kt_pe_machine m)
{
    b[0] = 'M';
    b[1] = 'Z';
    put32(b + 0x3c, (uint32_t)PE_OFF);
    memcpy(b + PE_OFF, "PE\0\0", 4);
    uint8_t *coff = b + PE_OFF + 4;
    put16(coff, (uint16_t)m);
    put16(coff + 2, N_SECTIONS);
    if (l->strtab_len)
        put32(coff + 8, (uint32_t)l->strtab); /* PointerToSymbolTable; NumberOfSymbols 0 */
    put16(coff + 16, OPT64_SIZE);
    /* EXECUTABLE_IMAGE | LARGE_ADDRESS_AWARE | DEBUG_STRIPPED */
    put16(coff + 18, 0x0002 | 0x0020 | 0x0200);
    uint8_t *o = b + l->opt_off;
    put16(o, 0x20b);
    o[2] = 1; /* linker version 1.0 */
    put32(o + 4, (uint32_t)l->text_rawsz); /* SizeOfCode */
    put32(o + 8, (uint32_t)l->key_rawsz);  /* SizeOfInitializedData */
    put32(o + 16, l->text_rva);            /* AddressOfEntryPoint */
    put32(o + 20, l->text_rva);            /* BaseOfCode */
    /* ImageBase (o+24, 8 bytes) = 0 */
    put32(o + 32, SECT_ALIGN);
    put32(o + 36, FILE_ALIGN);
    put32(o + 56, l->image_size);
    put32(o + 60, (uint32_t)l->hdr_size);
    put16(o + 68, 10); /* IMAGE_SUBSYSTEM_EFI_APPLICATION */
    put16(o + 70, 0x0100); /* DllCharacteristics: NX_COMPAT */
    put32(o + 72, 0x10000); /* stack reserve/commit, heap reserve/commit (u64 each) */
    put32(o + 80, 0x1000);
    put32(o + 88, 0x10000);
    put32(o + 96, 0x1000);
    put32(o + 108, 16); /* NumberOfRvaAndSizes */
}

/* The section table (.text, then the named section), the string table for
 * a long name, the entry stub and the parts back to back. */
static void write_sections(uint8_t *b, const struct layout *l, const char *name,
                           const uint8_t *stub, size_t stub_len, const kt_span *parts, size_t n)
{
    section_header(b + l->sec_off, ".text", (uint32_t)stub_len, l->text_rva,
                   (uint32_t)l->text_rawsz, (uint32_t)l->text_raw,
                   0x60000020u); /* CODE | EXECUTE | READ */
    char short_name[9] = "/4";
    if (l->strtab_len) {
        put32(b + l->strtab, (uint32_t)(4 + l->name_len + 1));
        memcpy(b + l->strtab + 4, name, l->name_len);
    } else {
        memcpy(short_name, name, l->name_len + 1);
    }
    section_header(b + l->sec_off + 40, short_name, (uint32_t)l->klen, l->key_rva,
                   (uint32_t)l->key_rawsz, (uint32_t)l->key_raw,
                   0x40000040u); /* INITIALIZED_DATA | READ */
    memcpy(b + l->text_raw, stub, stub_len);
    size_t p = l->key_raw;
    for (size_t i = 0; i < n; i++) {
        memcpy(b + p, parts[i].p, parts[i].len);
        p += parts[i].len;
    }
}

int kt_pe_build_section(const char *name, const kt_span *parts, size_t n, enum kt_pe_machine m,
                        uint8_t **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    const uint8_t *stub;
    size_t stub_len;
    if (m == KT_PE_MACHINE_X64) {
        stub = stub_x64;
        stub_len = sizeof(stub_x64);
    } else if (m == KT_PE_MACHINE_AA64) {
        stub = stub_aa64;
        stub_len = sizeof(stub_aa64);
    } else {
        return -EINVAL;
    }
    struct layout l;
    KT_TRY(plan(name, parts, n, stub_len, &l));
    uint8_t *b = calloc(1, l.total);
    if (!b)
        return -ENOMEM;
    write_headers(b, &l, m);
    write_sections(b, &l, name, stub, stub_len, parts, n);
    put32(b + l.opt_off + 64, kt_pe_compute_checksum(b, l.total, l.opt_off + 64));
    *out = b;
    *out_len = l.total;
    return 0;
}
