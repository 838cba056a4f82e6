/* test_jsonr.c - the JSON reader: values, escapes, errors with offsets. */
#include <string.h>

#include "kt_test.h"
#include "util/jsonr.h"

static int parse(const char *s, struct kt_json **j, struct kt_error *e)
{
    memset(e, 0, sizeof(*e));
    *j = NULL;
    return kt_json_parse(s, strlen(s), j, e);
}

int main(void)
{
    struct kt_json *j;
    struct kt_error e;
    CHECK_EQ_INT(parse("{\"a\": [1, -2.5e3, true, false, null, \"x\\u00e9\\ud83d\\ude00\\n\"],"
                       " \"b\": {\"c\": \"d\"}}", &j, &e), 0, "document");
    const struct kt_json *a = kt_json_get(j, "a");
    CHECK(a && a->type == KT_JSON_ARR && a->n == 6, "array");
    if (a && a->n == 6) {
        CHECK_EQ_STR(a->kids[1].str, "-2.5e3", "number text");
        CHECK(a->kids[2].type == KT_JSON_BOOL && a->kids[4].type == KT_JSON_NULL, "literals");
        CHECK_EQ_STR(a->kids[5].str, "x\xc3\xa9\xf0\x9f\x98\x80\n", "escapes to UTF-8");
    }
    CHECK_EQ_STR(kt_json_str(kt_json_get(j, "b"), "c"), "d", "nested member");
    CHECK(kt_json_get(j, "z") == NULL, "absent member");
    kt_json_free(j);
    CHECK_EQ_INT(parse("{\"a\": 1,}", &j, &e), -EBADMSG, "trailing comma");
    CHECK_EQ_INT(e.offset, 8, "at the brace");
    CHECK_EQ_INT(parse("[1] x", &j, &e), -EBADMSG, "data after");
    CHECK_EQ_INT(parse("\"abc", &j, &e), -EBADMSG, "unterminated");
    CHECK_EQ_INT(parse("\"a\\q\"", &j, &e), -EBADMSG, "bad escape");
    CHECK_EQ_INT(parse("\"\\u12\"", &j, &e), -EBADMSG, "short \\u");
    CHECK_EQ_INT(parse("\"a\nb\"", &j, &e), -EBADMSG, "raw newline in a string");
    CHECK_EQ_INT(parse("", &j, &e), -EBADMSG, "empty");
    char deep[200];
    memset(deep, '[', 100);
    deep[100] = 0;
    CHECK_EQ_INT(parse(deep, &j, &e), -EBADMSG, "too deep");
    CHECK(strstr(e.what, "deep") != NULL, "depth message: %s", e.what);
    CHECK_EQ_INT(parse("[\"a\\", &j, &e), -EBADMSG, "a trailing backslash (fuzzer)");
    CHECK(e.offset <= 4, "offset inside the input: %zu", e.offset);
    CHECK_EQ_INT(parse("\"\\\\\"", &j, &e), 0, "escaped backslash before the quote");
    CHECK_EQ_STR(j ? j->str : NULL, "\\", "one backslash");
    kt_json_free(j);
    KT_TEST_END();
}
