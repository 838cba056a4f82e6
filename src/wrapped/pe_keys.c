#include "wrapped/pe_keys.h"

#include <stdio.h>
#include <string.h>

const char *kt_wrap_kind_name(enum kt_wrap_kind k)
{
    switch (k) {
    case KT_WRAP_KEYLIST: return ".keylist";
    case KT_WRAP_VENDOR_CERT: return ".vendor_cert";
    default: return "none";
    }
}

static size_t section_file_offset(const struct kt_pe *pe, kt_span data)
{
    return (size_t)(data.p - pe->buf);
}

int kt_pe_find_wrapped(const struct kt_pe *pe, struct kt_wrapped *w, struct kt_error *err)
{
    kt_span data;
    memset(w, 0, sizeof(*w));
    if (kt_pe_find_section(pe, ".keylist", &data) == 0) {
        w->kind = KT_WRAP_KEYLIST;
        w->keylist = data;
        w->section_offset = section_file_offset(pe, data);
        return 0;
    }
    if (kt_pe_find_section(pe, ".vendor_cert", &data) == 0) {
        w->kind = KT_WRAP_VENDOR_CERT;
        w->section_offset = section_file_offset(pe, data);
        return kt_vendor_cert_parse(data, w->section_offset, &w->vendor, err);
    }
    return kt_fail(err, -ENOENT, KT_NO_OFFSET,
                   "trusted image wraps no keys: it has neither a .keylist nor a .vendor_cert section");
}

/* Add a blob to r and record which keys of r are new. */
static int add_part(struct kt_keyrings *rings, struct kt_keyring *r, kt_span blob,
                    size_t blob_offset, const char *source, struct kt_pe_load_result *res,
                    struct kt_error *err)
{
    size_t before = kt_keyring_count(r), n = 0;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_keyrings_add_blob(rings, r, blob.p, blob.len, source, KT_ADD_VOUCHED, &n, &e);
    if (rc < 0) {
        /* error offsets from add_blob are relative to the blob */
        size_t off = e.offset == KT_NO_OFFSET ? KT_NO_OFFSET : blob_offset + e.offset;
        return kt_fail(err, rc, off, "%s", e.what);
    }
    size_t after = kt_keyring_count(r);
    for (size_t i = before; i < after && res->n_added < KT_PE_LOAD_MAX_KEYS; i++)
        res->added[res->n_added++] = kt_keyring_key(r, i);
    return (int)n;
}

/* Trust never widens: the keyring of the key that vouched for the wrapper
 * bounds where the keys it wraps may go.  builtin/secondary/machine (system
 * keys) vouch for secondary, machine and platform; platform (UEFI db, MOK)
 * only for platform, whose keys vouch for boot images and never for
 * modules.  A user keyring target applies its own restriction instead (in
 * kt_keyring_add).  Returns 0 or -EPERM with the reason. */
static int check_scope(struct kt_keyrings *rings, struct kt_keyring *target,
                       const struct kt_pe_result *v, struct kt_error *err)
{
    if (!kt_keyring_is_default(target))
        return 0;
    const struct kt_keyring *platform = kt_keyrings_get(rings, "platform");
    const struct kt_key *system = NULL, *plat = NULL;
    for (size_t i = 0; i < v->n_sigs; i++) {
        const struct kt_key *by = v->sigs[i].vouches ? v->sigs[i].trusted_by : NULL;
        if (!by)
            continue;
        if (by->ring == platform)
            plat = plat ? plat : by;
        else if (kt_keyring_vouches_for(rings, by->ring, KT_VERIFY_PURPOSE_MODULE))
            system = system ? system : by;
    }
    if (system || target == platform)
        return 0;
    return kt_fail(err, -EPERM, KT_NO_OFFSET,
                   "refused: only %s in keyring %s vouched for this image; platform keys vouch "
                   "for boot images, never for %s keys%s",
                   plat && plat->cert->description ? plat->cert->description : "a key",
                   plat ? kt_keyring_name(plat->ring) : "?", kt_keyring_name(target),
                   kt_hint_text(KT_HINT_PLATFORM_VOUCH));
}

