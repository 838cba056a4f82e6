/* store_int.h - shared by the files of src/store (not installed). */
#ifndef KT_STORE_STORE_INT_H
#define KT_STORE_STORE_INT_H

#include <sqlite3.h>
#include <stdbool.h>

#include "store/rows_int.h"
#include "store/store.h"

struct kt_store {
    sqlite3 *db;
    char *path;
    enum kt_store_mode mode;
    bool in_tx;
    bool empty; /* READ mode on a file with no schema yet */
    /* test hooks (KT_TEST_HOOKS builds only; always 0 otherwise) */
    long fail_after, n_inserts; /* $KTRUST_STORE_FAIL_AFTER, kt_store_inject_full:
                                  * the Nth key row inserted or deleted fails */
    long insert_delay_us;       /* $KTRUST_STORE_INSERT_DELAY_US */
    struct kt_store_rows rows; /* what in memory has which row */
};

/* Map a SQLite result to an errno and a detail "store: DOING: WHY". */
int kt_store_db_fail(struct kt_store *s, struct kt_error *err, int src, const char *doing);
/* Run one statement; errors as kt_store_db_fail. */
int kt_store_exec(struct kt_store *s, const char *sql, const char *doing, struct kt_error *err);

/* Before opening: a directory is -EISDIR; reading needs the file (-ENOENT
 * "no store at this path"); writing needs its directory (-ENOENT, never
 * created here).  *writable: the file exists and this user may write it. */
int kt_store_check_path(const char *path, enum kt_store_mode mode, bool *writable,
                        struct kt_error *err);

#endif
