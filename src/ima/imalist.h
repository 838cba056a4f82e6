/* imalist.h - the IMA measurement list (public API: ktrust/imalist.h).
 * Files: imalist_read.c (the reader), imalist.c (the binary form, the
 * templates' fields),
 * imalist_ascii.c (the ASCII form, turned back into template data),
 * imalist_replay.c (the PCRs replayed in every bank, the boot_aggregate). */
#ifndef KT_IMA_IMALIST_H
#define KT_IMA_IMALIST_H

#include "crypto/crypto.h"
#include "ktrust/imalist.h"
#include "util/err.h"
#include "util/le.h"

/* The reader: one entry at a time, in place. */
struct kt_ima_reader {
    kt_le c;              /* the whole list; consumed entry by entry */
    enum kt_ima_format fmt;
    size_t digest_size;   /* of the listed template digests */
    size_t index;
    uint8_t *scratch;     /* an ASCII entry's template data, the 'ima' template's
                           * hashed form */
    size_t cap;
    uint8_t digest[KT_EVLOG_MAX_DIGEST]; /* an ASCII entry's template digest */
};

/* Start reading buf (o->format, or detected when o->detect).  0, -EBADMSG
 * (neither form), -ENOPKG (an unknown digest bank). */
int kt_ima_reader_init(struct kt_ima_reader *r, const uint8_t *buf, size_t len,
                       const struct kt_ima_opts *o, struct kt_error *err);
/* The next entry: 1, 0 at the end, or -EBADMSG / -E2BIG / -ENOMEM. */
int kt_ima_reader_next(struct kt_ima_reader *r, struct kt_ima_entry *e, struct kt_error *err);
void kt_ima_reader_free(struct kt_ima_reader *r);

/* Room for n bytes in the reader's scratch buffer: 0 or -ENOMEM. */
int kt_ima_scratch(struct kt_ima_reader *r, size_t n);
/* The template kind of a name (KT_IMA_TPL_OTHER when unknown). */
enum kt_ima_template kt_ima_template_kind(const char *name);
/* Decode the fields of a known template's data (not 'ima') into e; data
 * starts at absolute offset off.  0 or -EBADMSG. */
int kt_ima_fields_decode(struct kt_ima_entry *e, const uint8_t *base, size_t off,
                         struct kt_error *err);
/* The 'ima' template's hashed form (d || n padded to 256 bytes) into the
 * scratch buffer; e->data points at it.  0 or -ENOMEM. */
int kt_ima_legacy_data(struct kt_ima_reader *r, struct kt_ima_entry *e);
/* Field kinds of a known template, for the ASCII form: *n fields. */
enum kt_ima_field { KT_IMA_F_D = 0, KT_IMA_F_DNG, KT_IMA_F_STR, KT_IMA_F_HEX };
const enum kt_ima_field *kt_ima_template_fields(enum kt_ima_template t, size_t *n);
/* One binary entry into e (r->c.err set). */
int kt_ima_binary_next(struct kt_ima_reader *r, struct kt_ima_entry *e);
/* One ASCII line into e (the template data rebuilt in r's scratch). */
int kt_ima_ascii_next(struct kt_ima_reader *r, struct kt_ima_entry *e, struct kt_error *err);

#endif
