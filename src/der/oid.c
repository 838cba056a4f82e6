#include "der/oid.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct oid_entry {
    const char *dotted;
    const char *name;
    uint8_t enc[24];
    uint8_t len;
};

static struct oid_entry table[KT_OID__COUNT] = {
    [KT_OID_UNKNOWN] = {"", NULL, {0}, 0},
#define X(id, d, n) [KT_OID_##id] = {d, n, {0}, 0},
#include "der/oid_list.h"
#undef X
};

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Encode a dotted OID (from our own table) into DER content bytes. */
static size_t encode(const char *dotted, uint8_t *out, size_t cap)
{
    unsigned long long arcs[32];
    size_t n = 0;
    const char *s = dotted;
    while (*s && n < 32) {
        char *end;
        arcs[n++] = strtoull(s, &end, 10);
        s = *end == '.' ? end + 1 : end;
    }
    size_t w = 0;
    for (size_t i = 1; i < n; i++) {
        unsigned long long v = i == 1 ? arcs[0] * 40 + arcs[1] : arcs[i];
        uint8_t tmp[10];
        size_t k = 0;
        do {
            tmp[k++] = (uint8_t)(v & 0x7f);
            v >>= 7;
        } while (v);
        if (w + k > cap)
            abort(); /* table entry too long: a bug in oid_list.h */
        while (k--)
            out[w++] = (uint8_t)(tmp[k] | (k ? 0x80 : 0));
    }
    return w;
}

static void build(void)
{
    for (int i = 1; i < KT_OID__COUNT; i++)
        table[i].len = (uint8_t)encode(table[i].dotted, table[i].enc, sizeof(table[i].enc));
}

enum kt_oid kt_oid_lookup(kt_span oid)
{
    pthread_once(&once, build);
    for (int i = 1; i < KT_OID__COUNT; i++)
        if (table[i].len == oid.len && memcmp(table[i].enc, oid.p, oid.len) == 0)
            return (enum kt_oid)i;
    return KT_OID_UNKNOWN;
}

const char *kt_oid_name(enum kt_oid id)
{
    return id > 0 && id < KT_OID__COUNT ? table[id].name : NULL;
}

const char *kt_oid_dotted(enum kt_oid id)
{
    return id > 0 && id < KT_OID__COUNT ? table[id].dotted : NULL;
}

kt_span kt_oid_encoding(enum kt_oid id)
{
    pthread_once(&once, build);
    kt_span s = {NULL, 0};
    if (id > 0 && id < KT_OID__COUNT) {
        s.p = table[id].enc;
        s.len = table[id].len;
    }
    return s;
}

int kt_der_get_oid_id(kt_der *d, enum kt_oid *id, kt_span *raw, const char *what)
{
    kt_span o;
    KT_TRY(kt_der_get_oid(d, &o, what));
    if (raw)
        *raw = o;
    *id = kt_oid_lookup(o);
    return 0;
}
