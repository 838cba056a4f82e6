/* modsig_missing.c - what a module without the signature marker ends with,
 * so that "unsigned" tells a truncated or damaged file from a module that was
 * never signed (both are ENODATA to the kernel). */
#include "modsig/modsig.h"
#include "util/le.h"

#include <stdio.h>
#include <string.h>

/* An ELF field of n bytes (2, 4 or 8) at off, in the file's byte order. */
static uint64_t elf_field(const uint8_t *buf, size_t len, size_t off, size_t n, bool be)
{
    kt_le file, f;
    const uint8_t *p;
    kt_le_init(&file, buf, len, NULL);
    if (kt_le_window(&file, off, n, &f, NULL) < 0 || kt_le_bytes(&f, n, &p, NULL) < 0)
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[be ? n - 1 - i : i] << (8 * i);
    return v;
}

/* The ELF view: where the section header table is, and where the file ends
 * relative to it. */
static void describe_elf(const uint8_t *buf, size_t len, char *out, size_t cap)
{
    bool is64 = buf[4] == 2, be = buf[5] == 2;
    size_t hdr = is64 ? 64 : 52;
    if (len < hdr) {
        snprintf(out, cap, "the file ends after %zu bytes, inside the %zu-byte ELF header", len,
                 hdr);
        return;
    }
    uint64_t shoff = elf_field(buf, len, is64 ? 0x28 : 0x20, is64 ? 8 : 4, be);
    uint64_t entsz = elf_field(buf, len, is64 ? 0x3a : 0x2e, 2, be);
    uint64_t shnum = elf_field(buf, len, is64 ? 0x3c : 0x30, 2, be);
    uint64_t end = shoff + entsz * shnum;
    if (end < shoff)
        end = UINT64_MAX; /* a table past any file */
    if (!shoff || !shnum)
        snprintf(out, cap, "an ELF file of %zu bytes with no section header table", len);
    else if (len < shoff)
        snprintf(out, cap,
                 "the file ends after %zu bytes, inside the ELF sections (the section header "
                 "table starts at %llu): truncated",
                 len, (unsigned long long)shoff);
    else if (len < end)
        snprintf(out, cap,
                 "the file ends after %zu bytes, inside the ELF section header table (bytes "
                 "%llu to %llu): truncated",
                 len, (unsigned long long)shoff, (unsigned long long)end);
    else if (len == end)
        snprintf(out, cap,
                 "the ELF file ends with its section header table (%zu bytes): never signed",
                 len);
    else
        snprintf(out, cap,
                 "%llu bytes follow the ELF section header table (which ends at %llu) but do "
                 "not end with the marker: a signature cut short, or other data",
                 (unsigned long long)(len - end), (unsigned long long)end);
}

/* The marker where it is not at the end: the longest start of it the file
 * ends with (cut short), or the last whole one (bytes after it). */
static bool describe_marker(const uint8_t *buf, size_t len, char *out, size_t cap)
{
    for (size_t k = KT_MODSIG_MAGIC_LEN - 1; k >= 4; k--) {
        if (len >= k && memcmp(buf + len - k, KT_MODSIG_MAGIC, k) == 0) {
            snprintf(out, cap,
                     "the file ends after %zu bytes, inside the marker (its first %zu of %d "
                     "bytes): truncated",
                     len, k, KT_MODSIG_MAGIC_LEN);
            return true;
        }
    }
    if (len < KT_MODSIG_MAGIC_LEN)
        return false;
    size_t lowest = len > 65536 ? len - 65536 : 0; /* a trailer's reach */
    for (size_t at = len - KT_MODSIG_MAGIC_LEN; at >= lowest && at != (size_t)-1; at--) {
        if (memcmp(buf + at, KT_MODSIG_MAGIC, KT_MODSIG_MAGIC_LEN) == 0) {
            snprintf(out, cap,
                     "the marker is at offset %zu, followed by %zu byte%s that should not be "
                     "there",
                     at, len - at - KT_MODSIG_MAGIC_LEN,
                     len - at - KT_MODSIG_MAGIC_LEN == 1 ? "" : "s");
            return true;
        }
    }
    return false;
}

void kt_modsig_describe_missing(const uint8_t *buf, size_t len, char *out, size_t cap)
{
    if (len == 0)
        snprintf(out, cap, "empty file");
    else if (describe_marker(buf, len, out, cap))
        ;
    else if (len >= 6 && memcmp(buf, "\177ELF", 4) == 0)
        describe_elf(buf, len, out, cap);
    else
        snprintf(out, cap, "not an ELF file (%zu bytes)", len);
}
