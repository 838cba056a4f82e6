#include "json.h"

#include <string.h>
#include <time.h>

void jw_init(struct jw *w, FILE *f)
{
    w->f = f;
    w->depth = 0;
    w->need_comma[0] = false;
}

/* Length of a valid UTF-8 sequence at p (0 if invalid). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    size_t len = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3
               : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (len == 0 || len > n || (len == 2 && p[0] < 0xc2))
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return len;
}

/* A JSON string.  Valid UTF-8 goes out as is; any other byte (a Latin-1
 * T61String name, raw bytes in a description) as the Latin-1 character of
 * the same value, so the output is always valid JSON. */
static void esc(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t l = utf8_len((const unsigned char *)s + i, n - i);
        if (l > 1) {
            fwrite(s + i, 1, l, f);
            i += l;
            continue;
        }
        i++;
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (c < 0x20 || c >= 0x7f)
                fprintf(f, "\\u%04x", c);
            else
                fputc(c, f);
        }
    }
    fputc('"', f);
}

static void key(struct jw *w, const char *k)
{
    if (w->need_comma[w->depth])
        fputc(',', w->f);
    w->need_comma[w->depth] = true;
    if (k) {
        esc(w->f, k, strlen(k));
        fputc(':', w->f);
    }
}

static void open(struct jw *w, const char *k, char c)
{
    key(w, k);
    fputc(c, w->f);
    if (w->depth < 63)
        w->depth++;
    w->need_comma[w->depth] = false;
}

void jw_obj(struct jw *w, const char *k) { open(w, k, '{'); }
void jw_arr(struct jw *w, const char *k) { open(w, k, '['); }
/* Top-level objects written to stdout: does a failing --json run still
 * owe its caller an object (json_summary.c)? */
unsigned long cli_json_objects;

void jw_obj_end(struct jw *w)
{
    fputc('}', w->f);
    if (w->depth)
        w->depth--;
    if (w->depth == 0 && w->f == stdout)
        cli_json_objects++;
}
void jw_arr_end(struct jw *w) { fputc(']', w->f); if (w->depth) w->depth--; }

void jw_str(struct jw *w, const char *k, const char *v)
{
    if (!v) {
        jw_null(w, k);
        return;
    }
    jw_strn(w, k, v, strlen(v));
}

void jw_strn(struct jw *w, const char *k, const char *v, size_t n)
{
    key(w, k);
    esc(w->f, v, n);
}

void jw_int(struct jw *w, const char *k, long long v)
{
    key(w, k);
    fprintf(w->f, "%lld", v);
}

void jw_num(struct jw *w, const char *k, double v, int decimals)
{
    key(w, k);
    fprintf(w->f, "%.*f", decimals, v);
}

void jw_bool(struct jw *w, const char *k, bool v)
{
    key(w, k);
    fputs(v ? "true" : "false", w->f);
}

void jw_null(struct jw *w, const char *k)
{
    key(w, k);
    fputs("null", w->f);
}

void jw_hex(struct jw *w, const char *k, const uint8_t *p, size_t n)
{
    if (!p || n == 0) {
        jw_null(w, k);
        return;
    }
    key(w, k);
    fputc('"', w->f);
    for (size_t i = 0; i < n; i++)
        fprintf(w->f, "%02x", p[i]);
    fputc('"', w->f);
}

char *cli_iso_time(int64_t t, char *buf, size_t cap)
{
    struct tm tm;
    time_t tt = (time_t)t;
    if (!gmtime_r(&tt, &tm) || !strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, cap, "%lld", (long long)t);
    return buf;
}

void jw_time(struct jw *w, const char *k, int64_t t)
{
    char buf[40];
    jw_str(w, k, cli_iso_time(t, buf, sizeof(buf)));
}

void jw_newline(struct jw *w)
{
    fputc('\n', w->f);
    w->depth = 0;
    w->need_comma[0] = false;
}
