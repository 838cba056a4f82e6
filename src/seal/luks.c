/* luks.c - the TPM2 tokens of a LUKS2 header, read with libcryptsetup
 * (crypt_init on the device or image file, crypt_load(CRYPT_LUKS2),
 * crypt_token_json_get for each token): the header is never parsed here;
 * or one token given as a JSON file; or a device as audit --save-root
 * saved it: a directory of token-N.json files (the tokens' JSON only). */
#include <dirent.h>
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

/* Where tokens are collected: their JSON text too when json is not NULL. */
struct sink {
    struct kt_seal_token **v;
    char ***json;
    size_t *n;
};

static int push(struct sink *s, const struct kt_seal_token *t, const char *text, size_t len)
{
    struct kt_seal_token *nv = realloc(*s->v, (*s->n + 1) * sizeof(**s->v));
    if (!nv)
        return -ENOMEM;
    *s->v = nv;
    if (s->json) {
        char **nj = realloc(*s->json, (*s->n + 1) * sizeof(**s->json));
        if (!nj)
            return -ENOMEM;
        *s->json = nj;
        if (!(nj[*s->n] = strndup(text, len)))
            return -ENOMEM;
    }
    nv[(*s->n)++] = *t;
    return 0;
}

static int read_header(const char *path, struct sink *out, struct kt_error *err)
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
            rc = push(out, &t, json, strlen(json));
        }
    }
    c->crypt_free(cd);
    return rc < 0 ? rc : 0;
}

/* A file that starts with '{' after blanks: a token exported as JSON. */
static int read_json(const char *path, int number, struct sink *out, struct kt_error *err)
{
    struct kt_file f;
    int rc = kt_file_open(path, &f, err);
    if (rc < 0)
        return rc;
    struct kt_seal_token t;
    rc = kt_seal_token_parse((const char *)f.data, f.len, &t, err);
    if (rc == 0)
        rc = kt_fail(err, -EBADMSG, KT_NO_OFFSET,
                     "token: not a TPM2 token (systemd-tpm2, clevis tpm2)");
    if (rc > 0) {
        t.token = number;
        rc = push(out, &t, (const char *)f.data, f.len);
    }
    kt_file_close(&f);
    return rc;
}

/* A saved device: token-N.json for each TPM2 token, in N's order. */
static int read_saved(const char *dir, struct sink *out, struct kt_error *err)
{
    struct dirent **names;
    int k = scandir(dir, &names, NULL, versionsort);
    if (k < 0)
        return kt_fail(err, -errno, KT_NO_OFFSET, "cannot open: %s", strerror(errno));
    int rc = 0;
    for (int i = 0; i < k; i++) {
        int num;
        char tail[8] = "";
        if (rc == 0 && sscanf(names[i]->d_name, "token-%d.%5s", &num, tail) == 2 &&
            !strcmp(tail, "json") && num >= 0) {
            char p[4200];
            snprintf(p, sizeof(p), "%s/%s", dir, names[i]->d_name);
            rc = read_json(p, num, out, err);
        }
        free(names[i]);
    }
    free(names);
    return rc;
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

int kt_seal_tokens_read_json(const char *path, struct kt_seal_token **out, char ***json,
                             size_t *n, struct kt_error *err)
{
    *out = NULL;
    *n = 0;
    if (json)
        *json = NULL;
    struct sink sk = {out, json, n};
    struct stat st;
    if (stat(path, &st) != 0) {
        int rc = -errno;
        return kt_fail(err, rc, KT_NO_OFFSET, "cannot open: %s", strerror(-rc));
    }
    int rc;
    if (S_ISDIR(st.st_mode))
        rc = read_saved(path, &sk, err);
    else if (looks_json(path))
        rc = read_json(path, -1, &sk, err);
    else
        rc = read_header(path, &sk, err);
    if (rc < 0) {
        kt_seal_json_free(json ? *json : NULL, *n);
        free(*out);
        *out = NULL;
        *n = 0;
        if (json)
            *json = NULL;
    }
    return rc;
}

int kt_seal_tokens_read(const char *path, struct kt_seal_token **out, size_t *n,
                        struct kt_error *err)
{
    return kt_seal_tokens_read_json(path, out, NULL, n, err);
}

void kt_seal_json_free(char **json, size_t n)
{
    for (size_t i = 0; json && i < n; i++)
        free(json[i]);
    free(json);
}
