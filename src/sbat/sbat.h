/* sbat.h - shim's SBAT (Secure Boot Advanced Targeting): an image's `.sbat`
 * CSV, SbatLevel payloads and the revocation rule, as shim applies them
 * (rhboot/shim sbat.c, csv.c, pe.c; REFERENCE.md "Revocation").
 *
 *   kt_sbat_parse()        a `.sbat` payload: six non-empty columns a record
 *   kt_sbat_from_pe()      find an image's `.sbat` with shim's section rules
 *   kt_sbat_level_parse()  an SbatLevel payload (text, or an efivarfs dump)
 *   kt_sbat_level_spec()   --sbat-level SPEC (file, original/automatic/latest,
 *                          shim:FILE[:latest|:automatic])
 *   kt_sbat_check()        is the image revoked by the level?
 *
 * Image entries point into the caller's buffer; a level owns a copy of its
 * text.  Nothing here executes or trusts the image.
 */
#ifndef KT_SBAT_SBAT_H
#define KT_SBAT_SBAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "der/der.h"
#include "ktrust/sbat.h"
#include "pe/pe.h"
#include "util/err.h"

/* The columns (enum kt_sbat_column) and the public handles: ktrust/sbat.h.
 * The structs below are those handles' definitions. */

struct kt_sbat_entry {
    kt_span col[KT_SBAT_NCOLS]; /* image: all six; level: component, generation
                                 * and (on the first line) the date stamp in
                                 * col[2]; unused columns have len 0 */
    size_t ncols;               /* columns kept (extra ones are dropped) */
    uint16_t generation;        /* col[1] as shim reads it: atoi into 16 bits */
    size_t offset;              /* of the record, absolute (base + position) */
};

struct kt_sbat {
    struct kt_sbat_entry *entries; /* owned array; spans into the caller's buffer */
    size_t n;
    size_t offset;                 /* file offset of the section data (or 0) */
    bool present;                  /* the image has a usable .sbat section */
};

/* Parse a `.sbat` payload (buf/len, base = its offset in the file for error
 * offsets) as shim's csv.c and parse_sbat_section do: a UTF-8 BOM at the
 * start is skipped; a record ends at CR, LF or NUL (runs of them make no
 * records, and parsing goes on after a NUL); a record is split on commas
 * and only its first six columns are read (whatever follows the sixth is
 * never looked at); fewer than six, or an empty one among the six, is
 * -EBADMSG; no records is fine.  Generations: kt_sbat_atoi16.
 * out->entries is malloc'd (kt_sbat_free).  Errors: -EBADMSG, -ENOMEM. */
int kt_sbat_parse(const uint8_t *buf, size_t len, size_t base, struct kt_sbat *out,
                  struct kt_error *err);
void kt_sbat_free(struct kt_sbat *s);

/* The `.sbat` of a parsed image as shim's verify_buffer_sbat finds it: a
 * section named exactly ".sbat" in its 8-byte header name; one whose
 * SizeOfRawData is 0 or below its VirtualSize is ignored and does not count;
 * a .sbat after one that counted, or one with relocations, is -ELIBBAD;
 * the payload is SizeOfRawData bytes at PointerToRawData, parsed by
 * kt_sbat_parse.  None that counts: out->present false, like a missing one.
 * Errors: -ELIBBAD, -EBADMSG, -ENOMEM. */
int kt_sbat_from_pe(const struct kt_pe *pe, struct kt_sbat *out, struct kt_error *err);

/* shim's atoi on a column (AsciiStrDecimalToUintn): spaces and tabs first
 * skipped, then decimal digits to the first other byte (" 5" and "5x" are 5,
 * "x" is 0), kept modulo 65536 (shim stores generations in 16 bits). */
uint16_t kt_sbat_atoi16(kt_span s);

struct kt_sbat_level {
    struct kt_sbat_entry *entries; /* owned; spans into `text` */
    size_t n;
    char stamp[24];                /* the date stamp of the first line ("2025021800"),
                                    * or "" when the first line has none */
    uint8_t *text;                 /* owned copy of the input as given, NUL after it:
                                    * an efivarfs dump keeps its attribute word, so
                                    * parsing text/text_len again gives the same level */
    size_t text_len;
    size_t payload_off;            /* the payload: text + payload_off (4 for a dump) */
    bool has_attributes;           /* the input was an efivarfs dump */
    uint32_t attributes;           /* its attribute word */
    char source[64];               /* "automatic (built in)", "file", "shim .sbatlevel latest" ... */
};

