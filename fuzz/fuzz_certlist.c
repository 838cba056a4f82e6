/* fuzz_certlist.c - the kernel's concatenated certificate list splitter. */
#include <stdint.h>
#include <stdlib.h>

#include "esl/esl.h"

struct st {
    size_t next;
    size_t size;
};

static int check(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    struct st *s = ctx;
    if (off < s->next || len == 0 || off + len > s->size)
        abort(); /* entries are in order, inside the input, not overlapping */
    s->next = off + len;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct st s = {0, size};
    struct kt_error e = {0};
    int rc = kt_certlist_foreach(data, size, check, &s, &e);
    if (rc < 0 && (e.what[0] == 0 || e.offset > size))
        abort();
    return 0;
}
