/* sdboot_order.c - systemd-boot 252's menu order (config_entry_compare,
 * strverscmp_improved) and which entry boots next
 * (config_default_entry_select: the one-shot variable, then
 * LoaderEntryDefault or "@saved", then loader.conf's default, each a glob
 * matched by efi_fnmatch against the lower-case ids in menu order, then the
 * first entry). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "sdboot/sdboot.h"

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static bool valid(char c)
{
    return isalnum((unsigned char)c) || c == '~' || c == '-' || c == '^' || c == '.';
}

/* One separator both strings may start with: -1/1 when only one does. */
static int sep(const char **a, const char **b, char c)
{
    if (**a != c && **b != c)
        return 0;
    int r = CMP(**a != c, **b != c);
    if (r)
        return r;
    (*a)++, (*b)++;
    return 0;
}

/* One numeric or alphabetic segment. */
static int segment(const char **a, const char **b)
{
    const char *aa = *a, *bb = *b;
    int r;
    if (isdigit((unsigned char)**a) || isdigit((unsigned char)**b)) {
        while (isdigit((unsigned char)*aa))
            aa++;
        while (isdigit((unsigned char)*bb))
            bb++;
        if ((r = CMP(*a != aa, *b != bb)) != 0)
            return r;
        while (**a == '0')
            (*a)++;
        while (**b == '0')
            (*b)++;
        if ((r = CMP(aa - *a, bb - *b)) != 0)
            return r;
        r = memcmp(*a, *b, (size_t)(aa - *a));
    } else {
        while (isalpha((unsigned char)*aa))
            aa++;
        while (isalpha((unsigned char)*bb))
            bb++;
        size_t la = (size_t)(aa - *a), lb = (size_t)(bb - *b);
        if ((r = memcmp(*a, *b, la < lb ? la : lb)) != 0)
            return r;
        r = CMP(la, lb);
    }
    *a = aa, *b = bb;
    return r;
}

int kt_sdboot_verscmp(const char *a, const char *b)
{
    if (!a || !*a || !b || !*b)
        return CMP(a && *a, b && *b);
    for (;;) {
        int r;
        while (*a && !valid(*a))
            a++;
        while (*b && !valid(*b))
            b++;
        if ((r = sep(&a, &b, '~')) != 0)
            return r;
        if (!*a || !*b)
            return strcmp(a, b);
        if ((r = sep(&a, &b, '-')) != 0 || (r = sep(&a, &b, '^')) != 0 ||
            (r = sep(&a, &b, '.')) != 0)
            return r;
        if ((r = segment(&a, &b)) != 0)
            return r;
    }
}

/* One pattern element at *p ('?', a "[a-z]" set with no negation, a
 * '\' escape, or a character) against c: 1 match, 0 no match, -1 an
 * unclosed set (matches nothing); *next past it. */
static int one(const char *p, char c, const char **next)
{
    if (*p == '?') {
        *next = p + 1;
        return 1;
    }
    if (*p == '[') {
        const char *q = p + 1;
        bool hit = false;
        while (*q && *q != ']') {
            char lo = *q == '\\' && q[1] ? *++q : *q;
            char hi = lo;
            if (q[1] == '-' && q[2] && q[2] != ']') {
                q += 2;
                hi = *q == '\\' && q[1] ? *++q : *q;
            }
            hit |= c >= lo && c <= hi;
            q++;
        }
        if (!*q)
            return -1;
        *next = q + 1;
        return hit;
    }
    if (*p == '\\' && p[1])
        p++;
    *next = p + 1;
    return *p == c;
}

/* efi_fnmatch: '*', '?', "[a-z]" sets, '\' escapes; a '*' backtracks to
 * the last star only (the same matches, without exponential time). */
bool kt_sdboot_fnmatch(const char *p, const char *s)
{
    const char *star = NULL, *resume = NULL;
    for (;;) {
        if (*p == '*') {
            while (*p == '*')
                p++;
            star = p;
            resume = s;
            continue;
        }
        const char *next;
        int m = *s ? (*p ? one(p, *s, &next) : 0) : -2;
        if (m == -2)
            return !*p;
        if (m == 1) {
            p = next;
            s++;
            continue;
        }
        if (m < 0 || !star || !*resume)
            return false;
        p = star;
        s = ++resume;
    }
}

