/* uki.c - the sections of a UKI as systemd 252's stub locates them.
 *
 * The stub's locate_sections() compares each known name with the first
 * strlen(name) bytes of the 8-byte section name (so ".linuxx" is taken for
 * ".linux"), lets a later match overwrite an earlier one, and uses
 * VirtualSize bytes at VirtualAddress; a size of 0 counts as absent. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/crypto.h"
#include "uki/uki.h"
#include "util/file.h"
#include "util/le.h"

const char *const kt_uki_known_names[KT_UKI_KNOWN_COUNT] = {
    ".linux", ".osrel", ".cmdline", ".initrd", ".splash", ".dtb", ".pcrsig", ".pcrpkey",
};

/* The sections of linuxx64.efi.stub itself (252: objdump -h). */
static const char *const stub_own[] = {
    ".text", ".reloc", ".data", ".dynamic", ".rela", ".dynsym", ".sbat", ".sdmagic",
    ".rodata", ".bss", ".rel", ".dynstr", ".hash", ".gnu.hash", ".eh_frame", NULL,
};

static int match_known(const uint8_t raw[8], bool *prefix)
{
    for (int j = 0; j < KT_UKI_KNOWN_COUNT; j++) {
        size_t n = strlen(kt_uki_known_names[j]);
        if (memcmp(raw, kt_uki_known_names[j], n) != 0)
            continue;
        *prefix = n < 8 && raw[n] != 0;
        return j;
    }
    return -1;
}

static bool is_stub_own(const char *name)
{
    for (size_t i = 0; stub_own[i]; i++)
        if (strcmp(name, stub_own[i]) == 0)
            return true;
    return false;
}

void kt_uki_loaded(const struct kt_uki *u, size_t i, const uint8_t **p, size_t *len,
                   size_t *zeros)
{
    const struct kt_pe_section *s = &u->pe->sections[i];
    size_t n = s->raw_size < s->vsize ? s->raw_size : s->vsize;
    *p = n ? u->pe->buf + s->raw_off : u->pe->buf;
    *len = n;
    *zeros = s->vsize - n;
}

/* The digest of a section as loaded: its raw bytes, then the zero fill. */
int kt_uki_section_digest(const struct kt_uki *u, size_t i, enum kt_hash h, uint8_t *out)
{
    static const uint8_t zero[4096];
    const uint8_t *p;
    size_t len, zeros;
    struct kt_digester *dg;
    uint8_t d[1][KT_HASH_MAX_SIZE];
    kt_uki_loaded(u, i, &p, &len, &zeros);
    int rc = kt_digester_new(&dg, &h, 1);
    if (rc < 0)
        return rc;
    kt_digester_update(dg, p, len);
    while (zeros) {
        size_t n = zeros < sizeof(zero) ? zeros : sizeof(zero);
        kt_digester_update(dg, zero, n);
        zeros -= n;
    }
    rc = kt_digester_final(dg, d);
    kt_digester_free(dg);
    if (rc == 0)
        memcpy(out, d[0], kt_hash_size(h));
    return rc;
}


static int section_sha256(struct kt_uki *u, size_t i)
{
    return kt_uki_section_digest(u, i, KT_HASH_SHA256, u->sections[i].sha256);
}

/* One section header: its role, and the stub's choice among known names. */
static void classify(struct kt_uki *u, size_t i, const uint8_t raw[8])
{
    struct kt_uki_section *s = &u->sections[i];
    const struct kt_pe_section *ps = &u->pe->sections[i];
    bool prefix = false;
    int j = match_known(raw, &prefix);
    s->name = ps->name;
    s->vsize = ps->vsize;
    s->raw_size = ps->raw_size;
    s->header_off = ps->header_off;
    s->role = is_stub_own(ps->name) ? KT_UKI_STUB : KT_UKI_UNKNOWN;
    if (j < 0)
        return;
    s->canonical = kt_uki_known_names[j];
    s->prefix_match = prefix;
    if (prefix)
        u->flags |= KT_UKI_PREFIX_NAME;
    if (u->known[j] >= 0) {
        u->sections[u->known[j]].role = KT_UKI_SHADOWED;
        u->flags |= KT_UKI_DUPLICATE;
    }
    u->known[j] = (int)i;
    s->role = j == KT_UKI_PCRSIG_IDX ? KT_UKI_PCRSIG : KT_UKI_MEASURED;
}

/* The flags that need every section: unknown ones, canonical order,
 * .linux, sizes of 0 (the stub's "not found"). */
static void settle(struct kt_uki *u)
{
    int last = -1;
    for (size_t i = 0; i < u->pe->n_sections; i++) {
        struct kt_uki_section *s = &u->sections[i];
        if (s->role == KT_UKI_UNKNOWN)
            u->flags |= KT_UKI_UNKNOWN_SECT;
    }
    for (int j = 0; j < KT_UKI_KNOWN_COUNT; j++) {
        if (u->known[j] < 0)
            continue;
        if (u->sections[u->known[j]].vsize == 0) {
            u->sections[u->known[j]].role = KT_UKI_EMPTY;
            u->known[j] = -1;
            continue;
        }
        if (u->known[j] < last)
            u->flags |= KT_UKI_OUT_OF_ORDER;
        last = u->known[j];
    }
    if (u->known[KT_UKI_LINUX] < 0)
        u->flags |= KT_UKI_NO_LINUX;
}

/* EDK2's loader refuses a section that ends past SizeOfImage (its address
 * would lie outside the allocation); ktrust models images up to
 * KT_UKI_MAX_IMAGE. */
