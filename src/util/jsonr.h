/* jsonr.h - a small JSON reader (RFC 8259) for inputs such as Microsoft's
 * dbx_info_msft_latest.json: the whole document as a tree.  Bounded depth
 * (64), strings decoded to UTF-8 (\u escapes and surrogate pairs), numbers
 * kept as their text. */
#ifndef KT_UTIL_JSONR_H
#define KT_UTIL_JSONR_H

#include <stddef.h>

#include "util/err.h"

enum kt_json_type { KT_JSON_NULL, KT_JSON_BOOL, KT_JSON_NUM, KT_JSON_STR, KT_JSON_ARR,
                    KT_JSON_OBJ };

struct kt_json {
    enum kt_json_type type;
    char *key;              /* member name inside an object, else NULL */
    char *str;              /* STR: the decoded string; NUM: its text; BOOL: "true"/"false" */
    struct kt_json *kids;   /* ARR elements / OBJ members, in order */
    size_t n;
};

/* Parse buf.  *out is malloc'd (kt_json_free).  Errors: -EBADMSG with the
 * offset (syntax, depth, bad escape, trailing data), -ENOMEM. */
int kt_json_parse(const char *buf, size_t len, struct kt_json **out, struct kt_error *err);
void kt_json_free(struct kt_json *j);
/* The first member named key of an object, or NULL. */
const struct kt_json *kt_json_get(const struct kt_json *obj, const char *key);
/* A member's string (STR only), or NULL. */
const char *kt_json_str(const struct kt_json *obj, const char *key);

#endif
