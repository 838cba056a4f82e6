/* store_int.h - shared by the store sources (not a public API). */
#ifndef KT_STORE_STORE_INT_H
#define KT_STORE_STORE_INT_H

#include <stdbool.h>

#include "store/store.h"

/* Before opening: a directory is -EISDIR; reading needs the file (-ENOENT
 * "no store at this path"); writing needs its directory (-ENOENT, never
 * created here).  *writable: the file exists and this user may write it. */
int kt_store_check_path(const char *path, enum kt_store_mode mode, bool *writable,
                        struct kt_error *err);

#endif
