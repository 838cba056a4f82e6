/* X.509 Names: decoding directory strings to UTF-8 and rendering a Name as
 * "CN=..., O=..." in encoded order. */
#include <stdlib.h>
#include <string.h>

#include "der/oid.h"
#include "x509/x509_int.h"

void kt_sb_putn(struct kt_sb *b, const void *p, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    if (n)
        memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = 0;
}

void kt_sb_puts(struct kt_sb *b, const char *s) { kt_sb_putn(b, s, strlen(s)); }
void kt_sb_putc(struct kt_sb *b, char c) { kt_sb_putn(b, &c, 1); }

char *kt_sb_take(struct kt_sb *b)
{
    if (b->oom) {
        free(b->s);
        b->s = NULL;
    } else if (!b->s) {
        kt_sb_putn(b, "", 0);
        if (b->oom)
            return NULL;
    }
    char *s = b->s;
    memset(b, 0, sizeof(*b));
    return s;
}

/* One code point as UTF-8; controls as \XX, bad code points as U+FFFD. */
static void put_cp(struct kt_sb *b, uint32_t cp)
{
    static const char hx[] = "0123456789ABCDEF";
    char u[4];
    if (cp < 0x20 || cp == 0x7f) {
        char e[3] = {'\\', hx[cp >> 4], hx[cp & 15]};
        kt_sb_putn(b, e, 3);
        return;
    }
    if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        cp = 0xfffd;
    if (cp < 0x80) {
        kt_sb_putc(b, (char)cp);
    } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3f));
        kt_sb_putn(b, u, 2);
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        kt_sb_putn(b, u, 3);
    } else {
        u[0] = (char)(0xf0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (char)(0x80 | (cp & 0x3f));
        kt_sb_putn(b, u, 4);
    }
}

/* Decode one UTF-8 sequence at p (n bytes left); returns its length (>= 1)
 * and the code point (U+FFFD for an invalid sequence, consuming one byte). */
static size_t utf8_next(const uint8_t *p, size_t n, uint32_t *cp)
{
    uint8_t c = p[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xe0) == 0xc0) {
        len = 2, v = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3, v = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        *cp = 0xfffd;
        return 1;
    }
    if (len > n) {
        *cp = 0xfffd;
        return 1;
    }
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) {
            *cp = 0xfffd;
            return 1;
        }
        v = (v << 6) | (p[i] & 0x3f);
    }
    *cp = v < min ? 0xfffd : v;
    return len;
}

void kt_x509_string_utf8(struct kt_sb *b, uint32_t tag, kt_span c)
{
    size_t i = 0;
    switch (tag) {
    case KT_TAG_UTF8_STRING:
        while (i < c.len) {
            uint32_t cp;
            i += utf8_next(c.p + i, c.len - i, &cp);
            put_cp(b, cp);
        }
        return;
    case KT_TAG_PRINTABLE_STRING:
    case KT_TAG_IA5_STRING:
    case KT_TAG_NUMERIC_STRING:
    case KT_TAG_VISIBLE_STRING:
    case KT_TAG_T61_STRING: /* TeletexString: taken as Latin-1, as OpenSSL does */
        for (; i < c.len; i++)
            put_cp(b, c.p[i]);
        return;
    case KT_TAG_BMP_STRING:
        while (i + 1 < c.len) {
            uint32_t u = (uint32_t)c.p[i] << 8 | c.p[i + 1];
            i += 2;
            if (u >= 0xd800 && u <= 0xdbff && i + 1 < c.len) {
                uint32_t l = (uint32_t)c.p[i] << 8 | c.p[i + 1];
                if (l >= 0xdc00 && l <= 0xdfff) {
                    u = 0x10000 + ((u - 0xd800) << 10) + (l - 0xdc00);
                    i += 2;
                }
            }
            put_cp(b, u);
        }
        if (i < c.len)
            put_cp(b, 0xfffd);
        return;
    case KT_TAG_UNIVERSAL_STRING:
        while (i + 3 < c.len) {
            uint32_t u = (uint32_t)c.p[i] << 24 | (uint32_t)c.p[i + 1] << 16 |
                         (uint32_t)c.p[i + 2] << 8 | c.p[i + 3];
            i += 4;
            put_cp(b, u);
        }
        if (i < c.len)
            put_cp(b, 0xfffd);
        return;
    default: {
        static const char hx[] = "0123456789abcdef";
        kt_sb_putc(b, '#');
        for (; i < c.len; i++) {
            char h[2] = {hx[c.p[i] >> 4], hx[c.p[i] & 15]};
            kt_sb_putn(b, h, 2);
        }
    }
    }
}

