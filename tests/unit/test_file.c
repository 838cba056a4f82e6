/* test_file.c - whole-file access (util/file.h): kt_file_open and the reused
 * read buffer of kt_file_open_buf, which scan's workers use. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_test.h"
#include "util/file.h"

static char dir[] = "/tmp/kt_test_file.XXXXXX";

static char *path_of(const char *name)
{
    static char p[256];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return p;
}

static void write_file(const char *name, const void *data, size_t len)
{
    FILE *f = fopen(path_of(name), "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        perror(name);
        exit(2);
    }
}

/* Reads land in the one buffer, reused and grown, and match the bytes. */
static void reads_into_one_buffer(void)
{
    static uint8_t big[200000];
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (uint8_t)(i * 7 + 1);
    write_file("small", "hello", 5);
    write_file("big", big, sizeof(big));
    struct kt_filebuf b = {0};
    struct kt_file f;
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_file_open_buf(path_of("small"), &b, &f, &e), 0, "small");
    CHECK(f.len == 5 && memcmp(f.data, "hello", 5) == 0, "small bytes");
    CHECK(f.data == b.data, "small read into the buffer");
    kt_file_close(&f);
    CHECK(b.data != NULL, "close leaves the buffer to its owner");
    CHECK_EQ_INT(kt_file_open_buf(path_of("big"), &b, &f, &e), 0, "big");
    CHECK(f.len == sizeof(big) && memcmp(f.data, big, sizeof(big)) == 0, "big bytes");
    CHECK(b.cap >= sizeof(big), "buffer grew to %zu", b.cap);
    kt_file_close(&f);
    CHECK_EQ_INT(kt_file_open_buf(path_of("small"), &b, &f, &e), 0, "small again");
    CHECK(f.len == 5 && memcmp(f.data, "hello", 5) == 0, "small again bytes");
    kt_file_close(&f);
    kt_filebuf_free(&b);
    CHECK(b.data == NULL && b.cap == 0, "freed");
}

/* Over KT_FILEBUF_MAX, empty files, directories and missing files take the
 * same paths and errors as kt_file_open; the buffer is not grown for them. */
static void falls_back(void)
{
    int fd = open(path_of("huge"), O_CREAT | O_WRONLY | O_TRUNC, 0600);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)KT_FILEBUF_MAX + 1) == 0, "sparse huge file");
    if (fd >= 0)
        close(fd);
    write_file("empty", "", 0);
    struct kt_filebuf b = {0};
    struct kt_file f;
    struct kt_error e = {0};
    CHECK_EQ_INT(kt_file_open_buf(path_of("huge"), &b, &f, &e), 0, "huge");
    CHECK(f.len == KT_FILEBUF_MAX + 1 && f.mapped == 1 && b.data == NULL, "huge is mapped");
    CHECK(f.data[KT_FILEBUF_MAX] == 0, "huge readable to its end");
    kt_file_close(&f);
    CHECK_EQ_INT(kt_file_open_buf(path_of("empty"), &b, &f, &e), 0, "empty");
    CHECK(f.len == 0 && b.data == NULL, "empty");
    kt_file_close(&f);
    CHECK_EQ_INT(kt_file_open_buf(dir, &b, &f, &e), -EISDIR, "directory");
    CHECK(strstr(e.what, "is a directory") != NULL, "message: %s", e.what);
    e = (struct kt_error){0}; /* the first failure recorded is kept */
    CHECK_EQ_INT(kt_file_open_buf(path_of("missing"), &b, &f, &e), -ENOENT, "missing");
    CHECK(strstr(e.what, "cannot open") != NULL, "message: %s", e.what);
    CHECK_EQ_INT(kt_file_open(path_of("missing"), &f, &e), -ENOENT, "missing, open");
    kt_filebuf_free(&b);
    unlink(path_of("huge"));
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    reads_into_one_buffer();
    falls_back();
    unlink(path_of("small"));
    unlink(path_of("big"));
    unlink(path_of("empty"));
    rmdir(dir);
    KT_TEST_END();
}
