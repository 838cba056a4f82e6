/* pk.c - the platform key: its SHA-1 thumbprint (the key of
 * Microsoft's kek_update_map.json), PKfail (a test or leaked key: its
 * subject says DO NOT TRUST / DO NOT SHIP, or it is one of the test keys
 * the map lists), and the KEK update the map names for it. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "boot/pk.h"
#include "crypto/crypto.h"
#include "esl/esl.h"
#include "util/file.h"
#include "util/fmt.h"
#include "util/jsonr.h"

/* Platform keys kek_update_map.json lists with a test subject ("DO NOT
 * TRUST - AMI Test PK", "DO NOT TRUST - OEM PK", "Test Certificate", ...):
 * SHA-1 thumbprints of keys whose private halves are public (PKfail). */
static const struct {
    const char *sha1, *subject;
} test_pks[] = {
    {"9a3056b5260f628645b4d9ac61aebd8060305c3e", "DO NOT TRUST - AMI Test PK"},
    {"a773113bafaf5129aa83fd0912e95da4fa555f91", "DO NOT TRUST - AMI Test PK"},
    {"6592a50636faf8be9ae74f0f7f8bd744fa44b329", "DO NOT TRUST - AMI Test PK"},
    {"2b6ccde909230f89447d8a583d03a432d686faee", "DO NOT TRUST - AMI Test PK"},
    {"b3840dfcf8ab23704e6c5e51ce6f3e38459ef9ac", "DO NOT TRUST - OEM PK"},
    {"d35360be5a518096786fc19df9d18b1aa59fa9da", "DO NOT TRUST - Test PK"},
    {"be4a1ac7ff36c0faf0c643274a80a5e78d0b2551", "UEFI PK Aava test"},
    {"5e5a676bcf908192f18d6d8ad363d34a4a95e6d5", "Test Certificate"},
    {"4a84ba89ab91c3c3168ffb5756add18bc0d78b6e", "Test Certificate"},
    {"1b5a9604d8dc7e9df58672e45f7fa8ba03d981e6", "Test Certificate"},
    {"81d940254998a36c8c1d1312d3b41ffdf88165d9", "OEM1 Test Certificate"},
};

static bool has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (; s && *s; s++)
        if (!strncasecmp(s, w, n))
            return true;
    return false;
}

/* w as a word of s (not "latest"), any case. */
static bool has_token(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = s; p && *p; p++)
        if (!strncasecmp(p, w, n) && (p == s || !isalnum((unsigned char)p[-1])) &&
            !isalnum((unsigned char)p[n]))
            return true;
    return false;
}

/* A subject that says the key is not to be trusted. */
static bool test_subject(const char *s)
{
    return has_word(s, "DO NOT TRUST") || has_word(s, "DO NOT SHIP");
}

struct first_cert {
    struct kt_x509 *c;
};

static int take_first(void *ctx, const struct kt_esl_entry *e)
{
    struct first_cert *f = ctx;
    struct kt_error err = KT_ERROR_INIT;
    if (e->type != KT_ESL_X509 || f->c)
        return 0;
    if (kt_x509_parse(e->data.p, e->data.len, &f->c, &err) == -ENOMEM)
        return -ENOMEM;
    return 0;
}

/* The map's entry for this PK: its KEK update, and a test subject. */
static int look_up(struct kt_pk_facts *ro, const char *path, struct kt_error *err)
{
    struct kt_file f = {0};
    struct kt_json *j = NULL;
    int rc = kt_file_open(path, &f, err);
    if (rc == 0)
        rc = kt_json_parse((const char *)f.data, f.len, &j, err);
    kt_file_close(&f);
    if (rc < 0)
        return rc;
    ro->kek_map = 0;
    const struct kt_json *e = j->type == KT_JSON_OBJ ? kt_json_get(j, ro->pk_sha1) : NULL;
    if (e && e->type == KT_JSON_OBJ) {
        const char *file = kt_json_str(e, "KEKUpdate");
        const struct kt_json *c = kt_json_get(e, "Certificate");
        const char *to = c ? kt_json_str(c, "issued_to") : NULL;
        ro->kek_map = file != NULL;
        kt_fmt(ro->kek_update, sizeof(ro->kek_update), "%s", file ? file : "");
        if (!ro->pkfail && (test_subject(to) || has_token(to, "test"))) {
            ro->pkfail = true;
            kt_fmt(ro->pkfail_why, sizeof(ro->pkfail_why),
                   "kek_update_map.json lists this PK as \"%s\", a test key", to);
        }
    }
    kt_json_free(j);
    return 0;
}

int kt_pk_facts(const uint8_t *pk, size_t len, const char *kek_map, struct kt_pk_facts *ro,
                struct kt_error *err)
{
    memset(ro, 0, sizeof(*ro));
    ro->kek_map = -1;
    struct first_cert f = {NULL};
    struct kt_error e = KT_ERROR_INIT;
    if (pk && kt_esl_foreach(pk, len, take_first, &f, &e) == -ENOMEM)
        return -ENOMEM;
    if (f.c) {
        uint8_t sha1[20];
        ro->have_pk = true;
        kt_fmt(ro->pk, sizeof(ro->pk), "%s", f.c->description ? f.c->description : f.c->subject);
        if (kt_digest(KT_HASH_SHA1, f.c->der.p, f.c->der.len, sha1) == 0)
            kt_hex(sha1, 20, ro->pk_sha1);
        if (test_subject(f.c->subject)) {
            ro->pkfail = true;
            kt_fmt(ro->pkfail_why, sizeof(ro->pkfail_why), "its subject says so (%s)", f.c->subject);
        }
        for (size_t i = 0; !ro->pkfail && i < sizeof(test_pks) / sizeof(test_pks[0]); i++)
            if (!strcmp(ro->pk_sha1, test_pks[i].sha1)) {
                ro->pkfail = true;
                kt_fmt(ro->pkfail_why, sizeof(ro->pkfail_why),
                       "kek_update_map.json lists its thumbprint as \"%s\", a test key",
                       test_pks[i].subject);
            }
    }
    kt_x509_free(f.c);
    if (!kek_map)
        return 0;
    int rc = look_up(ro, kek_map, err); /* read even without a PK: a bad map is an error */
    if (!ro->have_pk)
        ro->kek_map = -1;
    return rc;
}