int kt_pe_load_keys(const uint8_t *buf, size_t len, struct kt_keyrings *rings,
                    struct kt_keyring *target, const struct kt_pe_verify_opts *opts,
                    const char *source, struct kt_pe_load_result *res, struct kt_error *err)
{
    memset(res, 0, sizeof(*res));
    /* load-pe-key's policy (CONTRACT), stricter than the keyring's own
     * trusted-only rule: builtin takes explicit adds only, and the blacklist
     * takes revocations, not keys a container vouched for */
    const char *tname = kt_keyring_name(target);
    if (!strcmp(tname, "builtin") || !strcmp(tname, "blacklist"))
        return kt_fail(err, -EPERM, KT_NO_OFFSET,
                       "keyring %s does not take keys vouched for by a PE image (builtin holds "
                       "compiled-in keys only): use secondary",
                       tname);
    int rc = kt_pe_verify(buf, len, rings, opts, &res->verify, err);
    if (rc < 0)
        return rc;
    rc = check_scope(rings, target, res->verify, err);
    if (rc < 0)
        return rc;
    return kt_pe_add_wrapped(res->verify->pe, rings, target, source, res, err);
}

int kt_pe_add_wrapped(const struct kt_pe *pe, struct kt_keyrings *rings,
                      struct kt_keyring *target, const char *source,
                      struct kt_pe_load_result *res, struct kt_error *err)
{
    struct kt_wrapped w;
    int rc = kt_pe_find_wrapped(pe, &w, err);
    if (rc == -ENOENT)
        return -ELIBBAD; /* a key container without keys: unusable as one */
    if (rc < 0)
        return rc;
    res->kind = w.kind;
    char src[512];
    snprintf(src, sizeof(src), "pe:%s%s", source ? source : "", kt_wrap_kind_name(w.kind));
    if (w.kind == KT_WRAP_KEYLIST) {
        rc = add_part(rings, target, w.keylist, w.section_offset, src, res, err);
        if (rc < 0)
            return rc;
    } else {
        struct kt_keyring *bl = kt_keyrings_get(rings, "blacklist");
        if (w.vendor.deauthorized.len) {
            size_t before = kt_blacklist_hash_count(rings) + kt_keyring_count(bl);
            struct kt_error e = KT_ERROR_INIT;
            size_t n = 0;
            snprintf(src, sizeof(src), "pe:%s.vendor_cert dbx", source ? source : "");
            rc = kt_keyrings_add_blob(rings, bl, w.vendor.deauthorized.p, w.vendor.deauthorized.len,
                                      src, KT_ADD_EXPLICIT, &n, &e);
            if (rc < 0)
                return kt_fail(err, rc,
                               e.offset == KT_NO_OFFSET ? KT_NO_OFFSET
                                                        : w.vendor.deauthorized_offset + e.offset,
                               "vendor dbx: %s", e.what);
            res->n_blacklisted = kt_blacklist_hash_count(rings) + kt_keyring_count(bl) - before;
        }
        if (w.vendor.authorized.len) {
            snprintf(src, sizeof(src), "pe:%s.vendor_cert", source ? source : "");
            rc = add_part(rings, target, w.vendor.authorized, w.vendor.authorized_offset, src, res,
                          err);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

int kt_pe_load_keys_policy(const uint8_t *buf, size_t len, struct kt_keyrings *rings,
                           struct kt_keyring *target, const struct kt_policy *pol,
                           const char *source, struct kt_pe_load_result *res,
                           struct kt_error *err)
{
    struct kt_pe_verify_opts o = {.purpose = KT_VERIFY_PURPOSE_UEFI};
    memset(res, 0, sizeof(*res));
    if (pol) {
        if (pol->purpose == KT_VERIFY_PURPOSE_KEXEC)
            o.purpose = KT_VERIFY_PURPOSE_KEXEC;
        else if (pol->purpose != KT_VERIFY_PURPOSE_DEFAULT &&
                 pol->purpose != KT_VERIFY_PURPOSE_UEFI)
            return kt_fail(err, -EINVAL, KT_NO_OFFSET,
                           "a PE image's wrapped keys are loaded for uefi or kexec only");
        o.allow_sha1 = pol->allow_sha1;
        o.check_time = pol->check_time;
        o.at_time = pol->at_time;
    }
    return kt_pe_load_keys(buf, len, rings, target, &o, source, res, err);
}

void kt_pe_load_result_free(struct kt_pe_load_result *res)
{
    if (res && res->verify) {
        kt_pe_result_free(res->verify);
        res->verify = NULL;
    }
}
