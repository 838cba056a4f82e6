/* json.h - a minimal streaming JSON writer for the CLI's --json output. */
#ifndef KT_CLI_JSON_H
#define KT_CLI_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct jw {
    FILE *f;
    int depth;
    bool need_comma[64];
};

void jw_init(struct jw *w, FILE *f);
/* key may be NULL inside arrays and at top level */
void jw_obj(struct jw *w, const char *key);
void jw_obj_end(struct jw *w);
void jw_arr(struct jw *w, const char *key);
void jw_arr_end(struct jw *w);
void jw_str(struct jw *w, const char *key, const char *val); /* NULL -> null */
void jw_strn(struct jw *w, const char *key, const char *val, size_t n);
void jw_int(struct jw *w, const char *key, long long v);
/* a number with `decimals` digits after the point */
void jw_num(struct jw *w, const char *key, double v, int decimals);
void jw_bool(struct jw *w, const char *key, bool v);
void jw_null(struct jw *w, const char *key);
void jw_hex(struct jw *w, const char *key, const uint8_t *p, size_t n); /* n==0 -> null */
void jw_time(struct jw *w, const char *key, int64_t t);                 /* ISO 8601 UTC */
/* end of one NDJSON record */
void jw_newline(struct jw *w);
/* How many top-level objects were written to stdout so far. */
extern unsigned long cli_json_objects;

/* ISO 8601 UTC into buf (>= 32 bytes). */
char *cli_iso_time(int64_t t, char *buf, size_t cap);

#endif
