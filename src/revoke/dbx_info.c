/* dbx_info.c - descriptions of dbx entries from Microsoft's
 * dbx_info_msft_latest.json (microsoft/secureboot_objects):
 * {"images": {ARCH: [{authenticodeHash, hashType, filename, description,
 * companyName, dateOfAddition, ...}]}, "certificates": [{thumbprint,
 * subjectName, description, ...}], "svns": [...]}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "revoke/dbx_info.h"
#include "util/fmt.h"

int kt_dbx_info_parse(const uint8_t *buf, size_t len, struct kt_json **out, struct kt_error *err)
{
    KT_TRY(kt_json_parse((const char *)buf, len, out, err));
    if ((*out)->type != KT_JSON_OBJ || (!kt_json_get(*out, "images") &&
                                        !kt_json_get(*out, "certificates"))) {
        kt_json_free(*out);
        *out = NULL;
        return kt_fail(err, -EBADMSG, 0, "not a dbx_info document (no images, no certificates)");
    }
    return 0;
}

static bool hex_eq(const char *s, const uint8_t *v, size_t n)
{
    char hex[2 * 64 + 1];
    if (!s || n > 64 || strlen(s) != 2 * n)
        return false;
    return strcasecmp(s, kt_hex(v, n, hex)) == 0;
}

static char *fmt(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 3;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s", a, *b ? ": " : "", b);
    return s;
}

char *kt_dbx_info_describe(const struct kt_json *doc, const struct kt_chain_entry *r)
{
    if (!doc)
        return NULL;
    if (r->by == KT_REVOKE_IMAGE_HASH) {
        const struct kt_json *images = kt_json_get(doc, "images");
        for (size_t a = 0; images && images->type == KT_JSON_OBJ && a < images->n; a++) {
            const struct kt_json *arr = &images->kids[a];
            for (size_t i = 0; arr->type == KT_JSON_ARR && i < arr->n; i++) {
                const struct kt_json *e = &arr->kids[i];
                const char *ht = kt_json_str(e, "hashType");
                if (ht && strcasecmp(ht, r->alg))
                    continue;
                if (!hex_eq(kt_json_str(e, "authenticodeHash"), r->value, r->value_len))
                    continue;
                const char *fn = kt_json_str(e, "filename"), *co = kt_json_str(e, "companyName"),
                           *d = kt_json_str(e, "dateOfAddition"),
                           *desc = kt_json_str(e, "description");
                char head[512];
                snprintf(head, sizeof(head), "%s (%s, %s, added %s)", fn ? fn : "?",
                         co ? co : "?", arr->key ? arr->key : "?", d ? d : "?");
                return fmt(head, desc ? desc : "");
            }
        }
    } else if (r->by == KT_REVOKE_CERT) {
        const struct kt_json *certs = kt_json_get(doc, "certificates");
        for (size_t i = 0; certs && certs->type == KT_JSON_ARR && i < certs->n; i++) {
            const struct kt_json *e = &certs->kids[i];
            if (!hex_eq(kt_json_str(e, "thumbprint"), r->value, 20))
                continue;
            const char *sn = kt_json_str(e, "subjectName"), *desc = kt_json_str(e, "description");
            return fmt(sn ? sn : "?", desc ? desc : "");
        }
    }
    return NULL;
}

uint32_t kt_dbx_info_hash_arches(const struct kt_json *doc, enum kt_hash alg, const uint8_t *v,
                                 size_t len, const struct kt_json **names)
{
    const struct kt_json *images = doc ? kt_json_get(doc, "images") : NULL;
    if (names)
        *names = images && images->type == KT_JSON_OBJ ? images : NULL;
    uint32_t bits = 0;
    for (size_t a = 0; images && images->type == KT_JSON_OBJ && a < images->n && a < 32; a++) {
        const struct kt_json *arr = &images->kids[a];
        for (size_t i = 0; arr->type == KT_JSON_ARR && i < arr->n; i++) {
            const struct kt_json *e = &arr->kids[i];
            const char *ht = kt_json_str(e, "hashType");
            if (ht && strcasecmp(ht, kt_hash_name(alg)))
                continue;
            if (hex_eq(kt_json_str(e, "authenticodeHash"), v, len)) {
                bits |= 1u << a;
                break;
            }
        }
    }
    return bits;
}
