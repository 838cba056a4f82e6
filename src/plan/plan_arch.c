/* plan_arch.c - the right file for this machine: the architecture the
 * machine boots (the PE machine type of its ESP's shim or loader), the one
 * a dbx update is for (Microsoft's dbx_info lists each image hash under an
 * architecture; else the folder Microsoft's tree puts it in: amd64, x86,
 * arm64, arm), and what a dbx update revokes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ktrust/update.h"
#include "pe/pe.h"
#include "plan/plan_arch.h"
#include "revoke/dbx_info.h"
#include "util/file.h"
#include "util/fmt.h"

void kt_plan_machine_arch(struct kt_plan *p, const char *const *paths, const bool *found, size_t n)
{
    for (size_t i = 0; i < n && !p->arch[0]; i++) {
        struct kt_file f;
        struct kt_error e = KT_ERROR_INIT;
        struct kt_pe *pe = NULL;
        if (!found[i] || kt_file_open(paths[i], &f, &e) < 0)
            continue;
        if (kt_pe_parse(f.data, f.len, &pe, &e) == 0) {
            const char *a = kt_update_arch_name(pe->machine);
            if (a) {
                kt_fmt(p->arch, sizeof(p->arch), "%s", a);
                kt_fmt(p->arch_from, sizeof(p->arch_from), "%s", paths[i]);
            }
            kt_pe_free(pe);
        }
        kt_file_close(&f);
    }
}

int kt_plan_arch_info(const struct kt_plan *p, struct kt_json **info)
{
    *info = NULL;
    if (!p->dbx_info[0] || !p->arch[0]) /* no machine architecture: nothing to choose */
        return 0;
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    if (kt_file_open(p->dbx_info, &f, &e) < 0)
        return 0; /* unreadable: the folders are the fallback */
    int rc = kt_dbx_info_parse(f.data, f.len, info, &e);
    kt_file_close(&f);
    return rc == -ENOMEM ? rc : 0;
}

/* Microsoft's folder names for an architecture, as dbx_info names it. */
static const char *const folders[][2] = {
    {"amd64", "x64"}, {"x86", "ia32"}, {"arm64", "aarch64"}, {"arm", "arm"},
};

static const char *arch_of_folder(const char *path)
{
    for (size_t i = 0; i < sizeof(folders) / sizeof(folders[0]); i++) {
        char part[16];
        kt_fmt(part, sizeof(part), "/%s/", folders[i][0]);
        if (strstr(path, part))
            return folders[i][1];
    }
    return NULL;
}

/* dbx_info's SHA-256 image hashes, sorted, each with its architectures as
 * bits of "images" (built once per plan: a lookup per added hash). */
