/* sdboot_judge.c - the verdict on what a systemd-boot entry starts: its
 * program's Authenticode verdict (kt_verify_buf, as verify-pe gives it),
 * a UKI's folded with the stub's own refusal; an add-on's with UAPI.5's
 * section rule.  A path ktrust does not follow is never judged. */
#include <stdio.h>
#include <string.h>

#include "ktrust/verify.h"
#include "sdboot/sdboot.h"
#include "uki/uki.h"
#include "util/err.h"
#include "util/file.h"

int kt_sdboot_entry_verify(const struct kt_ctx *ctx, const struct kt_sdboot *s, size_t i,
                           const struct kt_policy *pol, struct kt_error *err)
{
    const struct kt_sdboot_entry *e = kt_sdboot_entry_at(s, i);
    if (!e)
        return kt_fail(err, -EINVAL, KT_NO_OFFSET, "no such entry");
    if (e->image_rc < 0)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET,
                       "%s: the path has '.' or '..' or leaves the ESP: not judged", e->image);
    struct kt_file f = {0};
    struct kt_result *r = NULL;
    int rc = kt_file_open(e->resolved, &f, err);
    if (rc < 0)
        return rc;
    rc = kt_verify_buf(ctx, e->resolved, f.data, f.len, pol, &r, err);
    if (e->kind == KT_SDBOOT_UKI) {
        struct kt_uki *u = NULL;
        struct kt_error ue = KT_ERROR_INIT;
        if (kt_uki_open_buf(f.data, f.len, &u, &ue) == 0) {
            rc = kt_uki_verdict(u, rc, &ue);
            if (ue.code && err)
                *err = ue;
        }
        kt_uki_free(u);
    }
    kt_result_free(r);
    kt_file_close(&f);
    return rc;
}

int kt_sdboot_addon_verify(const struct kt_ctx *ctx, const char *path, const struct kt_policy *pol,
                           char *forbidden, size_t cap, struct kt_error *err)
{
    struct kt_file f = {0};
    struct kt_result *r = NULL;
    struct kt_uki *u = NULL;
    if (forbidden && cap)
        forbidden[0] = 0;
    int rc = kt_file_open(path, &f, err);
    if (rc < 0)
        return rc;
    rc = kt_uki_open_buf(f.data, f.len, &u, err);
    if (rc == 0) {
        rc = kt_verify_buf(ctx, path, f.data, f.len, pol, &r, err);
        char names[200];
        if (kt_sdboot_addon_check(u, names, sizeof(names))) {
            if (forbidden)
                snprintf(forbidden, cap, "%s", names);
            struct kt_error fe = KT_ERROR_INIT;
            kt_fail(&fe, -EKEYREJECTED, KT_NO_OFFSET,
                    "an add-on with sections only a UKI may carry (%s): systemd-stub refuses it", names);
            rc = kt_verdict_worse(rc, -EKEYREJECTED);
            if (rc == -EKEYREJECTED && err)
                *err = fe;
        }
    }
    kt_uki_free(u);
    kt_result_free(r);
    kt_file_close(&f);
    return rc;
}