/* The EFI variable attribute bits an SbatLevel dump can carry. */
#define KT_SBAT_ATTR_NV 0x01u
#define KT_SBAT_ATTR_BS 0x02u
#define KT_SBAT_ATTR_RT 0x04u
#define KT_SBAT_ATTR_TIME_AUTH 0x20u

/* Parse an SbatLevel payload: `sbat,1,STAMP` then `component,generation`
 * lines, split as kt_sbat_parse splits (CR, LF and NUL end records; two
 * columns at least, only the first three read, an empty one among them
 * refused).  An efivarfs dump is recognised by its attribute word: a
 * little-endian u32 whose only bits are NV, BS, RT and TIME_BASED_AUTH, BS
 * among them (SbatLevel 0x03 or 0x23, its SbatLevelRT mirror 0x06, a devel
 * shim's 0x07); no text payload starts with such a word (its bytes 1-3 are
 * NUL).  An empty payload is an empty level (revokes nothing).
 * Errors: -EBADMSG (with the offset), -ENOMEM. */
int kt_sbat_level_parse(const uint8_t *buf, size_t len, struct kt_sbat_level *out,
                        struct kt_error *err);
void kt_sbat_level_free(struct kt_sbat_level *l);

/* kt_sbat_builtin (the payloads upstream shim 16.x carries, from
 * SbatLevel_Variable.txt: "original" 2021030218, "automatic" 2024040900,
 * "latest" 2025051000): ktrust/sbat.h. */

/* A shim's `.sbatlevel` section: u32 version (0), u32 automatic offset,
 * u32 latest offset (both from byte 4), each to a NUL-terminated payload.
 * which: "automatic" or "latest".  *text and *len point into the section.
 * Errors: -EBADMSG (no .sbatlevel, bad version, offset outside the
 * section, no NUL), -EINVAL (bad `which`). */
int kt_sbat_level_from_shim(const struct kt_pe *pe, const char *which, const uint8_t **text,
                            size_t *len, struct kt_error *err);

/* --sbat-level SPEC: "original" | "automatic" | "latest" (built in),
 * "shim:FILE[:latest|:automatic]" (that shim's .sbatlevel; automatic by
 * default), else a file: a text payload or an efivarfs SbatLevel dump.
 * Errors: the file's (-ENOENT, -EACCES ...: detail names it), -ELIBBAD (the
 * shim is no PE), -EBADMSG (no .sbatlevel; a bad payload). */
int kt_sbat_level_spec(const char *spec, struct kt_sbat_level *out, struct kt_error *err);

/* Revocation: each image entry against the first level entry of the same
 * component name; revoked when the image's generation is lower (both as
 * shim's 16-bit atoi).  Returns 0 (passes) or -EKEYREJECTED with *img and *lvl
 * set to the deciding entries and err's detail "revoked by SBAT: grub 4 < 5
 * (level 2025021800)".  An image without .sbat passes here (callers decide
 * whether shim requires one). */
int kt_sbat_check(const struct kt_sbat *image, const struct kt_sbat_level *level,
                  const struct kt_sbat_entry **img, const struct kt_sbat_entry **lvl,
                  struct kt_error *err);

/* shim's preserve_sbat_uefi_variable: does shim keep the SbatLevel variable
 * `current` rather than write its candidate payload `cand` (NUL-terminated)?
 * The variable must have the attributes shim accepts (NV|BS 0x03 or
 * NV|BS|TIME_BASED_AUTH 0x23; a text payload or the SbatLevelRT mirror,
 * which do not show SbatLevel's own, are taken as shim wrote them), be at
 * least as long as "sbat,1,2021030218\n" and start with "sbat,"; then it is
 * kept when its version column (the 2nd) is longer, or as long and greater
 * byte-wise, than the candidate's, or when the first ten bytes of its date
 * stamp column (the 3rd) compare byte-wise (strncmp) not below the
 * candidate's.  why (one phrase) says which other rule decided, or is ""
 * when the date stamp did. */
bool kt_sbat_level_preserve(const struct kt_sbat_level *current, const char *cand, char *why,
                            size_t why_cap);

/* kt_sbat_fold, kt_sbat_col, and the handle API over these structs
 * (kt_sbat_open_image, accessors, kt_sbat_check_level): ktrust/sbat.h. */

#endif
