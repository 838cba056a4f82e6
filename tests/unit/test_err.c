/* test_err.c - the result convention (util/err.h, ktrust/error.h): the
 * errno -> verdict table of CONTRACT.md's exit codes, verdict and errno
 * names, kt_fail's first-failure-wins rule, KT_ERROR_INIT and
 * kt_error_prefix. */
#include <errno.h>
#include <string.h>

#include "kt_test.h"
#include "util/err.h"

static void verdicts(void)
{
    /* CONTRACT.md "Exit codes": code, verdict word, kernel error */
    static const struct {
        int rc;
        enum kt_verdict v;
        int exit_code;
        const char *word, *errname;
    } cases[] = {
        {0, KT_TRUSTED, 0, "trusted", NULL},
        {-ENODATA, KT_UNSIGNED, 1, "unsigned", "ENODATA"},
        {-ENOKEY, KT_UNTRUSTED, 2, "untrusted", "ENOKEY"},
        {-ENOPKG, KT_UNSUPPORTED, 3, "unsupported", "ENOPKG"},
        {-EBADMSG, KT_MALFORMED, 4, "malformed", "EBADMSG"},
        {-ELIBBAD, KT_MALFORMED, 4, "malformed", "ELIBBAD"},
        {-E2BIG, KT_MALFORMED, 4, "malformed", "E2BIG"},
        {-EKEYREJECTED, KT_REJECTED, 5, "rejected", "EKEYREJECTED"},
        {-EPERM, KT_REFUSED, 6, "refused", "EPERM"},
        {-ENOMEM, KT_INTERNAL, 70, "error", "ENOMEM"},
        {-EIO, KT_INTERNAL, 70, "error", "EIO"},
        {-EAGAIN, KT_INTERNAL, 70, "error", "EIO"}, /* unlisted: an internal error */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char name[64];
        snprintf(name, sizeof(name), "rc %d", cases[i].rc);
        enum kt_verdict v = kt_verdict_of(cases[i].rc);
        CHECK_EQ_INT(v, cases[i].v, name);
        CHECK_EQ_INT((int)v, cases[i].exit_code, name); /* the verdict is the exit code */
        CHECK_EQ_STR(kt_verdict_name(v), cases[i].word, name);
        if (cases[i].errname)
            CHECK_EQ_STR(kt_errno_name(cases[i].rc), cases[i].errname, name);
        else
            CHECK(kt_errno_name(cases[i].rc) == NULL, "%s: no errno name for success", name);
    }
    CHECK_EQ_STR(kt_verdict_name((enum kt_verdict)42), "error", "unknown verdict");
}

static void fail_rules(void)
{
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_fail(&e, -EBADMSG, 12, "inner: %s", "length runs past the end"), -EBADMSG,
                 "kt_fail returns the code");
    CHECK_EQ_INT(e.code, -EBADMSG, "code kept");
    CHECK_EQ_INT(e.offset, 12, "offset kept");
    CHECK_EQ_STR(e.what, "inner: length runs past the end", "message");
    /* the first failure wins: an outer caller does not hide the cause */
    CHECK_EQ_INT(kt_fail(&e, -ELIBBAD, 0, "outer"), -ELIBBAD, "outer code returned");
    CHECK_EQ_INT(e.code, -EBADMSG, "inner code stays");
    CHECK_EQ_STR(e.what, "inner: length runs past the end", "inner message stays");
    /* kt_fail_over replaces it */
    kt_fail_over(&e, -ENOKEY, KT_NO_OFFSET, "replaced %d", 7);
    CHECK_EQ_INT(e.code, -ENOKEY, "over: code");
    CHECK(e.offset == KT_NO_OFFSET, "over: no offset");
    CHECK_EQ_STR(e.what, "replaced 7", "over: message");
    /* no kt_error: just the code */
    CHECK_EQ_INT(kt_fail(NULL, -EPERM, 0, "x"), -EPERM, "NULL error");
    /* a long message is cut, still NUL-terminated */
    char big[1000];
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    struct kt_error l = {0};
    kt_fail(&l, -EBADMSG, 0, "%s", big);
    CHECK_EQ_INT(strlen(l.what), sizeof(l.what) - 1, "long message truncated");
}

static void init_and_prefix(void)
{
    struct kt_error e = KT_ERROR_INIT;
    CHECK_EQ_INT(e.code, 0, "init: no code");
    CHECK(e.offset == KT_NO_OFFSET, "init: no offset, not offset 0");
    CHECK_EQ_STR(e.what, "", "init: no text");
    kt_fail(&e, -EBADMSG, 7, "length runs past the end");
    CHECK_EQ_INT(kt_error_prefix(&e, "--trust %s", "a.pem"), -EBADMSG, "prefix returns the code");
    CHECK_EQ_STR(e.what, "--trust a.pem: length runs past the end", "prefixed");
    CHECK_EQ_INT(e.offset, 7, "prefix keeps the offset");
    CHECK_EQ_INT(kt_error_prefix(NULL, "x"), 0, "NULL error");
    /* a long prefix or message is cut, still NUL-terminated */
    char big[1000];
    memset(big, 'b', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    kt_error_prefix(&e, "%s", big + 700);
    CHECK_EQ_INT(strlen(e.what), 299 + 2 + 39, "long prefix: whole");
    CHECK(!memcmp(e.what + 299, ": --trust", 9), "long prefix: separator kept");
    kt_error_prefix(&e, "%s", big + 800);
    CHECK_EQ_INT(strlen(e.what), sizeof(e.what) - 1, "message cut at the end");
    kt_error_prefix(&e, "%s", big);
    CHECK_EQ_INT(strlen(e.what), sizeof(e.what) - 1, "prefix over the size: cut");
}

static int try_twice(int first, int second, int *reached)
{
    KT_TRY(first);
    *reached = 1;
    KT_TRY(second);
    return 0;
}

static void try_macro(void)
{
    int reached = 0;
    CHECK_EQ_INT(try_twice(-EBADMSG, 0, &reached), -EBADMSG, "KT_TRY returns the error");
    CHECK_EQ_INT(reached, 0, "KT_TRY stops at the first error");
    CHECK_EQ_INT(try_twice(0, -ENOKEY, &reached), -ENOKEY, "second error");
    CHECK_EQ_INT(reached, 1, "went on after success");
    CHECK_EQ_INT(try_twice(0, 1, &reached), 0, "positive results are success");
}

int main(void)
{
    verdicts();
    fail_rules();
    try_macro();
    init_and_prefix();
    KT_TEST_END();
}