static int null_cmp(const char *a, const char *b)
{
    return !*a || !*b ? CMP(*a != 0, *b != 0) : strcmp(a, b);
}

static int entry_cmp(const struct kt_sdboot_entry *a, const struct kt_sdboot_entry *b)
{
    int r = CMP(a->tries_left == 0, b->tries_left == 0);
    if (r || (r = CMP(!a->sort_key[0], !b->sort_key[0])))
        return r;
    if (a->sort_key[0] && b->sort_key[0] &&
        ((r = strcmp(a->sort_key, b->sort_key)) || (r = null_cmp(a->machine_id, b->machine_id)) ||
         (r = -kt_sdboot_verscmp(a->version, b->version))))
        return r;
    if ((r = -kt_sdboot_verscmp(a->id, b->id)) || a->tries_left < 0 || b->tries_left < 0)
        return r;
    if ((r = -CMP(a->tries_left, b->tries_left)))
        return r;
    return CMP(a->tries_done, b->tries_done);
}

/* Stable: an insertion sort, as systemd's sort_pointer_array. */
void kt_sdboot_sort(struct kt_sdboot *s)
{
    for (size_t i = 1; i < s->n; i++) {
        struct kt_sdboot_entry t = s->e[i];
        size_t j = i;
        for (; j > 0 && entry_cmp(&s->e[j - 1], &t) > 0; j--)
            s->e[j] = s->e[j - 1];
        s->e[j] = t;
    }
}

static long find(const struct kt_sdboot *s, const char *pattern)
{
    for (size_t i = 0; pattern && i < s->n; i++)
        if (kt_sdboot_fnmatch(pattern, s->e[i].id))
            return (long)i;
    return -1;
}

long kt_sdboot_next(const struct kt_sdboot *s, bool one_shot, enum kt_sdboot_rule *rule)
{
    char v[KT_SDBOOT_VARS][KT_SDBOOT_TEXT], conf[KT_SDBOOT_TEXT];
    const char *var[KT_SDBOOT_VARS];
    for (size_t i = 0; i < KT_SDBOOT_VARS; i++) {
        memcpy(v[i], s->var[i], sizeof(v[i]));
        kt_sdboot_lower(v[i]);
        var[i] = s->var_set[i] ? v[i] : NULL;
    }
    memcpy(conf, s->conf.value[0], sizeof(conf));
    kt_sdboot_lower(conf);
    const char *dflt = s->conf.set[0] ? conf : NULL;
    bool saved = dflt && !strcmp(dflt, "@saved");
    bool saved_var = var[0] && !strcmp(var[0], "@saved");
    long i;
    /* a glob cut to ktrust's size matches what the whole one does not */
    if (one_shot && s->var_cut[1])
        return *rule = KT_SDBOOT_BY_UNKNOWN, -1;
    if (one_shot && (i = find(s, var[1])) >= 0)
        return *rule = KT_SDBOOT_BY_ONESHOT, i;
    if (s->var_cut[0] || (saved_var && s->var_cut[2]))
        return *rule = KT_SDBOOT_BY_UNKNOWN, -1;
    if ((i = find(s, saved_var ? var[2] : var[0])) >= 0)
        return *rule = saved_var ? KT_SDBOOT_BY_SAVED : KT_SDBOOT_BY_EFIVAR, i;
    if (dflt && !saved_var && (saved ? s->var_cut[2] : s->conf.cut[0]))
        return *rule = KT_SDBOOT_BY_UNKNOWN, -1;
    i = saved ? (saved_var ? -1 : find(s, var[2])) : find(s, dflt);
    if (i >= 0)
        return *rule = saved ? KT_SDBOOT_BY_SAVED : KT_SDBOOT_BY_CONFIG, i;
    *rule = s->n ? KT_SDBOOT_BY_FIRST : KT_SDBOOT_BY_NONE;
    return s->n ? 0 : -1;
}

const char *kt_sdboot_rule_name(enum kt_sdboot_rule r)
{
    static const char *const names[] = {"oneshot", "efivar", "saved", "config", "first", "none",
                                        "unknown", "given", "only"};
    return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}
