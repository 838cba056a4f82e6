/* ordered_out.h - print results that finish out of order (scan's worker
 * threads) in their walk order: each result has a sequence number 0, 1, 2
 * ...; a result is held until every earlier one was printed.  Not
 * thread-safe: the caller holds its lock around every call. */
#ifndef KT_CLI_ORDERED_OUT_H
#define KT_CLI_ORDERED_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct oo_slot;
struct ordered_out {
    FILE *f;
    uint64_t next;          /* the next sequence number to print */
    struct oo_slot *slots;  /* ring over [next, next + cap) */
    size_t cap;
    void (*before_write)(void *ctx); /* e.g. clear a progress line; may be NULL */
    void *ctx;
};

void oo_init(struct ordered_out *o, FILE *f, void (*before_write)(void *), void *ctx);
/* Result seq: buf[n] (malloc'd, owned from here; n may be 0 for a result
 * that prints nothing).  Prints every result now in order.  -ENOMEM: buf
 * is printed at once, out of order, rather than lost. */
int oo_put(struct ordered_out *o, uint64_t seq, char *buf, size_t n);
/* After an interrupted run: print what is held, in order, skipping the
 * results that never came.  Then free everything. */
void oo_finish(struct ordered_out *o);

#endif
