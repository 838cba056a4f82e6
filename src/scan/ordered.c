/* ordered.c - results handed on in walk order (see ordered.h). */
#include "scan/ordered.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct kt_ordered_slot {
    struct kt_ordered_item it;
    bool done;
};

void kt_ordered_init(struct kt_ordered *o, void (*emit)(void *, const struct kt_ordered_item *),
                     void *ctx)
{
    memset(o, 0, sizeof(*o));
    o->emit = emit;
    o->ctx = ctx;
}

static void emit(struct kt_ordered *o, const struct kt_ordered_item *it)
{
    o->emit(o->ctx, it);
    free(it->buf);
}

static int grow(struct kt_ordered *o, size_t need)
{
    size_t nc = o->cap ? o->cap : 64;
    while (nc < need)
        nc *= 2;
    struct kt_ordered_slot *ns = calloc(nc, sizeof(*ns));
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

int kt_ordered_put(struct kt_ordered *o, uint64_t seq, const struct kt_ordered_item *it)
{
    if (seq < o->next) { /* cannot happen: sequence numbers are unique */
        emit(o, it);
        return 0;
    }
    if (seq - o->next >= o->cap && grow(o, (size_t)(seq - o->next) + 1) < 0) {
        emit(o, it);
        return -ENOMEM;
    }
    o->slots[seq % o->cap] = (struct kt_ordered_slot){*it, true};
    while (o->cap && o->slots[o->next % o->cap].done) {
        struct kt_ordered_slot *s = &o->slots[o->next % o->cap];
        struct kt_ordered_item cur = s->it;
        *s = (struct kt_ordered_slot){0};
        o->next++;
        emit(o, &cur);
    }
    return 0;
}

void kt_ordered_finish(struct kt_ordered *o, bool drop)
{
    for (size_t i = 0; i < o->cap; i++) {
        struct kt_ordered_slot *s = &o->slots[(o->next + i) % o->cap];
        if (s->done && !drop)
            emit(o, &s->it);
        else if (s->done)
            free(s->it.buf);
    }
    free(o->slots);
    o->slots = NULL;
    o->cap = 0;
}
