/* find.c - the sealed secrets of a system, found as unseal-check finds
 * them: the sources given (LUKS2 devices, image files, exported token JSON,
 * saved devices), else the volumes of /etc/crypttab under a root; each
 * source's TPM2 tokens with their JSON text (what audit --save-root keeps).
 * The one lookup of unseal-check, plan-updates, check-update and audit. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "seal/seal.h"
#include "util/err.h"

static int grow(struct kt_seal_found *f, size_t extra)
{
    size_t n = f->n + extra + 1;
    struct kt_seal_token *t = realloc(f->tok, n * sizeof(*t));
    if (t)
        f->tok = t;
    char **j = t ? realloc(f->json, n * sizeof(*j)) : NULL;
    if (j)
        f->json = j;
    size_t *s = j ? realloc(f->src, n * sizeof(*s)) : NULL;
    if (s)
        f->src = s;
    return s ? 0 : -ENOMEM;
}

/* Source i's tokens appended; a source that cannot be read fails the
 * lookup, or with lenient is only recorded in f->error[i]. */
static int read_one(struct kt_seal_found *f, size_t i, bool lenient, struct kt_error *err)
{
    struct kt_seal_token *tok;
    char **json;
    size_t n;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_seal_tokens_read_json(f->path[i], &tok, &json, &n, lenient ? &e : err);
    if (rc < 0) {
        f->error[i] = rc;
        if (lenient && rc != -ENOMEM)
            return 0;
        f->failed = f->path[i];
        return rc;
    }
    rc = grow(f, n);
    for (size_t k = 0; k < n; k++) {
        if (rc == 0) {
            f->tok[f->n] = tok[k];
            f->json[f->n] = json[k];
            f->src[f->n++] = i;
            json[k] = NULL;
        }
    }
    f->count[i] = rc == 0 ? n : 0;
    kt_seal_json_free(json, n);
    free(tok);
    return rc;
}

int kt_seal_find(const char *root, const char *const *paths, size_t n_paths, unsigned flags,
                 struct kt_seal_found *f, struct kt_error *err)
{
    memset(f, 0, sizeof(*f));
    bool lenient = flags & KT_SEAL_FIND_LENIENT;
    int rc = 0;
    if (n_paths) {
        f->path = calloc(n_paths, sizeof(*f->path));
        for (size_t i = 0; f->path && i < n_paths; i++, f->n_path++)
            if (!(f->path[i] = strdup(paths[i])))
                break;
        rc = f->path && f->n_path == n_paths ? 0 : -ENOMEM;
    } else {
        struct kt_error e = KT_ERROR_INIT;
        rc = kt_seal_crypttab(root, &f->path, &f->n_path, lenient ? &e : err);
        f->crypttab = rc == 0;
        if (rc < 0 && lenient && rc != -ENOMEM)
            rc = 0; /* no crypttab: no sealed secret to look at */
    }
    if (rc == 0) {
        f->count = calloc(f->n_path + 1, sizeof(*f->count));
        f->error = calloc(f->n_path + 1, sizeof(*f->error));
        rc = f->count && f->error ? grow(f, 0) : -ENOMEM;
    }
    for (size_t i = 0; rc == 0 && i < f->n_path; i++)
        rc = read_one(f, i, lenient, err);
    if (rc == -ENOMEM)
        kt_fail(err, rc, KT_NO_OFFSET, "out of memory");
    return rc;
}

void kt_seal_found_free(struct kt_seal_found *f)
{
    kt_seal_json_free(f->json, f->n);
    kt_seal_crypttab_free(f->path, f->n_path);
    free(f->tok);
    free(f->src);
    free(f->count);
    free(f->error);
    memset(f, 0, sizeof(*f));
}
