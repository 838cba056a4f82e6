/* ktrust/uki.h - Unified Kernel Images (UAPI.5): one signed PE holding
 * systemd-stub and the kernel, initrd, command line, os-release and the
 * signed PCR policy, read as systemd 252's stub (Debian 12's
 * systemd-boot-efi) reads them, and the PCR 11 it measures.
 *
 *   kt_uki_open_buf()     the sections as the stub sees them
 *   kt_uki_section_at()   one PE section: its role for the stub
 *   kt_uki_osrel()        a field of .osrel; kt_uki_uname(): .uname
 *   kt_uki_pcr11()        PCR 11 after the stub and after each boot phase
 *
 * The handle points into the caller's buffer, which must outlive it.
 * Nothing here executes or trusts the image; its signatures are verified
 * by kt_verify_buf (ktrust/verify.h) like any PE.
 */
#ifndef KTRUST_UKI_H
#define KTRUST_UKI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What systemd 252's stub does with a PE section. */
enum kt_uki_role {
    KT_UKI_MEASURED, /* a section the stub uses and measures into PCR 11 */
    KT_UKI_PCRSIG,   /* .pcrsig: used, never measured (it signs PCR 11) */
    KT_UKI_SHADOWED, /* a later section matching the same name wins: ignored */
    KT_UKI_EMPTY,    /* a known name with VirtualSize 0: the stub takes it as absent */
    KT_UKI_STUB,     /* the stub's own code and data (.text, .data, .sbat, .sdmagic ...) */
    KT_UKI_UNKNOWN,  /* a name the stub does not know (.uname for 252): ignored */
};

struct kt_uki_section {
    const char *name;      /* the PE section name (NUL-terminated) */
    const char *canonical; /* the UKI section the stub takes it for, or NULL */
    enum kt_uki_role role;
    bool prefix_match;     /* the name only begins with the canonical one (".linuxx") */
    uint32_t vsize;        /* VirtualSize: the bytes the stub measures */
    uint32_t raw_size;     /* SizeOfRawData */
    size_t header_off;     /* file offset of the section header */
    uint8_t sha256[32];    /* SHA-256 of the VirtualSize bytes as loaded (zero-filled tail) */
};

/* Findings on the whole image (kt_uki_flags). */
#define KT_UKI_NO_LINUX     0x01u /* no usable .linux: the stub refuses to boot */
#define KT_UKI_OUT_OF_ORDER 0x02u /* known sections not in UAPI.5's canonical order */
#define KT_UKI_DUPLICATE    0x04u /* a known name appears twice (the last wins) */
#define KT_UKI_UNKNOWN_SECT 0x08u /* a section the stub ignores */
#define KT_UKI_PREFIX_NAME  0x10u /* a longer name taken for a known one */
#define KT_UKI_OTHER_STUB   0x20u /* .sdmagic names another stub than systemd 252's */

struct kt_uki;

/* Read the sections of a PE image as systemd 252's stub does: each known
 * name (.linux .osrel .cmdline .initrd .splash .dtb .pcrsig .pcrpkey) is
 * matched against the first bytes of the 8-byte section name, the last
 * match wins, VirtualSize bytes are used.  *out (kt_uki_free) points into
 * buf.  Errors: -ELIBBAD/-EBADMSG (not a well-formed PE), -ENOMEM, -ENOPKG.
 * A PE without .linux opens; kt_uki_flags says KT_UKI_NO_LINUX. */
KT_API int kt_uki_open_buf(const uint8_t *buf, size_t len, struct kt_uki **out,
                           struct kt_error *err);
KT_API void kt_uki_free(struct kt_uki *u);
/* Is buf a PE image systemd 252's stub would find a kernel in (.linux),
 * that is a UKI?  Cheap: no digest is taken. */
KT_API bool kt_uki_detect(const uint8_t *buf, size_t len);
/* kt_uki_detect on the file at path (false: not one, or unreadable). */
KT_API bool kt_uki_detect_file(const char *path);

KT_API unsigned kt_uki_flags(const struct kt_uki *u);
KT_API size_t kt_uki_section_count(const struct kt_uki *u);
/* The i-th PE section, in header order (NULL past the end). */
KT_API const struct kt_uki_section *kt_uki_section_at(const struct kt_uki *u, size_t i);
KT_API const char *kt_uki_role_name(enum kt_uki_role r); /* "measured", "pcrsig", ... */

/* The bytes of the section the stub takes for canonical name (".linux",
 * ".pcrsig" ...): 0, or -ENOENT when there is none.  Only the raw bytes
 * (a zero-filled tail beyond SizeOfRawData is not included). */
KT_API int kt_uki_get(const struct kt_uki *u, const char *canonical, const uint8_t **p,
                      size_t *len);

/* The value of KEY in .osrel (os-release syntax: quotes and backslash
 * escapes removed) into buf; 0, -ENOENT (no such key or no .osrel). */
KT_API int kt_uki_osrel(const struct kt_uki *u, const char *key, char *buf, size_t cap);
/* The kernel release in .uname, or the stub's version in .sdmagic
 * ("systemd-stub 252.39-1~deb12u2"); 0 or -ENOENT. */
