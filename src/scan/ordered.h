/* ordered.h - results that finish out of order (scan's worker threads)
 * handed on in their walk order: each has a sequence number 0, 1, 2 ...;
 * a result is held until every earlier one was handed on.  Not
 * thread-safe: the caller holds its lock around every call. */
#ifndef KT_SCAN_ORDERED_H
#define KT_SCAN_ORDERED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One result: its text (malloc'd, may be NULL with n 0) and what it counts as. */
struct kt_ordered_item {
    char *buf;
    size_t n;
    int rc;
    int type;        /* index into kt_scan_stats.types, or -1 */
    bool unreadable, skipped;
    uint64_t len;    /* the file's bytes */
};

struct kt_ordered_slot;
struct kt_ordered {
    uint64_t next;                  /* the next sequence number to hand on */
    struct kt_ordered_slot *slots;  /* ring over [next, next + cap) */
    size_t cap;
    /* hands one item on, in order; frees nothing (the caller's buf is freed after) */
    void (*emit)(void *ctx, const struct kt_ordered_item *it);
    void *ctx;
};

void kt_ordered_init(struct kt_ordered *o, void (*emit)(void *, const struct kt_ordered_item *),
                     void *ctx);
/* Result seq (it->buf owned from here).  Hands on every result now in
 * order.  -ENOMEM: it is handed on at once, out of order, rather than lost. */
int kt_ordered_put(struct kt_ordered *o, uint64_t seq, const struct kt_ordered_item *it);
/* After an interrupted run: hand on what is held, in order, skipping the
 * results that never came (none with drop).  Then free everything. */
void kt_ordered_finish(struct kt_ordered *o, bool drop);

#endif
