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

int kt_pe_build_section(const char *name, const kt_span *certs, size_t n, enum kt_pe_machine m,
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
    if (n == 0)
        return -EINVAL;
    size_t klen = 0;
    for (size_t i = 0; i < n; i++) {
        if (certs[i].len == 0 || certs[i].len > 0x10000000)
            return -EINVAL;
        klen += certs[i].len;
        if (klen > 0x40000000)
            return -EFBIG;
    }
    const size_t pe_off = 0x40;
    const size_t opt_off = pe_off + 4 + 20;
    const size_t sec_off = opt_off + OPT64_SIZE;
    const size_t hdr_size = align_up(sec_off + N_SECTIONS * 40, FILE_ALIGN);
    const size_t text_raw = hdr_size, text_rawsz = align_up(stub_len, FILE_ALIGN);
    const size_t key_raw = text_raw + text_rawsz, key_rawsz = align_up(klen, FILE_ALIGN);
    const uint32_t text_rva = SECT_ALIGN;
    const uint32_t key_rva = (uint32_t)(text_rva + align_up(stub_len, SECT_ALIGN));
    const uint32_t image_size = (uint32_t)(key_rva + align_up(klen, SECT_ALIGN));
    /* a name longer than 8 bytes lives in the COFF string table ("/4"), which
     * follows the sections (an empty symbol table), as in shim's .vendor_cert */
    const size_t name_len = strlen(name);
    if (name_len == 0 || name_len > 64)
        return -EINVAL;
    const size_t strtab = key_raw + key_rawsz;
    const size_t strtab_len = name_len > 8 ? align_up(4 + name_len + 1, 8) : 0;
    const size_t total = strtab + strtab_len;

    uint8_t *b = calloc(1, total);
    if (!b)
        return -ENOMEM;
    b[0] = 'M';
    b[1] = 'Z';
    put32(b + 0x3c, (uint32_t)pe_off);
    memcpy(b + pe_off, "PE\0\0", 4);
    uint8_t *coff = b + pe_off + 4;
    put16(coff, (uint16_t)m);
    put16(coff + 2, N_SECTIONS);
    put16(coff + 16, OPT64_SIZE);
    /* EXECUTABLE_IMAGE | LARGE_ADDRESS_AWARE | DEBUG_STRIPPED */
    put16(coff + 18, 0x0002 | 0x0020 | 0x0200);
    uint8_t *o = b + opt_off;
    put16(o, 0x20b);
    o[2] = 1; /* linker version 1.0 */
    put32(o + 4, (uint32_t)text_rawsz);  /* SizeOfCode */
    put32(o + 8, (uint32_t)key_rawsz);   /* SizeOfInitializedData */
    put32(o + 16, text_rva);             /* AddressOfEntryPoint */
    put32(o + 20, text_rva);             /* BaseOfCode */
    /* ImageBase (o+24, 8 bytes) = 0 */
    put32(o + 32, SECT_ALIGN);
    put32(o + 36, FILE_ALIGN);
    put32(o + 56, image_size);
    put32(o + 60, (uint32_t)hdr_size);
    put16(o + 68, 10); /* IMAGE_SUBSYSTEM_EFI_APPLICATION */
    put16(o + 70, 0x0100); /* DllCharacteristics: NX_COMPAT */
    put32(o + 72, 0x10000); /* stack reserve/commit, heap reserve/commit (u64 each) */
    put32(o + 80, 0x1000);
    put32(o + 88, 0x10000);
    put32(o + 96, 0x1000);
    put32(o + 108, 16); /* NumberOfRvaAndSizes */
    section_header(b + sec_off, ".text", (uint32_t)stub_len, text_rva, (uint32_t)text_rawsz,
                   (uint32_t)text_raw, 0x60000020u); /* CODE | EXECUTE | READ */
    char short_name[9] = "/4";
    if (strtab_len) {
        put32(coff + 8, (uint32_t)strtab); /* PointerToSymbolTable; NumberOfSymbols 0 */
        put32(b + strtab, (uint32_t)(4 + name_len + 1));
        memcpy(b + strtab + 4, name, name_len);
    } else {
        memcpy(short_name, name, name_len + 1);
    }
    section_header(b + sec_off + 40, short_name, (uint32_t)klen, key_rva, (uint32_t)key_rawsz,
                   (uint32_t)key_raw, 0x40000040u); /* INITIALIZED_DATA | READ */
    memcpy(b + text_raw, stub, stub_len);
    size_t p = key_raw;
    for (size_t i = 0; i < n; i++) {
        memcpy(b + p, certs[i].p, certs[i].len);
        p += certs[i].len;
    }
    put32(o + 64, kt_pe_compute_checksum(b, total, opt_off + 64));
    *out = b;
    *out_len = total;
    return 0;
}