static int check_extent(const struct kt_uki *u, uint32_t size_of_image, size_t i,
                        struct kt_error *err)
{
    const struct kt_pe_section *s = &u->pe->sections[i];
    if (size_of_image > KT_UKI_MAX_IMAGE)
        return kt_fail(err, -ENOPKG, u->pe->opt_off + 56,
                       "SizeOfImage %u: larger than ktrust models (1 GiB)", size_of_image);
    if ((uint64_t)s->vaddr + s->vsize > size_of_image)
        return kt_fail(err, -ELIBBAD, s->header_off,
                       "section %s ends past SizeOfImage (the firmware's loader refuses it)",
                       s->name);
    return 0;
}

static int read_sections(struct kt_uki *u, struct kt_error *err)
{
    kt_le file, hdr;
    uint32_t size_of_image;
    kt_le_init(&file, u->pe->buf, u->pe->len, err);
    int rc = kt_le_window(&file, u->pe->opt_off + 56, 4, &hdr, "SizeOfImage");
    if (rc == 0)
        rc = kt_le_u32(&hdr, &size_of_image, "SizeOfImage");
    for (size_t i = 0; i < u->pe->n_sections && rc == 0; i++) {
        const uint8_t *raw;
        rc = kt_le_window(&file, u->pe->sections[i].header_off, 40, &hdr, "section header");
        if (rc == 0)
            rc = kt_le_bytes(&hdr, 8, &raw, "section name");
        if (rc == 0)
            rc = check_extent(u, size_of_image, i, err);
        if (rc < 0)
            return rc;
        classify(u, i, raw);
        rc = section_sha256(u, i);
        if (rc < 0)
            return kt_fail(err, rc, KT_NO_OFFSET, "section digest");
    }
    settle(u);
    return 0;
}

int kt_uki_open_buf(const uint8_t *buf, size_t len, struct kt_uki **out, struct kt_error *err)
{
    struct kt_uki *u = calloc(1, sizeof(*u));
    *out = NULL;
    if (!u)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    for (int j = 0; j < KT_UKI_KNOWN_COUNT; j++)
        u->known[j] = -1;
    int rc = kt_pe_parse(buf, len, &u->pe, err);
    if (rc == 0 && (!(u->sections = calloc(u->pe->n_sections + 1, sizeof(*u->sections))) ||
                    !(u->cache = calloc(1, sizeof(*u->cache)))))
        rc = kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    if (rc == 0)
        rc = read_sections(u, err);
    if (rc < 0) {
        kt_uki_free(u);
        return rc;
    }
    *out = u;
    return 0;
}

void kt_uki_free(struct kt_uki *u)
{
    if (!u)
        return;
    kt_pe_free(u->pe);
    free(u->sections);
    free(u->cache);
    free(u);
}

size_t kt_uki_section_count(const struct kt_uki *u) { return u->pe->n_sections; }

const struct kt_uki_section *kt_uki_section_at(const struct kt_uki *u, size_t i)
{
    return i < u->pe->n_sections ? &u->sections[i] : NULL;
}

const char *kt_uki_role_name(enum kt_uki_role r)
{
    static const char *const names[] = {"measured", "pcrsig", "shadowed",
                                        "empty",    "stub",   "unknown"};
    return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}

int kt_uki_get(const struct kt_uki *u, const char *canonical, const uint8_t **p, size_t *len)
{
    for (int j = 0; j < KT_UKI_KNOWN_COUNT; j++) {
        size_t zeros;
        if (strcmp(canonical, kt_uki_known_names[j]) != 0 || u->known[j] < 0)
            continue;
        kt_uki_loaded(u, (size_t)u->known[j], p, len, &zeros);
        return 0;
    }
    return -ENOENT;
}

int kt_uki_linux_pe(const struct kt_pe *pe, const uint8_t *buf, size_t len, const uint8_t **p,
                    size_t *n)
{
    const struct kt_pe_section *linux_sec = NULL;
    kt_le file, hdr;
    kt_le_init(&file, buf, len, NULL);
    for (size_t i = 0; i < pe->n_sections; i++) {
        const uint8_t *raw;
        bool prefix;
        if (kt_le_window(&file, pe->sections[i].header_off, 40, &hdr, NULL) == 0 &&
            kt_le_bytes(&hdr, 8, &raw, NULL) == 0 && match_known(raw, &prefix) == KT_UKI_LINUX)
            linux_sec = &pe->sections[i]; /* the last .linux is the stub's */
    }
    int rc = linux_sec && linux_sec->vsize > 0 ? 0 : -ENOENT;
    if (rc == 0) {
        *n = linux_sec->raw_size < linux_sec->vsize ? linux_sec->raw_size : linux_sec->vsize;
        *p = buf + linux_sec->raw_off;
    }
    return rc;
}

int kt_uki_linux(const uint8_t *buf, size_t len, const uint8_t **p, size_t *n)
{
    struct kt_pe *pe = NULL;
    if (kt_pe_parse(buf, len, &pe, NULL) < 0)
        return -ENOENT;
    int rc = kt_uki_linux_pe(pe, buf, len, p, n);
    kt_pe_free(pe);
    return rc;
}

bool kt_uki_detect(const uint8_t *buf, size_t len)
{
    const uint8_t *p;
    size_t n;
    return kt_uki_linux(buf, len, &p, &n) == 0;
}

bool kt_uki_detect_file(const char *path)
{
    struct kt_file f;
    if (kt_file_open(path, &f, NULL) < 0)
        return false;
    bool yes = kt_uki_detect(f.data, f.len);
    kt_file_close(&f);
    return yes;
}
