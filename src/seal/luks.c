/* luks.c - the TPM2 tokens of a LUKS2 header, read with libcryptsetup
 * (crypt_init on the device or image file, crypt_load(CRYPT_LUKS2),
 * crypt_token_json_get for each token): the header is never parsed here;
 * or one token given as a JSON file. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ktrust/advanced.h"
#include "seal/seal.h"
#include "util/err.h"
#include "util/file.h"

static void quiet(int level, const char *msg, void *usrptr)
{
    (void)level, (void)msg, (void)usrptr;
}

static int push(struct kt_seal_token **v, size_t *n, const struct kt_seal_token *t)
{
    struct kt_seal_token *nv = realloc(*v, (*n + 1) * sizeof(**v));
    if (!nv)
        return -ENOMEM;
    nv[(*n)++] = *t;
    *v = nv;
    return 0;
}

static int read_header(const char *path, struct kt_seal_token **out, size_t *n,
                       struct kt_error *err)
{
    const struct kt_seal_cs *c = kt_seal_cryptsetup();
    if (!c)
        return kt_fail(err, -ENOPKG, KT_NO_OFFSET, "libcryptsetup.so.12 is not installed: "
                       "cannot read a LUKS2 header");
    struct crypt_device *cd = NULL;
    c->crypt_set_log_callback(NULL, quiet, NULL);
    int rc = c->crypt_init(&cd, path);
    if (rc < 0)
        return kt_fail(err, rc, KT_NO_OFFSET, "cannot open: %s", strerror(-rc));
    c->crypt_set_log_callback(cd, quiet, NULL);
    rc = c->crypt_load(cd, CRYPT_LUKS2, NULL);
    if (rc < 0) {
        c->crypt_free(cd);
        if (rc == -EACCES || rc == -ENOENT || rc == -ENOMEM)
            return kt_fail(err, rc, KT_NO_OFFSET, "cannot read the LUKS2 header: %s", strerror(-rc));
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "not a LUKS2 header (or a damaged one)");
    }
    int max = c->crypt_token_max(CRYPT_LUKS2);
    for (int i = 0; rc >= 0 && i < max; i++) {
        const char *json = NULL;
        if (c->crypt_token_json_get(cd, i, &json) < 0 || !json)
            continue; /* no token at i */
        struct kt_seal_token t;
        struct kt_error te = KT_ERROR_INIT;
        rc = kt_seal_token_parse(json, strlen(json), &t, &te);
        if (rc < 0 && rc != -ENOMEM)
            rc = kt_fail(err, rc, KT_NO_OFFSET, "token %d: %s", i, te.what);
        if (rc > 0) {
            t.token = i;
            rc = push(out, n, &t);
        }
    }
    c->crypt_free(cd);
    return rc < 0 ? rc : 0;
}

/* A file that starts with '{' after blanks: a token exported as JSON. */
static int read_json(const struct kt_file *f, struct kt_seal_token **out, size_t *n,
                     struct kt_error *err)
{
    struct kt_seal_token t;
    int rc = kt_seal_token_parse((const char *)f->data, f->len, &t, err);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET,
                       "token: not a TPM2 token (systemd-tpm2, clevis tpm2)");
    return push(out, n, &t);
}

/* A regular file whose first non-blank byte is '{': a token exported as JSON. */
static bool looks_json(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    int c;
    while ((c = fgetc(f)) == ' ' || c == '\n' || c == '\t' || c == '\r')
        ;
    fclose(f);
    return c == '{';
}

int kt_seal_tokens_read(const char *path, struct kt_seal_token **out, size_t *n,
                        struct kt_error *err)
{
    *out = NULL;
    *n = 0;
    struct stat st;
    if (stat(path, &st) != 0) {
        int rc = -errno;
        return kt_fail(err, rc, KT_NO_OFFSET, "cannot open: %s", strerror(-rc));
    }
    int rc;
    if (looks_json(path)) {
        struct kt_file f;
        rc = kt_file_open(path, &f, err);
        if (rc == 0) {
            rc = read_json(&f, out, n, err);
            kt_file_close(&f);
        }
    } else {
        rc = read_header(path, out, n, err);
    }
    if (rc < 0) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
