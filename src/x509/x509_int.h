/* x509_int.h - helpers shared by the x509 sources (not a public API). */
#ifndef KT_X509_X509_INT_H
#define KT_X509_X509_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "der/der.h"

/* A growable NUL-terminated string; `oom` sticks once an allocation failed. */
struct kt_sb {
    char *s;
    size_t len, cap;
    bool oom;
};
void kt_sb_putn(struct kt_sb *b, const void *p, size_t n);
void kt_sb_puts(struct kt_sb *b, const char *s);
void kt_sb_putc(struct kt_sb *b, char c);
/* Take the string (caller frees); NULL when an allocation failed. */
char *kt_sb_take(struct kt_sb *b);

/* Append a directory string (its universal tag and content) as UTF-8:
 * UTF8String (invalid sequences become U+FFFD), Printable/IA5/Numeric/
 * Visible (ASCII, high bytes as Latin-1), T61/Teletex (Latin-1), BMPString
 * (UTF-16BE), UniversalString (UCS-4BE).  Other tags: "#" + hex of the TLV
 * content.  Control characters are written as \XX. Never fails on content. */
void kt_x509_string_utf8(struct kt_sb *b, uint32_t tag, kt_span content);

/* What a Name parse yields. */
struct kt_x509_name {
    char *text;                  /* "CN=..., O=..." */
    kt_span cn, o, email;        /* raw value contents of the last CN/O/emailAddress */
    uint32_t cn_tag, o_tag, email_tag;
};
/* Parse a Name (the whole TLV in `name`, base for offsets in `d`). */
int kt_x509_name_parse(kt_der *name_content, struct kt_x509_name *out);

#endif
