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
 * offsets) with shim's rules: split on commas only, records end at '\n'
 * (a '\r' before it is dropped), a UTF-8 BOM is skipped, empty lines are
 * skipped, parsing stops at the first NUL; fewer than six columns or an
 * empty column is -EBADMSG; extra columns are dropped; no records is fine.
 * out->entries is malloc'd (kt_sbat_free).  Errors: -EBADMSG, -ENOMEM. */
int kt_sbat_parse(const uint8_t *buf, size_t len, size_t base, struct kt_sbat *out,
                  struct kt_error *err);
void kt_sbat_free(struct kt_sbat *s);

/* The `.sbat` of a parsed image as shim reads it: the section named exactly
 * ".sbat" in its 8-byte header name; two of them, or one with relocations,
 * is -ELIBBAD; one whose SizeOfRawData is 0 or below its VirtualSize is
 * ignored (out->present false, like a missing one); else the payload is
 * SizeOfRawData bytes at PointerToRawData, parsed by kt_sbat_parse.
 * Errors: -ELIBBAD, -EBADMSG, -ENOMEM. */
int kt_sbat_from_pe(const struct kt_pe *pe, struct kt_sbat *out, struct kt_error *err);

/* shim's atoi on a column: leading decimal digits, stopping at anything else,
 * kept modulo 65536 (shim stores generations in 16 bits). */
uint16_t kt_sbat_atoi16(kt_span s);

struct kt_sbat_level {
    struct kt_sbat_entry *entries; /* owned; spans into `text` */
    size_t n;
    char stamp[24];                /* the date stamp of the first line ("2025021800"),
                                    * or "" when the first line has none */
    uint8_t *text;                 /* owned copy of the payload */
    size_t text_len;
    char source[64];               /* "automatic (built in)", "file", "shim .sbatlevel latest" ... */
};

/* Parse an SbatLevel payload: `sbat,1,STAMP` then `component,generation`
 * lines (two columns at least, three kept, empty columns refused); an
 * efivarfs dump (4-byte attribute word in front) is recognised when the text
 * does not start with a letter and does at byte 4.  Parsing stops at the
 * first NUL.  An empty payload is an empty level (revokes nothing).
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

/* kt_sbat_fold, kt_sbat_col, and the handle API over these structs
 * (kt_sbat_open_image, accessors, kt_sbat_check_level): ktrust/sbat.h. */

#endif