struct arch_ent {
    uint8_t h[32];
    uint32_t bits;
};

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static bool unhex32(const char *s, uint8_t out[32])
{
    if (!s || strlen(s) != 64)
        return false;
    for (size_t i = 0; i < 32; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

static int by_hash(const void *a, const void *b)
{
    return memcmp(a, b, 32);
}

static struct arch_ent *index_of(const struct kt_json *images, size_t *n)
{
    size_t cap = 0;
    *n = 0;
    for (size_t a = 0; a < images->n; a++)
        cap += images->kids[a].type == KT_JSON_ARR ? images->kids[a].n : 0;
    struct arch_ent *e = malloc((cap ? cap : 1) * sizeof(*e));
    for (size_t a = 0; e && a < images->n && a < 32; a++) {
        const struct kt_json *arr = &images->kids[a];
        for (size_t i = 0; arr->type == KT_JSON_ARR && i < arr->n; i++) {
            const char *ht = kt_json_str(&arr->kids[i], "hashType");
            if ((!ht || !strcasecmp(ht, "sha256")) &&
                unhex32(kt_json_str(&arr->kids[i], "authenticodeHash"), e[*n].h))
                e[(*n)++].bits = 1u << a;
        }
    }
    if (e)
        qsort(e, *n, sizeof(*e), by_hash);
    return e;
}

/* The architectures dbx_info lists f's added image hashes under: *listed
 * the hashes it lists, *mine those under this machine's architecture. */
static int arch_of_hashes(const struct kt_plan *p, const struct kt_json *info,
                          struct kt_plan_file *f, size_t *listed, size_t *mine)
{
    const struct kt_json *names = kt_json_get(info, "images");
    *listed = *mine = 0;
    f->arch[0] = 0;
    if (!names || names->type != KT_JSON_OBJ)
        return 0;
    size_t n;
    struct arch_ent *idx = index_of(names, &n);
    if (!idx)
        return -ENOMEM;
    uint32_t all = 0, me = 0;
    for (size_t k = 0; k < names->n && k < 32; k++)
        if (names->kids[k].key && !strcmp(names->kids[k].key, p->arch))
            me = 1u << k;
    for (size_t i = 0; i < f->change.n_gained; i++) {
        struct arch_ent key;
        const char *g = f->change.gained[i];
        if (strncmp(g, "sha256 ", 7) || !unhex32(g + 7, key.h))
            continue;
        uint32_t bits = 0;
        struct arch_ent *hit = bsearch(&key, idx, n, sizeof(*idx), by_hash);
        for (struct arch_ent *e = hit; e && e > idx && !memcmp(e[-1].h, key.h, 32);)
            hit = --e; /* the first of equal hashes */
        for (struct arch_ent *e = hit; e && e < idx + n && !memcmp(e->h, key.h, 32); e++)
            bits |= e->bits;
        all |= bits;
        *listed += bits != 0;
        *mine += (bits & me) != 0;
    }
    free(idx);
    for (size_t k = 0; k < names->n && k < 32; k++) {
        if (!(all & (1u << k)) || !names->kids[k].key)
            continue;
        size_t len = strlen(f->arch);
        kt_fmt(f->arch + len, sizeof(f->arch) - len, "%s%s", len ? ", " : "", names->kids[k].key);
    }
    return 0;
}

/* "the hashes of 443 images; 3 SVN records" from what f adds, and whether
 * this machine needs the SVN records (only a Windows boot manager reads
 * them). */
static void revokes(const struct kt_plan *p, struct kt_plan_file *f)
{
    size_t hashes = 0, svn = 0, other = 0;
    char certs[160] = "";
    for (size_t i = 0; i < f->change.n_gained; i++) {
        const char *g = f->change.gained[i];
        if (!strncmp(g, "X509 ", 5)) {
            size_t n = strlen(certs);
            kt_fmt(certs + n, sizeof(certs) - n, "%severy image signed under %s", n ? "; " : "",
                   g + 5);
        } else if (!strncmp(g, "sha", 3)) {
            hashes++;
        } else if (!strncmp(g, "svn ", 4)) {
            svn++;
        } else {
            other++;
        }
    }
    char h[48] = "", s[160] = "", o[32] = "";
    if (hashes)
        kt_fmt(h, sizeof(h), "%sthe hashes of %zu images", certs[0] ? "; " : "", hashes);
    if (svn)
        kt_fmt(s, sizeof(s), "%s%zu SVN records (Windows boot managers' minimum versions: %s)",
               certs[0] || hashes ? "; " : "", svn,
               p->windows[0] ? "the one on this ESP checks them"
                             : "firmware ignores them; this ESP has no Windows boot manager");
    if (other)
        kt_fmt(o, sizeof(o), "%s%zu other entries", certs[0] || hashes || svn ? "; " : "", other);
    kt_fmt(f->revokes, sizeof(f->revokes), "%s%s%s%s", certs, h, s, o);
}

bool kt_plan_file_arch(const struct kt_plan *p, const struct kt_json *info, struct kt_plan_file *f)
{
    if (f->change.target != KT_EFIVAR_DBX)
        return false;
    revokes(p, f);
    size_t listed = 0, mine = 0;
    if (info)
        (void)arch_of_hashes(p, info, f, &listed, &mine); /* -ENOMEM: the folder decides */
    f->arch_listed = listed != 0;
    if (!listed) {
        const char *a = arch_of_folder(f->path);
        kt_fmt(f->arch, sizeof(f->arch), "%s", a ? a : "");
        return a && p->arch[0] && strcmp(a, p->arch) != 0;
    }
    return p->arch[0] && mine == 0;
}
