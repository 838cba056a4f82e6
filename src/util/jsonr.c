/* jsonr.c - a small JSON reader. */
#include <stdlib.h>
#include <string.h>

#include "util/jsonr.h"

struct rd {
    const char *p, *base, *end;
    struct kt_error *err;
};

static int bad(struct rd *r, const char *what)
{
    return kt_fail(r->err, -EBADMSG, (size_t)(r->p - r->base), "JSON: %s", what);
}

static void ws(struct rd *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static int hex4(struct rd *r, unsigned *v)
{
    if (r->end - r->p < 4)
        return bad(r, "short \\u escape");
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = r->p[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
        if (d == 16)
            return bad(r, "bad \\u escape");
        *v = *v << 4 | d;
    }
    r->p += 4;
    return 0;
}

static size_t utf8(char *o, unsigned cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xc0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12); o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f)); return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18); o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3f)); o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

static int string(struct rd *r, char **out)
{
    r->p++; /* the quote */
    const char *s = r->p;
    while (r->p < r->end && *r->p != '"') {
        if (*r->p == '\\' && r->end - r->p > 1)
            r->p++; /* the escaped character (a lone trailing backslash ends the input) */
        r->p++;
    }
    if (r->p >= r->end)
        return bad(r, "unterminated string");
    char *o = malloc((size_t)(r->p - s) + 1), *w = o;
    if (!o)
        return -ENOMEM;
    const char *stop = r->p;
    r->p = s;
    while (r->p < stop) {
        char c = *r->p++;
        if ((unsigned char)c < 0x20) {
            free(o);
            return bad(r, "control character in a string");
        }
        if (c != '\\') {
            *w++ = c;
            continue;
        }
        c = *r->p++;
        unsigned cp, lo;
        switch (c) {
        case '"': *w++ = '"'; break;
        case '\\': *w++ = '\\'; break;
        case '/': *w++ = '/'; break;
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 't': *w++ = '\t'; break;
        case 'u':
            if (hex4(r, &cp) < 0) {
                free(o);
                return -EBADMSG;
            }
            if (cp >= 0xd800 && cp < 0xdc00 && stop - r->p >= 6 && r->p[0] == '\\' &&
                r->p[1] == 'u') {
                r->p += 2;
                if (hex4(r, &lo) < 0) {
                    free(o);
                    return -EBADMSG;
                }
                cp = lo >= 0xdc00 && lo < 0xe000 ? 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00)
                                                 : 0xfffd;
            } else if (cp >= 0xd800 && cp < 0xe000) {
                cp = 0xfffd;
            }
            w += utf8(w, cp); /* at most 4 bytes for the 6+ escape bytes read */
            break;
        default: free(o); return bad(r, "bad escape");
        }
    }
    *w = '\0';
    r->p = stop + 1;
    *out = o;
    return 0;
}

static int value(struct rd *r, struct kt_json *j, int depth);

static int push(struct kt_json *parent, struct kt_json **slot)
{
    struct kt_json *k = realloc(parent->kids, (parent->n + 1) * sizeof(*k));
    if (!k)
        return -ENOMEM;
    parent->kids = k;
    *slot = &k[parent->n++];
    memset(*slot, 0, sizeof(**slot));
    return 0;
}

static int container(struct rd *r, struct kt_json *j, int depth, char close)
{
    r->p++;
    ws(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return 0;
    }
    for (;;) {
        struct kt_json *k;
        char *key = NULL;
        ws(r);
        if (close == '}') {
            if (r->p >= r->end || *r->p != '"')
                return bad(r, "object member name expected");
            KT_TRY(string(r, &key));
            ws(r);
            if (r->p >= r->end || *r->p != ':') {
                free(key);
                return bad(r, "':' expected");
            }
            r->p++;
        }
        if (push(j, &k) < 0) {
            free(key);
            return -ENOMEM;
        }
        k->key = key;
        KT_TRY(value(r, k, depth + 1));
        ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            return 0;
        }
        return bad(r, close == '}' ? "',' or '}' expected" : "',' or ']' expected");
    }
}

static int literal(struct rd *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n))
        return bad(r, "unexpected character");
    r->p += n;
    return 0;
}

static int value(struct rd *r, struct kt_json *j, int depth)
{
    if (depth > 64)
        return bad(r, "nested too deeply");
    ws(r);
    if (r->p >= r->end)
        return bad(r, "value expected");
    char c = *r->p;
    if (c == '{') {
        j->type = KT_JSON_OBJ;
        return container(r, j, depth, '}');
    }
    if (c == '[') {
        j->type = KT_JSON_ARR;
        return container(r, j, depth, ']');
    }
    if (c == '"') {
        j->type = KT_JSON_STR;
        return string(r, &j->str);
    }
    if (c == 't' || c == 'f') {
        j->type = KT_JSON_BOOL;
        KT_TRY(literal(r, c == 't' ? "true" : "false"));
        j->str = strdup(c == 't' ? "true" : "false");
        return j->str ? 0 : -ENOMEM;
    }
    if (c == 'n') {
        j->type = KT_JSON_NULL;
        return literal(r, "null");
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        const char *s = r->p;
        while (r->p < r->end && strchr("+-0123456789.eE", *r->p))
            r->p++;
        j->type = KT_JSON_NUM;
        j->str = strndup(s, (size_t)(r->p - s));
        return j->str ? 0 : -ENOMEM;
    }
    return bad(r, "unexpected character");
}

static void free_kids(struct kt_json *j)
{
    for (size_t i = 0; i < j->n; i++) {
        free_kids(&j->kids[i]);
        free(j->kids[i].key);
        free(j->kids[i].str);
    }
    free(j->kids);
}

void kt_json_free(struct kt_json *j)
{
    if (!j)
        return;
    free_kids(j);
    free(j->str);
    free(j);
}

int kt_json_parse(const char *buf, size_t len, struct kt_json **out, struct kt_error *err)
{
    struct rd r = {buf, buf, buf + len, err};
    struct kt_json *j = calloc(1, sizeof(*j));
    if (!j)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
        r.p += 3;
    int rc = value(&r, j, 0);
    if (rc == 0) {
        ws(&r);
        if (r.p != r.end)
            rc = bad(&r, "data after the document");
    }
    if (rc < 0) {
        kt_json_free(j);
        return rc == -ENOMEM ? kt_fail(err, rc, KT_NO_OFFSET, "out of memory") : rc;
    }
    *out = j;
    return 0;
}

const struct kt_json *kt_json_get(const struct kt_json *obj, const char *key)
{
    if (!obj || obj->type != KT_JSON_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (obj->kids[i].key && !strcmp(obj->kids[i].key, key))
            return &obj->kids[i];
    return NULL;
}

const char *kt_json_str(const struct kt_json *obj, const char *key)
{
    const struct kt_json *v = kt_json_get(obj, key);
    return v && v->type == KT_JSON_STR ? v->str : NULL;
}