KT_API int kt_uki_uname(const struct kt_uki *u, char *buf, size_t cap);
KT_API int kt_uki_stub_version(const struct kt_uki *u, char *buf, size_t cap);

/* A UKI's verdict given its Authenticode verdict (kt_verify_buf): the
 * worse of it and the stub's own refusal (no .linux: -ELIBBAD, err says
 * why).  The other kt_uki_flags findings boot and change nothing. */
KT_API int kt_uki_verdict(const struct kt_uki *u, int verdict, struct kt_error *err);

/* The boot phases of PCR 11: 0 "stub" (the stub's measurements only), then
 * what systemd-pcrphase extends: "enter-initrd", "leave-initrd", "sysinit",
 * "ready". */
#define KT_UKI_PHASES 5
KT_API const char *kt_uki_phase_name(size_t phase);
/* PCR 11 in bank ("sha1", "sha256", "sha384", "sha512") after phase, from
 * all zeros: each measured section's name with its NUL, then its contents,
 * in canonical order.  out holds 64 bytes; *len receives the digest size.
 * Errors: -EINVAL (unknown bank or phase), -ENOPKG, -ENOMEM. */
KT_API int kt_uki_pcr11(const struct kt_uki *u, const char *bank, size_t phase, uint8_t *out,
                        size_t *len);

/* The k-th measurement the stub extends into PCR 11 (k from 0: the first
 * measured section's name, then its contents, then the next section's ...),
 * in bank: out (64 bytes), *len, *section (the canonical name), *contents
 * (false: the name with its NUL).  0, -ENOENT past the last, -EINVAL (an
 * unknown bank), -ENOPKG, -ENOMEM.  A systemd.pcrlock(5) record each. */
KT_API int kt_uki_measurement(const struct kt_uki *u, size_t k, const char *bank, uint8_t *out,
                              size_t *len, const char **section, bool *contents);

/* ---- .pcrsig: the signed PCR 11 policy --------------------------------- */

enum kt_pcrsig_status {
    KT_PCRSIG_VALID = 0, /* PCR 11 at enter-initrd is signed by .pcrpkey */
    KT_PCRSIG_ABSENT,    /* no .pcrsig section */
    KT_PCRSIG_MISMATCH,  /* well-formed, but no valid entry for this UKI's
                          * enter-initrd PCR 11 (sections changed since) */
    KT_PCRSIG_INVALID,   /* malformed JSON, no or bad .pcrpkey, or an entry
                          * for this PCR 11 whose signature does not verify */
};

struct kt_uki_pcrsig {
    enum kt_pcrsig_status status;
    size_t entries;                  /* the bank's entries */
    size_t other_key;                /* of them, with a pkfp not .pcrpkey's */
    bool signed_phase[KT_UKI_PHASES]; /* a valid entry for PCR 11 after that phase */
    uint8_t pkfp[32];                /* .pcrpkey's fingerprint (SHA-256 of the key) */
    bool have_pkfp;
    char why[200];                   /* what is wrong ("" when valid) */
};

/* Check .pcrsig as systemd's tpm2-pubkey unlock uses it: for each phase,
 * the PolicyPCR digest (TPM2_PolicyPCR over PCR 11 in bank) of this UKI's
 * PCR 11; an entry of .pcrsig's bank array with pcrs [11], the pkfp of
 * .pcrpkey (SHA-256 of the key's PKCS#1/point encoding, as systemd-measure
 * writes it), that digest as pol, and sig a signature over pol by
 * .pcrpkey in the bank's hash.  Returns 0 (r filled, r->status), -EINVAL
 * (unknown bank), -ENOMEM. */
KT_API int kt_uki_pcrsig_check(const struct kt_uki *u, const char *bank, struct kt_uki_pcrsig *r);
KT_API const char *kt_pcrsig_status_name(enum kt_pcrsig_status s); /* "valid", "absent", ... */

/* .pcrsig checked in every bank it holds, as systemd-measure sign writes one
 * array per --bank (sha1, sha256, sha384, sha512), and in each bank of want
 * (n_want names, may be 0: the banks sealed keys use) it does not hold. */
#define KT_UKI_PCRSIG_BANKS 4
struct kt_uki_pcrsig_banks {
    size_t n;                                /* banks checked, in sha1..sha512 order */
    const char *bank[KT_UKI_PCRSIG_BANKS];   /* "sha1", ... (static strings) */
    bool present[KT_UKI_PCRSIG_BANKS];       /* .pcrsig holds this bank's array */
    struct kt_uki_pcrsig r[KT_UKI_PCRSIG_BANKS]; /* kt_uki_pcrsig_check's answer */
};
/* 0 (*out filled; n is 0 when .pcrsig holds no known bank and want none),
 * -ENOMEM. */
KT_API int kt_uki_pcrsig_check_banks(const struct kt_uki *u, const char *const *want,
                                     size_t n_want, struct kt_uki_pcrsig_banks *out);

#ifdef __cplusplus
}
#endif

#endif
