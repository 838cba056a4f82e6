/* kt_test.h - a tiny table-friendly test harness for the unit tests.
 * Each CHECK counts; main() ends with KT_TEST_END() which prints
 * "N passed, N failed" and returns non-zero on any failure. */
#ifndef KT_TEST_H
#define KT_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int kt_t_pass, kt_t_fail;

static inline const char *kt_t_s(const char *a) { return a ? a : "(null)"; }
static inline int kt_t_streq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

#define CHECK(cond, ...)                                                                     \
    do {                                                                                     \
        if (cond) {                                                                          \
            kt_t_pass++;                                                                     \
        } else {                                                                             \
            kt_t_fail++;                                                                     \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                  \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
        }                                                                                    \
    } while (0)

#define CHECK_EQ_INT(a, b, name)                                                             \
    CHECK((long long)(a) == (long long)(b), "%s: got %lld, want %lld", name, (long long)(a), \
          (long long)(b))

#define CHECK_EQ_STR(a, b, name)                                                             \
    CHECK(kt_t_streq((a), (b)), "%s: got '%s', want '%s'", name,                            \
          kt_t_s(a), kt_t_s(b))

#define KT_TEST_END()                                                                        \
    do {                                                                                     \
        printf("%d passed, %d failed\n", kt_t_pass, kt_t_fail);                              \
        return kt_t_fail ? 1 : 0;                                                            \
    } while (0)

/* Path of ../shared/corpus (or $KTRUST_CORPUS), or NULL.  In CI (CI set) a
 * missing corpus is a failure; elsewhere tests print "skipped: corpus not
 * found" and exit 77. */
static inline const char *kt_test_corpus(void)
{
    static char buf[4096];
    const char *env = getenv("KTRUST_CORPUS");
    if (env && *env)
        return env;
    const char *src = getenv("KT_SRC");
    snprintf(buf, sizeof(buf), "%s/../shared/corpus", src ? src : ".");
    FILE *f = fopen(strcat(strcpy((char[4200]){0}, buf), "/README.md"), "r");
    if (f) {
        fclose(f);
        return buf;
    }
    return NULL;
}

static inline const char *kt_test_require_corpus(void)
{
    const char *c = kt_test_corpus();
    if (c)
        return c;
    if (getenv("CI")) {
        fprintf(stderr, "corpus not found but CI is set: failing\n");
        exit(1);
    }
    printf("skipped: corpus not found\n");
    exit(77);
}

/* Read a whole file into a malloc'd buffer. */
static inline unsigned char *kt_test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Read dir/name whole (a failed check when it cannot be): malloc'd. */
static inline unsigned char *kt_test_read(const char *dir, const char *name, size_t *len)
{
    char path[4300];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    unsigned char *b = kt_test_slurp(path, len);
    CHECK(b != NULL, "read %s", path);
    return b;
}
#endif
