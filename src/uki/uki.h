/* uki.h - a Unified Kernel Image's sections as systemd 252's stub sees them
 * (src/boot/efi/stub.c, pe.c's locate_sections, src/fundamental/tpm-pcr.c
 * of systemd v252).  Public API: ktrust/uki.h. */
#ifndef KT_UKI_UKI_H
#define KT_UKI_UKI_H

#include "ktrust/uki.h"
#include "crypto/crypto.h"
#include "pe/pe.h"

/* The sections systemd 252's stub knows, in its canonical order (the order
 * of PCR 11's measurements); .pcrsig is never measured. */
enum kt_uki_known {
    KT_UKI_LINUX,
    KT_UKI_OSREL,
    KT_UKI_CMDLINE,
    KT_UKI_INITRD,
    KT_UKI_SPLASH,
    KT_UKI_DTB,
    KT_UKI_PCRSIG_IDX,
    KT_UKI_PCRPKEY,
    KT_UKI_KNOWN_COUNT
};

extern const char *const kt_uki_known_names[KT_UKI_KNOWN_COUNT];

/* PCR 11 per bank and phase, computed on first use (uki_pcr.c). */
struct kt_uki_pcr_cache {
    bool done[KT_HASH__COUNT];
    uint8_t value[KT_HASH__COUNT][KT_UKI_PHASES][KT_HASH_MAX_SIZE];
};

/* The most a UKI's image may take in memory (SizeOfImage): larger ones are
 * not modelled (-ENOPKG): no firmware loads them, and the zero fill the stub
 * measures would be hashed here. */
#define KT_UKI_MAX_IMAGE ((uint32_t)1 << 30)

struct kt_uki {
    struct kt_pe *pe;
    struct kt_uki_pcr_cache *cache;
    unsigned flags;                  /* but KT_UKI_OTHER_STUB (kt_uki_flags) */
    struct kt_uki_section *sections; /* pe->n_sections, header order */
    int known[KT_UKI_KNOWN_COUNT];   /* index of the section the stub takes, or -1 */
};

/* The loaded bytes of section i: raw [0, min(VirtualSize, SizeOfRawData))
 * and *zeros bytes of zero fill up to VirtualSize. */
void kt_uki_loaded(const struct kt_uki *u, size_t i, const uint8_t **p, size_t *len,
                   size_t *zeros);

/* The kernel in a UKI without opening it whole (no digests): the raw bytes
 * of the section the stub takes for .linux.  0, or -ENOENT (not a PE, no
 * .linux). */
int kt_uki_linux(const uint8_t *buf, size_t len, const uint8_t **p, size_t *n);
/* The same on a PE already parsed from buf (kt_verify's: a UKI is told
 * from the one parse). */
int kt_uki_linux_pe(const struct kt_pe *pe, const uint8_t *buf, size_t len, const uint8_t **p,
                    size_t *n);

/* The digest of section i as loaded (zero-filled to VirtualSize), as the
 * stub measures it.  out holds kt_hash_size(h) bytes. */
int kt_uki_section_digest(const struct kt_uki *u, size_t i, enum kt_hash h, uint8_t *out);

#endif
