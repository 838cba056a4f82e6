/* ktrust/sbat.h - shim's SBAT (Secure Boot Advanced Targeting): the `.sbat`
 * entries of a PE image, SbatLevel payloads, and the revocation rule, read
 * and applied as shim does (rhboot/shim sbat.c, csv.c, pe.c).
 *
 *   kt_sbat_open_image()      an image's .sbat (shim's section rules)
 *   kt_sbat_open_csv()        a bare .sbat payload
 *   kt_sbat_level_open()      a level from a spec (ktrust/verify.h)
 *   kt_sbat_level_open_buf()  a level from an SbatLevel payload or dump
 *   kt_sbat_check_level()     is the image revoked by the level?
 *
 * Entries point into the caller's buffer, which must outlive the handle;
 * a level owns a copy of its text.  Nothing here executes or trusts the
 * image.  Errors as in ktrust/error.h.
 */
#ifndef KTRUST_SBAT_H
#define KTRUST_SBAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The columns of a .sbat record.  A level's entry has the component and the
 * generation (and, on its first line, the date stamp in column 2). */
enum kt_sbat_column {
    KT_SBAT_COMPONENT,
    KT_SBAT_GENERATION,
    KT_SBAT_VENDOR,
    KT_SBAT_PACKAGE,
    KT_SBAT_VERSION,
    KT_SBAT_URL,
    KT_SBAT_NCOLS
};

struct kt_sbat;       /* an image's .sbat entries */
struct kt_sbat_entry; /* one record of an image or a level */
struct kt_sbat_level; /* an SbatLevel (see also ktrust/verify.h) */

/* The .sbat of a PE image as shim reads it: the section named exactly
 * ".sbat"; one whose SizeOfRawData is 0 or below its VirtualSize is ignored
 * and does not count (none that counts: kt_sbat_present false); a .sbat
 * after one that counted, or one with relocations, is -ELIBBAD.  Records
 * end at CR, LF or NUL; the first six comma-separated columns are read and
 * must be non-empty, whatever follows them is not looked at (shim's csv.c
 * rules).  Generations: shim's atoi (spaces and tabs skipped, digits to the
 * first other byte, kept in 16 bits).  *out is the caller's
 * (kt_sbat_close).  Errors: -ELIBBAD (not a PE image; the rules above),
 * -EBADMSG (a malformed record, with its offset), -ENOMEM. */
KT_API int kt_sbat_open_image(const uint8_t *image, size_t len, struct kt_sbat **out,
                              struct kt_error *err);
/* A bare .sbat payload (base: its offset in a file, for error offsets);
 * present is true.  Errors: -EBADMSG, -ENOMEM. */
KT_API int kt_sbat_open_csv(const uint8_t *buf, size_t len, size_t base, struct kt_sbat **out,
                            struct kt_error *err);
KT_API void kt_sbat_close(struct kt_sbat *s);

/* Whether the image has a usable .sbat section; its entries. */
KT_API bool kt_sbat_present(const struct kt_sbat *s);
KT_API size_t kt_sbat_count(const struct kt_sbat *s);
/* Entry i (NULL past the end). */
KT_API const struct kt_sbat_entry *kt_sbat_entry_at(const struct kt_sbat *s, size_t i);

/* Column `col` of an entry: its bytes (not NUL-terminated; *len set) ... */
KT_API const char *kt_sbat_entry_col(const struct kt_sbat_entry *e, enum kt_sbat_column col,
                                     size_t *len);
/* ... or as a NUL-terminated string into buf (truncated to cap); returns buf. */
KT_API char *kt_sbat_col(const struct kt_sbat_entry *e, int col, char *buf, size_t cap);
/* The generation as shim reads it (atoi kept in 16 bits). */
KT_API unsigned kt_sbat_entry_generation(const struct kt_sbat_entry *e);
/* The record's byte offset in the file (an image's), or in the payload. */
KT_API size_t kt_sbat_entry_offset(const struct kt_sbat_entry *e);

/* An SbatLevel payload: `sbat,1,STAMP` then `component,generation` lines
 * (split as .sbat records are; the first three columns read), or an
 * efivarfs dump of SbatLevel or SbatLevelRT, recognised by the value of its
 * 4-byte attribute word (NV, BS, RT and TIME_BASED_AUTH bits only, BS set).
 * `source` says where it came from ("SbatLevelRT", "file" ...; copied,
 * may be NULL).  *out is the caller's (kt_sbat_level_close).  An empty
 * payload is an empty level (revokes nothing).  Errors: -EBADMSG, -ENOMEM. */
KT_API int kt_sbat_level_open_buf(const uint8_t *buf, size_t len, const char *source,
                                  struct kt_sbat_level **out, struct kt_error *err);
/* The payloads upstream shim 16.x carries: "original", "automatic",
 * "latest" (NUL-terminated text), or NULL for another name. */
KT_API const char *kt_sbat_builtin(const char *name);
/* The level's date stamp ("2025021800"; "" when its first line has none),
 * where it came from ("automatic (built in)", "file", "shim .sbatlevel
 * latest" ...), and its entries. */
KT_API const char *kt_sbat_level_stamp(const struct kt_sbat_level *l);
KT_API const char *kt_sbat_level_source(const struct kt_sbat_level *l);
KT_API size_t kt_sbat_level_count(const struct kt_sbat_level *l);
KT_API const struct kt_sbat_entry *kt_sbat_level_entry_at(const struct kt_sbat_level *l,
                                                          size_t i);

/* Revocation: each image entry against the first level entry of the same
 * component; revoked when the image's generation is lower.  Returns 0
 * (passes; an image without .sbat passes here: callers decide whether shim
 * requires one) or -EKEYREJECTED with *img and *lvl (may be NULL) set to
 * the deciding entries and the detail "revoked by SBAT: grub 4 < 5 (level
 * 2025021800)". */
KT_API int kt_sbat_check_level(const struct kt_sbat *image, const struct kt_sbat_level *level,
                               const struct kt_sbat_entry **img,
                               const struct kt_sbat_entry **lvl, struct kt_error *err);

/* An image's verdict with its SBAT outcome folded in: a signature
 * rejection stands; otherwise a revocation (-EKEYREJECTED) or an
 * unreadable .sbat (-EBADMSG / -ELIBBAD: shim refuses the image) replaces
 * it. */
KT_API int kt_sbat_fold(int verdict, int sbat_rc);

/* SbatPolicy (shim's variable, mokutil --set-sbat-policy): which of shim's
 * built-in levels it applies at the next boot. */
enum kt_sbat_policy {
    KT_SBAT_POLICY_DEFAULT = 0, /* no SbatPolicy: automatic in secure mode */
    KT_SBAT_POLICY_LATEST,      /* SbatPolicy 1 */
    KT_SBAT_POLICY_AUTOMATIC,   /* SbatPolicy 2 */
    KT_SBAT_POLICY_RESET,       /* SbatPolicy 3: refused in secure mode */
};

/* "latest", "automatic", "reset" -> policy; -1 for another word. */
KT_API int kt_sbat_policy_parse(const char *s, enum kt_sbat_policy *p);

#ifdef __cplusplus
}
#endif
#endif