static bool is_name_oid(enum kt_oid o)
{
    switch (o) {
    case KT_OID_COMMON_NAME:
    case KT_OID_SURNAME:
    case KT_OID_SERIAL_NUMBER:
    case KT_OID_COUNTRY:
    case KT_OID_LOCALITY:
    case KT_OID_STATE:
    case KT_OID_STREET:
    case KT_OID_ORGANIZATION:
    case KT_OID_ORG_UNIT:
    case KT_OID_TITLE:
    case KT_OID_GIVEN_NAME:
    case KT_OID_DN_QUALIFIER:
    case KT_OID_EMAIL_ADDRESS:
    case KT_OID_DOMAIN_COMPONENT:
    case KT_OID_USER_ID: return true;
    default: return false;
    }
}

int kt_x509_name_parse(kt_der *name, struct kt_x509_name *out)
{
    struct kt_sb sb = {0};
    bool first_rdn = true;
    memset(out, 0, sizeof(*out));
    while (!kt_der_empty(name)) {
        kt_der rdn;
        int rc = kt_der_get(name, KT_TAG_SET, &rdn, "Name: RelativeDistinguishedName");
        if (rc == 0 && kt_der_empty(&rdn))
            rc = kt_fail(name->err, -EBADMSG, kt_der_offset(&rdn),
                         "Name: empty RelativeDistinguishedName");
        bool first_atv = true;
        while (rc == 0 && !kt_der_empty(&rdn)) {
            kt_der atv, val;
            enum kt_oid o;
            kt_span oid;
            uint32_t tag;
            rc = kt_der_get(&rdn, KT_TAG_SEQUENCE, &atv, "Name: AttributeTypeAndValue");
            if (rc == 0)
                rc = kt_der_get_oid_id(&atv, &o, &oid, "Name: attribute type");
            if (rc == 0)
                rc = kt_der_get_any(&atv, &tag, &val, NULL);
            if (rc == 0)
                rc = kt_der_expect_end(&atv, "Name: AttributeTypeAndValue");
            if (rc < 0)
                break;
            kt_span v = kt_der_rest(&val);
            if (o == KT_OID_COMMON_NAME)
                out->cn = v, out->cn_tag = tag;
            else if (o == KT_OID_ORGANIZATION)
                out->o = v, out->o_tag = tag;
            else if (o == KT_OID_EMAIL_ADDRESS)
                out->email = v, out->email_tag = tag;
            if (!first_atv)
                kt_sb_puts(&sb, " + ");
            else if (!first_rdn)
                kt_sb_puts(&sb, ", ");
            first_atv = false;
            if (is_name_oid(o)) {
                kt_sb_puts(&sb, kt_oid_name(o));
            } else {
                char dotted[96];
                if (kt_oid_to_dotted(oid, dotted, sizeof(dotted)) < 0)
                    strcpy(dotted, "?");
                kt_sb_puts(&sb, dotted);
            }
            kt_sb_putc(&sb, '=');
            kt_x509_string_utf8(&sb, tag, v);
        }
        if (rc < 0) {
            free(kt_sb_take(&sb));
            return rc;
        }
        first_rdn = false;
    }
    out->text = kt_sb_take(&sb);
    return out->text ? 0 : -ENOMEM;
}
