/* plan_kek.c - the KEK 2023 story of one PK: reached by a step of the plan,
 * already held, or why not (no file signed by this PK among the updates;
 * what kek_update_map.json, an index only, says of this PK). */
#include "plan/plan_kek.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "crypto/crypto.h"
#include "esl/esl.h"
#include "util/file.h"
#include "util/fmt.h"
#include "util/jsonr.h"
#include "x509/x509.h"

const uint8_t kt_plan_kek_2023[32] = {
    0x3c, 0xd3, 0xf0, 0x30, 0x9e, 0xda, 0xe2, 0x28, 0x76, 0x7a, 0x97, 0x6d, 0xd4, 0x0d, 0x9f, 0x4a,
    0xff, 0xc4, 0xfb, 0xd5, 0x21, 0x8f, 0x2e, 0x8c, 0xc3, 0xc9, 0xdd, 0x97, 0xe8, 0xac, 0x6f, 0x9d};
const uint8_t kt_plan_uefi_2011[32] = {
    0x48, 0xe9, 0x9b, 0x99, 0x1f, 0x57, 0xfc, 0x52, 0xf7, 0x61, 0x49, 0x59, 0x9b, 0xff, 0x0a, 0x58,
    0xc4, 0x71, 0x54, 0x22, 0x9b, 0x9f, 0x8d, 0x60, 0x3a, 0xc4, 0x0d, 0x35, 0x00, 0x24, 0x85, 0x07};
const uint8_t kt_plan_uefi_2023[32] = {
    0xf6, 0x12, 0x4e, 0x34, 0x12, 0x5b, 0xee, 0x3f, 0xe6, 0xd7, 0x9a, 0x57, 0x4e, 0xaa, 0x7b, 0x91,
    0xc0, 0xe7, 0xbd, 0x9d, 0x92, 0x9c, 0x1a, 0x32, 0x11, 0x78, 0xef, 0xd6, 0x11, 0xda, 0xd9, 0x01};

struct first_cert {
    struct kt_plan *p;
    bool done;
};

static int pk_cb(void *ctx, const struct kt_esl_entry *e)
{
    struct first_cert *f = ctx;
    if (f->done || e->type != KT_ESL_X509)
        return 0;
    f->done = true;
    uint8_t d[20];
    char hex[41];
    if (kt_digest(KT_HASH_SHA1, e->data.p, e->data.len, d) == 0)
        kt_fmt(f->p->pk_sha1, sizeof(f->p->pk_sha1), "%s", kt_hex(d, 20, hex));
    struct kt_x509 *x = NULL;
    struct kt_error xe = KT_ERROR_INIT;
    if (kt_x509_parse(e->data.p, e->data.len, &x, &xe) == 0)
        kt_fmt(f->p->pk, sizeof(f->p->pk), "%s", x->subject_cn ? x->subject_cn : x->subject);
    kt_x509_free(x);
    return 0;
}

/* What kek_update_map.json says of this PK's thumbprint: the file name it
 * lists ("" none); -1 when the map cannot be read. */
static int map_lookup(const struct kt_plan *p, char *file, size_t cap)
{
    file[0] = 0;
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    if (kt_file_open(p->map, &f, &e) < 0)
        return -1;
    struct kt_json *j = NULL;
    int rc = kt_json_parse((const char *)f.data, f.len, &j, &e);
    kt_file_close(&f);
    if (rc < 0)
        return -1;
    for (size_t i = 0; j->type == KT_JSON_OBJ && i < j->n; i++) {
        const struct kt_json *m = &j->kids[i];
        if (m->key && !strcasecmp(m->key, p->pk_sha1)) {
            const char *u = kt_json_str(m, "KEKUpdate");
            kt_fmt(file, cap, "%s", u ? u : "(an entry without a file name)");
        }
    }
    kt_json_free(j);
    return 0;
}

int kt_plan_kek_story(struct kt_plan *p, const struct kt_efivars *was,
                      const struct kt_efivars *now)
{
    size_t len;
    const uint8_t *pk = kt_efivar_data(&was->var[KT_EFIVAR_PK], &len);
    struct first_cert fc = {p, false};
    struct kt_error e = KT_ERROR_INIT;
    if (pk && len)
        (void)kt_esl_foreach(pk, len, pk_cb, &fc, &e);
    char *n = p->kek_note;
    size_t cap = sizeof(p->kek_note);
    if (kt_plan_var_holds(was, KT_EFIVAR_KEK, kt_plan_kek_2023)) {
        kt_fmt(n, cap, "KEK already holds Microsoft Corporation KEK 2K CA 2023");
        return 0;
    }
    for (size_t i = 0; i < p->n_steps; i++) {
        const struct kt_plan_file *f = &p->files[p->order[i]];
        if (f->change.target != KT_EFIVAR_KEK)
            continue;
        if (kt_plan_var_holds(now, KT_EFIVAR_KEK, kt_plan_kek_2023))
            kt_fmt(n, cap, "KEK gains Microsoft Corporation KEK 2K CA 2023 from %s (signed by "
                   "this PK, %s)", f->path, p->pk[0] ? p->pk : "?");
        else
            kt_fmt(n, cap, "%s (signed by this PK) changes KEK but does not carry Microsoft "
                   "Corporation KEK 2K CA 2023", f->path);
        return 0;
    }
    if (!p->pk_sha1[0]) {
        kt_fmt(n, cap, "no PK: the machine is in setup mode; enroll a PK and KEK (your own, or "
               "the OEM's) before KEK 2023 can be added");
        return 0;
    }
    char listed[512];
    int m = p->map[0] ? map_lookup(p, listed, sizeof(listed)) : -1;
    if (m == 0 && listed[0])
        kt_fmt(n, cap, "no KEK update given is signed by this PK (%s, SHA-1 %s); "
               "kek_update_map.json lists %s for it: get that file", p->pk, p->pk_sha1, listed);
    else if (m == 0)
        kt_fmt(n, cap, "no KEK update exists for this PK (%s, SHA-1 %s): kek_update_map.json has "
               "no entry for it and no file given is signed by it; the OEM never published one, "
               "so this machine cannot get KEK 2023 from Microsoft: ask the vendor, or enroll "
               "your own keys", p->pk, p->pk_sha1);
    else
        kt_fmt(n, cap, "no KEK update given is signed by this PK (%s, SHA-1 %s); Microsoft "
               "publishes one per OEM PK (PostSignedObjects/KEK/<OEM>/), indexed by that SHA-1 "
               "in kek_update_map.json", p->pk, p->pk_sha1);
    return 0;
}
