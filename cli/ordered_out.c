/* ordered_out.c - results printed in walk order (see ordered_out.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ordered_out.h"

struct oo_slot {
    char *buf;
    size_t n;
    bool done;
};

void oo_init(struct ordered_out *o, FILE *f, void (*before_write)(void *), void *ctx)
{
    memset(o, 0, sizeof(*o));
    o->f = f;
    o->before_write = before_write;
    o->ctx = ctx;
}

static void emit(struct ordered_out *o, char *buf, size_t n)
{
    if (n) {
        if (o->before_write)
            o->before_write(o->ctx);
        fwrite(buf, 1, n, o->f);
        fflush(o->f); /* whole lines only: an interrupt never cuts one */
    }
    free(buf);
}

static int grow(struct ordered_out *o, size_t need)
{
    size_t nc = o->cap ? o->cap : 64;
    while (nc < need)
        nc *= 2;
    struct oo_slot *ns = calloc(nc, sizeof(*ns));
    if (!ns)
        return -ENOMEM;
    for (size_t i = 0; i < o->cap; i++) {
        uint64_t seq = o->next + i;
        ns[seq % nc] = o->slots[seq % o->cap];
    }
    free(o->slots);
    o->slots = ns;
    o->cap = nc;
    return 0;
}

int oo_put(struct ordered_out *o, uint64_t seq, char *buf, size_t n)
{
    if (seq < o->next) { /* cannot happen: sequence numbers are unique */
        emit(o, buf, n);
        return 0;
    }
    if (seq - o->next >= o->cap && grow(o, (size_t)(seq - o->next) + 1) < 0) {
        emit(o, buf, n);
        return -ENOMEM;
    }
    o->slots[seq % o->cap] = (struct oo_slot){buf, n, true};
    while (o->cap && o->slots[o->next % o->cap].done) {
        struct oo_slot *s = &o->slots[o->next % o->cap];
        emit(o, s->buf, s->n);
        *s = (struct oo_slot){0};
        o->next++;
    }
    return 0;
}

void oo_finish(struct ordered_out *o)
{
    for (size_t i = 0; i < o->cap; i++) {
        struct oo_slot *s = &o->slots[(o->next + i) % o->cap];
        if (s->done)
            emit(o, s->buf, s->n);
    }
    free(o->slots);
    o->slots = NULL;
    o->cap = 0;
}
